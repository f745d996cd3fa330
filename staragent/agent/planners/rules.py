"""The offline planner: a LangChain chat model that plans by rules instead of a neural network.

It reads the conversation like any chat model would (the question, earlier turns, its own tool
calls and their results) and replies either with tool calls or with a final answer. Because it is a
chat model, the same LangGraph graph runs with it, with a local transformers model, or with an
OpenAI-compatible endpoint.

Plan: search for the question's topic (or go straight to a time range the question names), read
the best span with the tools that fit the question (speech, on-screen text, sounds), compute with
the calculator when the question asks for arithmetic over several facts, then answer by quoting
the evidence that matches the question best, with its timestamps. Questions that plainly ask for
one tool (remember this, translate that, how many ... are visible, solve the equation on the slide,
search the web, summarise) follow that tool's own short plan in ``rule_intents``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from ...errors import StarAgentError
from ...index.text import GLUED, tokenize
from ...schema import Evidence
from ...timecodes import clock_range, format_range, format_time, parse_range, parse_time
from .question import Question, analyse

SEARCH, SPEECH, TEXT, AUDIO, CALC = "cross_modal_search", "transcribe_speech", "extract_scene_text", "detect_audio_events", "calculator"
MEMORY = "memory_tool"
WHERE = {"ocr": "On screen", "speech": "Said", "audio": "Heard", "caption": "Seen", "visual": "Seen", "web": "Found on the web", "memory": "Remembered"}
_counter = itertools.count()
_RANGE_IN_TEXT = re.compile(r"(\d+:\d{2}(?::\d{2})?)\s*[–-]\s*(\d+:\d{2}(?::\d{2})?)")
_LENGTH_IN_PROMPT = re.compile(r"(\d+:\d{2}(?::\d{2})?) long")
_MONEY = re.compile(r"[$€£¥]\s?\d|\d\s?(?:dollars|euros|usd|eur)\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])[$€£¥]?\d[\d,]*(?:\.\d+)?%?(?:\s?(?:thousand|million|billion|trillion|bn|k)\b)?", re.I)
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12}
_TIME = re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b", re.I)
_NAME = re.compile(r"\b(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b|\b(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+[A-Z][a-z]+")
_PROPER = re.compile(r"(?<=[a-z,;:]\s)[A-Z][a-z]{2,}|(?<=\s)[A-Z][a-z]+\s+[A-Z][a-z]+")
_DAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:today|tomorrow|yesterday|tonight)\b", re.I)
_LONE_NAME = re.compile(r"[A-Z][a-z]{2,}(?:[ -][A-Z][a-z]+){0,2}")
_YEAR = re.compile(r"\b(1[89]|20)\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)


@dataclass
class Step:
    name: str
    args: dict
    result: dict | None
    evidence: list[Evidence]
    error: str | None


@dataclass
class Turn:
    question: Question
    steps: list[Step] = field(default_factory=list)
    duration: float | None = None
    previous_answer: str | None = None
    previous_evidence: list[Evidence] = field(default_factory=list)
    """What the previous answer cited (when the planner that gave it said so)."""
    tools: frozenset[str] = frozenset()
    """The tools this conversation offers."""
    noted: bool = False
    """An earlier turn asked to remember something, so the notes may hold the answer."""

    def called(self, name: str) -> list[Step]:
        return [s for s in self.steps if s.name == name]


def _call(name: str, **args) -> dict:
    return {"name": name, "args": args, "id": f"call_{next(_counter)}", "type": "tool_call"}


def _unwrapped(result):
    """A simulated tool's result is the dataset's response under ``response``: read it as the
    tool's own result (the benchmark's --simulated-tools mode)."""
    if isinstance(result, dict) and result.get("simulated") and isinstance(result.get("response"), dict):
        return result["response"]
    return result


def read_turn(messages: list[BaseMessage], tools: set[str] | frozenset[str] = frozenset()) -> Turn:
    """The current question, what was called for it so far, and what earlier turns said."""
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if not humans:
        raise ValueError("the conversation has no question")
    last = humans[-1]
    previous_q, previous_answer, previous_evidence, noted = None, None, [], False
    for h in humans[:-1]:  # each question read in the light of the one before: a topic carries through follow-ups
        previous_q = analyse(str(messages[h].content), previous_q)
        noted = noted or (previous_q.intent is not None and previous_q.intent.kind == "remember")
    if len(humans) > 1:
        earlier = [m for m in messages[humans[-2] : last] if isinstance(m, AIMessage) and not m.tool_calls and m.content]
        previous_answer = str(earlier[-1].content) if earlier else None
        cited = (earlier[-1].response_metadata or {}).get("evidence") if earlier else None
        previous_evidence = [Evidence(**e) for e in cited or []]
    duration = None
    for m in messages:
        if isinstance(m, SystemMessage) and (found := _LENGTH_IN_PROMPT.search(str(m.content))):
            duration = parse_time(found[1])
    turn = Turn(analyse(str(messages[last].content), previous_q), duration=duration, previous_answer=previous_answer,
                previous_evidence=previous_evidence,
                tools=frozenset(tools), noted=noted)
    results = {m.tool_call_id: m for m in messages[last:] if isinstance(m, ToolMessage)}
    for m in messages[last:]:
        if isinstance(m, AIMessage):
            for call in m.tool_calls:
                reply = results.get(call["id"])
                artifact = (reply.artifact or {}) if reply is not None else {}
                turn.steps.append(
                    Step(
                        name=call["name"],
                        args=call["args"],
                        result=_unwrapped(artifact.get("result")),
                        evidence=[Evidence(**e) for e in artifact.get("evidence", [])],
                        error=artifact.get("error") or (str(reply.content) if reply is not None and reply.status == "error" else None),
                    )
                )
    return turn


# ------------------------------------------------------------------ planning


def _range_calls(q: Question, start: float, end: float, tools: set[str]) -> list[dict]:
    """Read a span: its sounds for a question about sounds, else what is said and shown (both are
    cheap, and a question's wording is a weak guide to where its answer lives)."""
    span = clock_range(start, end)
    wanted = [AUDIO] if q.wants == {"audio"} else [AUDIO] * ("audio" in q.wants) + [SPEECH, TEXT]
    return [_call(name, timestamp=span) for name in wanted if name in tools]


def _anchor(turn: Turn) -> tuple[float, float] | None:
    """The moment "that" refers to: the line the previous answer led with, else the first time
    range its text names (an answer from a planner that does not say what it cited)."""
    if turn.previous_evidence:
        lead = turn.previous_evidence[0]
        return lead.start, lead.end
    if turn.previous_answer and (found := _RANGE_IN_TEXT.search(turn.previous_answer)):
        return parse_time(found[1]), parse_time(found[2])
    return None


def _shift(span: tuple[float, float], relation: str | None, duration: float | None, width: float = 20.0) -> tuple[float, float]:
    start, end = span
    if relation == "after":
        start, end = end, end + width
    elif relation == "before":
        start, end = max(0.0, start - width), start
    if duration:
        end = min(end, duration)
        start = min(start, max(0.0, end - 1.0))
    return start, end


def first_calls(turn: Turn, tools: set[str]) -> list[dict]:
    notes = [_call(MEMORY, func="search", data=turn.question.query)] if turn.noted and MEMORY in tools else []
    return notes + _video_calls(turn, tools)


def _video_calls(turn: Turn, tools: set[str]) -> list[dict]:
    q = turn.question
    if q.time_range is not None:
        start, end = q.time_range
        if start < 0 and turn.duration:  # "the last 2 minutes"
            start, end = max(0.0, turn.duration + start), turn.duration
        return _range_calls(q, max(0.0, start), end, tools)
    if q.follow_up and q.relation and (anchor := _anchor(turn)):
        return _range_calls(q, *_shift(anchor, q.relation, turn.duration), tools)
    if SEARCH not in tools:
        return []
    if q.operation and q.owner:  # "the Basic and Pro plans of X": both values are where X is
        return [_call(SEARCH, query=f"{q.owner} {' '.join(q.attributes)}".strip(), k=3)]
    if q.operation and len(q.operands) >= 2:
        return [_call(SEARCH, query=operand, k=3) for operand in q.operands]
    return [_call(SEARCH, query=q.query, k=5)]


def _top_hits(turn: Turn) -> list[dict]:
    hits = []
    for step in turn.called(SEARCH):
        results = (step.result or {}).get("results") or []
        if results and isinstance(results[0], dict) and "start" in results[0]:  # a simulated response may be free-form
            hits.append(results[0])
    return hits


def next_calls(turn: Turn, tools: set[str]) -> list[dict]:
    """What to call next, given what this turn already did; [] means: answer now."""
    from .rule_intents import intent_calls

    planned = intent_calls(turn, tools)
    if planned is not None:
        return planned
    if not turn.steps:
        return first_calls(turn, tools)
    q = turn.question
    done_ranges = {s.name for s in turn.steps if s.name in (SPEECH, TEXT, AUDIO)}
    if turn.called(SEARCH) and not done_ranges:
        calls = []
        for hit in _top_hits(turn):
            # read the whole scene around the match: a slide's figures and what is said over it
            span = (hit.get("scene_start", hit["start"]), hit.get("scene_end", hit["end"]))
            if "audio" in q.wants and q.relation:
                # "the sound after the narration about X": it may still fall within X's span
                span = (span[0] - 10 * (q.relation == "before"), span[1] + 10 * (q.relation == "after"))
                span = (max(0.0, span[0]), min(span[1], turn.duration or span[1]))
            else:
                span = _shift(span, q.relation, turn.duration)
            calls.extend(_range_calls(q, *span, tools))
        if calls:
            return calls
    if q.operation and CALC in tools and not turn.called(CALC):
        expression = arithmetic(turn)
        if expression:
            return [_call(CALC, expression=expression)]
    return []


# ------------------------------------------------------------------ reading numbers


def _numbers(text: str) -> list[tuple[str, float]]:
    """Numbers written in ``text`` with their scale words applied ("$12.5 million" -> 12500000)."""
    out = []
    for raw in _NUMBER.findall(re.sub(r"(?<=\d)(?=[A-Za-z])", " ", text)):
        parts = raw.split()
        scale = _SCALE.get(parts[-1].lower(), 1.0) if len(parts) > 1 else 1.0
        try:
            out.append((raw, float(parts[0].strip("$€£¥%").replace(",", "")) * scale))
        except ValueError:
            continue
    return out


def operand_value(turn: Turn, operand: str, exclude: set | None = None) -> tuple[float, Evidence] | None:
    """The number that best answers one part of an arithmetic question."""
    q = turn.question
    wanted = set(tokenize(operand))
    best = None
    evidence = _turn_evidence(turn)
    read = [e for e in evidence if e.source != "cross_modal_search"] or evidence  # what the range tools read first
    for e in read:
        if exclude and e.key() in exclude:
            continue
        numbers = _numbers(e.text)
        if not numbers:
            continue
        toks = set(tokenize(e.text))
        score = len(matched(wanted, toks)) / max(1, len(wanted))
        if q.answer_type == "money" and _MONEY.search(e.text):
            score += 1.0  # "how much more does X cost": an amount, before the warranty years beside it
        near = _near_topic(turn, e, wanted)
        score += 0.5 * near
        if score > 0 and (best is None or score > best[0]):
            best = (score, numbers[0][1], e)
    return (best[1], best[2]) if best else None


def _near_topic(turn: Turn, e: Evidence, wanted: set[str]) -> float:
    """Share of the operand's words found in other evidence shown at the same time (a slide's title)."""
    toks: set[str] = set()
    for other in _turn_evidence(turn):
        if other.modality == e.modality and other.start < e.end and other.end > e.start:
            toks |= set(tokenize(other.text))
    return len(matched(wanted, toks)) / max(1, len(wanted))


def operand_values(turn: Turn) -> list[tuple[float, Evidence]]:
    """One number per part of the question, each from a different piece of evidence."""
    used: set = set()
    found = []
    for operand in turn.question.operands:
        value = operand_value(turn, operand, used)
        if value is None:
            return []
        used.add(value[1].key())
        found.append(value)
    return found


NUMBER_WORDS = {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty",
                "thirty", "forty", "fifty", "hundred", "thousand", "million", "billion", "dozen"}
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "both": 2}


def listed_values(turn: Turn) -> list[tuple[float, Evidence]]:
    """For "the total of the two prices": every relevant number of the asked kind, in time order."""
    q = turn.question
    wanted = q.tokens
    found: dict[float, Evidence] = {}
    for e in sorted(_turn_evidence(turn), key=lambda x: x.start):
        if not matched(wanted, set(tokenize(e.text))):
            continue
        if q.answer_type == "money" and not _MONEY.search(e.text):
            continue
        for _, value in _numbers(e.text)[:1]:
            found.setdefault(value, e)
    count = next((n for word, n in _COUNT_WORDS.items() if re.search(rf"\b{word}\b", q.text.lower())), 5)
    return list(found.items())[:count]


_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s?(?:%|percent\b)", re.I)
_PRICE_WORDS = re.compile(r"\b(price|costs?|normally|regular|usually|sells? for)\b", re.I)
_OFF_WORDS = re.compile(r"\b(off|discount|sale|saves?|reduced)\b", re.I)


def discount_values(turn: Turn) -> list[tuple[float, Evidence]]:
    """The price and the percentage off that best fit the question ("after the discount")."""
    scored = sorted(_read_first(_with_context(turn.question, _turn_evidence(turn))), key=lambda x: (-x[0], x[2].start))
    # a price line says so ("Regular price", "normally costs"); a discount line says "off" or "discount"
    prices = [(_PRICE_WORDS.search(e.text) is None, i, e) for i, (_, _, e) in enumerate(scored) if _MONEY.search(e.text)]
    offs = [(_OFF_WORDS.search(e.text) is None, i, e) for i, (_, _, e) in enumerate(scored) if _PERCENT.search(e.text)]
    if not prices or not offs:
        return []
    price, off = min(prices, key=lambda x: x[:2])[2], min(offs, key=lambda x: x[:2])[2]
    return [(_numbers(price.text)[0][1], price), (float(_PERCENT.search(off.text)[1]), off)]


def _values(turn: Turn) -> list[tuple[float, Evidence]]:
    q = turn.question
    if q.operation == "discount":
        return discount_values(turn)
    return operand_values(turn) if q.operands else listed_values(turn)


def arithmetic(turn: Turn) -> str | None:
    q = turn.question
    values = [v for v, _ in _values(turn)]
    if len(values) < 2:
        return None
    text = [f"{v:g}" for v in values]
    if q.operation == "discount":
        return f"{text[0]} * (1 - {text[1]} / 100)"
    if q.operation == "mean":
        return f"mean({', '.join(text)})"
    if q.operation == "-":
        return f"abs({text[0]} - {text[1]})"
    return f" {q.operation} ".join(text)


# ------------------------------------------------------------------ answering


def _turn_evidence(turn: Turn) -> list[Evidence]:
    """Everything this turn's tools found, once each; a line both search and a range tool found
    counts as read by the range tool."""
    found: dict[tuple, Evidence] = {}
    for step in turn.steps:
        for e in step.evidence:
            kept = found.get(e.key())
            if kept is None or (kept.source == "cross_modal_search" and e.source != "cross_modal_search"):
                found[e.key()] = e
    return list(found.values())


def _has_type(text: str, answer_type: str | None) -> bool:
    text = GLUED.sub(" ", text)  # "14March2025", "Gate7": OCR lost the spaces
    if answer_type == "money":
        return bool(_MONEY.search(text))
    if answer_type == "percent":
        return bool(_PERCENT.search(text))
    if answer_type in ("number", "duration"):  # "one" is left out: "One more offer" states no number
        return bool(_NUMBER.search(text)) or bool(set(re.findall(r"[a-z]+", text.lower())) & NUMBER_WORDS)
    if answer_type == "time":
        return bool(_TIME.search(text))
    if answer_type == "when":  # a clock time or a date
        return bool(_TIME.search(text) or _YEAR.search(text) or _DAY.search(text))
    if answer_type == "date":
        return bool(_YEAR.search(text) or _DAY.search(text))
    if answer_type == "person":
        return bool(_NAME.search(text))
    if answer_type == "place":  # "Office: Dubai" beyond the question's words leaves "Dubai"
        return bool(_NAME.search(text) or _PROPER.search(text) or _LONE_NAME.fullmatch(text.strip(" .,:;")))
    return False


def matched(wanted: set[str], tokens: set[str] | frozenset[str]) -> set[str]:
    """The question's words found among ``tokens``, a word also matching one it begins or ends
    ("grow" ~ "growth", "prep" ~ "prepar"): stemming does not join such pairs."""
    found = wanted & tokens
    for w in wanted - found:
        if len(w) >= 4 and any(len(t) >= 4 and (t.startswith(w) or w.startswith(t)) for t in tokens):
            found.add(w)
    return found


_BARE_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")


def _beyond_question(text: str, q: Question) -> str:
    """``text`` without the words the question already used: what the line adds. A number is news
    unless the question wrote it as a number of its own ("Q4 2025" asks about 2025, not about 4)."""
    wanted, given = q.tokens, set(_BARE_NUMBER.findall(q.text))
    kept = []
    for word in text.split():
        bare = word.strip(".,;:!?$€£%()")
        if (_BARE_NUMBER.fullmatch(bare) and bare not in given) or not matched(wanted, set(tokenize(word))):
            kept.append(word)
    return " ".join(kept)


SALIENT_SOUNDS = {"tone": 0.3, "burst": 0.3, "noise": 0.25, "sound": 0.1, "silence": 0.0}
TYPE_BONUS = 0.6


_LABEL = re.compile(r"^\s*([^:]{2,30}):\s*\S")


def _weights(wanted: set[str], lines: list[set[str]]) -> dict[str, float]:
    """How telling each question word is among the lines read: a word on every line (the product
    a slide is about) tells less than the one word that singles out a line ("battery"), and a word
    on no line tells nothing about which line answers."""
    counts = {w: sum(1 for toks in lines if matched({w}, toks)) for w in wanted}
    return {w: 1.0 / n if n else 0.0 for w, n in counts.items()}


def _weighted(found: set[str], weights: dict[str, float]) -> float:
    total = sum(weights.values())
    return sum(weights.get(w, 0.0) for w in found) / total if total else 0.0


def _score(q: Question, e: Evidence, context: set[str], weights: dict[str, float]) -> tuple[float, float]:
    """``(score, share)``: how well ``e`` answers ``q``.

    ``share`` is the weighted part of the question's words (see ``_weights``) the line itself
    contains. ``context`` holds the words of what is shown or said beside it at the same moment
    (the title above a figure); it counts for half, and only for the words the line lacks. A line
    that says something of the kind asked for (a price, a name, a time) beyond the question's own
    words gains most, and more when it is labelled with the question's own word ("Office: Dubai");
    one that only repeats the question (a heading) loses.
    """
    wanted = q.tokens
    toks = set(tokenize(e.text))
    share = _weighted(matched(wanted, toks), weights)
    around = _weighted(matched(wanted, toks | context), weights)
    news = _beyond_question(e.text, q)
    score = share + 0.5 * (around - share) + (TYPE_BONUS if _has_type(news, q.answer_type) else 0.0)
    score += 0.15 if e.modality in q.wants else 0.0
    label = _LABEL.match(e.text)
    label_words = set(tokenize(label[1])) if label else set()
    if e.modality == "ocr" and label_words and tokenize(news) and matched(label_words, wanted) == label_words:
        score += 0.5  # "How long does the battery last?" -> "Battery: 26 hours"
    elif q.asked_for and e.modality != "audio" and tokenize(news) and matched(set(tokenize(q.asked_for)), toks):
        score += 0.5  # "Which room ...?" -> "Room: 3D" (sound labels are ranked by salience below)
    if not tokenize(news):
        score -= 0.4
    if (q.time_range or q.relation) and e.source != "cross_modal_search" and (not q.wants or e.modality in q.wants):
        share = max(share, 0.5)  # the question named the moment: what is there is the answer
    if share == 0 and around >= 0.5:
        share = 0.3 * around  # the figure under a matching title: eligible, though it names nothing asked
    if e.modality == "audio" and "audio" in q.wants:
        share = max(share, 0.5)
        score += 0.5 + SALIENT_SOUNDS.get(e.text.split(":", 1)[0], 0.0)
        if e.text.startswith("silence"):  # a pause between sentences is not "the silence after"
            score += 0.06 * min(e.end - e.start, 6.0)
            if q.names_a_sound:  # "what sound ...": silence is no sound
                score -= 0.5
        elif "tonal" in e.text:
            score += 0.1  # a chime or a bell says more than an unnamed sound
        if q.moment is not None:  # "around 0:50": the nearer, the likelier
            score += 0.3 * max(0.0, 1.0 - min(abs(e.start - q.moment), abs(e.end - q.moment)) / 10.0)
    return score, share


def _with_context(q: Question, evidence: list[Evidence]) -> list[tuple[float, float, Evidence]]:
    """Every line that bears on the question, scored with what surrounds it: lines of the same
    kind (on screen, or spoken) at the same moment. For "the sound after ..." later sounds in the
    span read score a little higher, for "before ..." earlier ones."""
    tokens = {e.key(): set(tokenize(e.text)) for e in evidence}
    read = [tokens[e.key()] for e in evidence if e.source != SEARCH]  # the span read competes; search hits elsewhere do not
    weights = _weights(q.tokens, read or list(tokens.values()))
    sounds = [e.start for e in evidence if e.modality == "audio"]
    first, last = (min(sounds), max(sounds)) if sounds else (0.0, 0.0)
    out = []
    for e in evidence:
        beside = [tokens[o.key()] for o in evidence if o.modality == e.modality and o.start < e.end + 1 and o.end > e.start - 1]
        score, share = _score(q, e, set().union(*beside), weights)
        if e.modality == "audio" and q.relation and last > first:
            position = (e.start - first) / (last - first)
            score += 0.15 * (position if q.relation == "after" else 1 - position)
        if share > 0:
            out.append((score, share, e))
    return out


def _ranges_read(turn: Turn) -> list[tuple[float, float]]:
    """The time ranges this turn's range tools read."""
    spans = []
    for step in turn.steps:
        if step.name in (SPEECH, TEXT, AUDIO) and isinstance(step.args.get("timestamp"), str):
            try:
                spans.append(parse_range(step.args["timestamp"]))
            except StarAgentError:
                continue
    return spans


LISTED = 12  # lines quoted for "what is said between 0:30 and 0:45?"


def _listing(turn: Turn, scored: list[tuple[float, float, Evidence]]) -> list[Evidence]:
    """Everything of the asked kind inside the stretch a question names, in time order."""
    q = turn.question
    start, end = q.time_range
    if start < 0 and turn.duration:  # "the last 2 minutes"
        start, end = turn.duration + start, turn.duration
    inside = [e for *_, e in scored if e.source != SEARCH and start <= (e.start + e.end) / 2 <= end]
    return sorted(inside, key=lambda e: (e.start, e.modality))[:LISTED]


def _at_moment(moment: float, scored: list[tuple[float, float, Evidence]]) -> list[Evidence]:
    """What was on screen, said or heard at ``moment``: each kind's line spanning it, else the nearest."""
    chosen = []
    for modality in dict.fromkeys(e.modality for *_, e in scored):
        lines = [e for *_, e in scored if e.modality == modality and e.source != SEARCH]
        if lines:
            chosen.append(min(lines, key=lambda e: 0.0 if e.start <= moment < e.end else min(abs(e.start - moment), abs(e.end - moment))))
    return chosen


def _read_first(scored: list[tuple[float, float, Evidence]]) -> list[tuple[float, float, Evidence]]:
    """What the range tools read (the best span, as a whole) beats what search saw elsewhere."""
    read = [x for x in scored if x[2].source != "cross_modal_search"]
    return read or scored


def choose_evidence(turn: Turn, limit: int = 3) -> list[Evidence]:
    q = turn.question
    scored = _read_first(_with_context(q, _turn_evidence(turn)))
    if not scored:
        return []
    asked = {"audio"} if "audio" in q.wants else q.wants - {"visual"}
    if asked and any(e.modality in asked for *_, e in scored):
        scored = [x for x in scored if x[2].modality in asked]  # "what was said": speech, not the slide
    if q.time_range is not None and q.moment is None and not q.subject and q.operation is None:
        return _listing(turn, scored)
    if q.moment is not None and not q.subject and "audio" not in q.wants:  # sounds are ranked by salience and nearness
        return _at_moment(q.moment, scored)
    read = _ranges_read(turn)
    if q.relation == "after" and "audio" not in q.wants and read:
        begin = min(a for a, _ in read)
        after = [x for x in scored if x[2].start >= begin - 0.5]
        if after:  # "what was said right after that": the first thing after, not the best match
            return [min(after, key=lambda x: x[2].start)[2]]
    if q.relation == "before" and "audio" not in q.wants and read:
        until = max(b for _, b in read)
        before = [x for x in scored if x[2].end <= until + 0.5]
        if before:  # "what was said right before that": the last thing before it
            return [max(before, key=lambda x: x[2].end)[2]]
    scored.sort(key=lambda x: (-x[0], x[2].start))
    best = scored[0][2]
    chosen = [best]
    covered = matched(q.tokens, set(tokenize(best.text)))
    for _, _, e in scored[1:]:
        if len(chosen) >= limit:
            break
        near = abs(e.start - best.start) <= 30 or any(e.key() == c.key() for c in chosen)
        adds = matched(q.tokens, set(tokenize(e.text))) - covered
        competing = q.operation is None and _has_type(best.text, q.answer_type) and _has_type(e.text, q.answer_type)
        if competing:  # "Pallets in stock: 6987" answers; "ships 1243 orders a day" beside it would only confuse
            continue
        if near and (adds or _has_type(e.text, q.answer_type) and not _has_type(best.text, q.answer_type)):
            chosen.append(e)
            covered |= adds
    return chosen


def _calculated(step: Step) -> tuple[str, str] | None:
    """``(value, expression)`` of a calculator step (a real result, or a simulated response)."""
    result = step.result or {}
    expression = str(result.get("expression") or step.args.get("expression", ""))
    if "text" in result:
        return str(result["text"]), expression
    value = result.get("response", result)
    if isinstance(value, dict):
        value = value.get("result", value.get("text"))
    return (str(value), expression) if value not in (None, {}) else None


def _sentence(group: list[Evidence]) -> str:
    e = group[0]
    quoted = " · ".join(f"“{x.text}”" if x.modality in ("ocr", "speech") else x.text for x in group)
    end = "" if quoted.rstrip("”").endswith((".", "!", "?")) else "."
    return f"{WHERE.get(e.modality, 'Found')} at {format_range(e.start, e.end)}: {quoted}{end}"


def _recalled(turn: Turn) -> list[str]:
    """Notes of this conversation that share most of the question's words."""
    found = []
    for step in turn.called(MEMORY):
        for note in (step.result or {}).get("notes") or []:
            if len(matched(turn.question.tokens, set(tokenize(note["text"])))) >= max(1, len(turn.question.tokens) / 2):
                found.append(note["text"])
    return list(dict.fromkeys(found))


def _missing(turn: Turn, cited: list[Evidence]) -> list[str]:
    """The question's words that nothing found supports, when that means the video does not answer
    it: most of its words appear nowhere in what the tools returned, or the kind of answer asked for
    (a price, a name, a time) is in none of the lines and some of its words appear nowhere. Empty
    when the question names a moment or refers back (what is there is the answer) or computes."""
    q = turn.question
    if not q.tokens or q.time_range or q.relation or q.follow_up or q.operation:
        return []
    seen: set[str] = set()
    for e in _turn_evidence(turn):
        seen |= set(tokenize(e.text))
    missing = q.tokens - matched(q.tokens, seen)
    untyped = q.answer_type is not None and cited and not any(_has_type(_beyond_question(e.text, q), q.answer_type) for e in cited)
    if len(missing) * 2 > len(q.tokens) or (untyped and missing):
        return [w for w in q.subject if set(tokenize(w)) & missing] or sorted(missing)
    return []


def _currency(evidence: list[Evidence]) -> str:
    """The currency sign all the figures were written with, to put before a computed amount."""
    signs = {found[0] if (found := re.search(r"[$€£¥]", e.text)) else "" for e in evidence}
    return signs.pop() if len(signs) == 1 else ""


def compose_answer(turn: Turn, offline_visual: bool) -> tuple[str, list[Evidence]]:
    from .rule_intents import intent_answer

    if (answered := intent_answer(turn)) is not None:
        return answered
    q = turn.question
    cited = choose_evidence(turn)
    parts = []
    if cited and (missing := _missing(turn, cited)):
        closest = _sentence([cited[0]]).rstrip(".")
        return (f"I found nothing about “{' '.join(missing)}” in this video's speech, on-screen text or sounds "
                f"(the closest match: {closest})."), cited[:1]
    calc = [found for s in turn.called(CALC) if (found := _calculated(s))]
    if calc:
        value, expression = calc[-1]
        verb = {"+": "Together that makes", "-": "The difference is", "*": "The product is", "/": "The ratio is", "mean": "The average is",
                "discount": "After the discount it costs"}.get(q.operation or "", "The result is")
        values = [e for _, e in _values(turn)]
        unit = _currency(values) if q.operation in ("+", "-", "mean", "discount") and q.answer_type == "money" else ""
        parts.append(f"{verb} {unit}{value} ({expression}).")
        cited = values or cited
    if q.moment is not None and not q.subject and cited and not any(e.start <= q.moment < e.end for e in cited):
        parts.append(f"Nothing of that kind at {format_time(q.moment)} itself; the nearest:")
    groups: dict[tuple, list[Evidence]] = {}
    for e in sorted(cited, key=lambda x: x.start):
        groups.setdefault((e.modality, round(e.start, 1), round(e.end, 1)), []).append(e)
    parts.extend(_sentence(g) for g in groups.values())
    if notes := _recalled(turn):
        parts.insert(0, "From your notes: " + "; ".join(f"“{n}”" for n in notes) + ".")
    if not parts:
        errors = [s.error for s in turn.steps if s.error]
        topic = " ".join(q.topic) or q.text
        if not turn.steps:
            offered = ", ".join(sorted(turn.tools)) or "none"
            parts.append(f"None of the tools this conversation offers can look up “{topic}” (offered: {offered}).")
        else:
            parts.append(f"I could not find anything about “{topic}” in this video's speech, on-screen text or sounds.")
        if errors:
            parts.append("Some look-ups failed: " + "; ".join(dict.fromkeys(errors)) + ".")
    if offline_visual and "visual" in q.wants:
        parts.append("Note: the offline profile cannot see what the pictures show beyond their text, so visual details are not checked.")
    return " ".join(parts), cited


class RulePlanner(BaseChatModel):
    """Offline planner (no model weights). Bind tools with ``bind_tools`` like any chat model."""

    tool_names: tuple[str, ...] = ()
    offline_visual: bool = True

    @property
    def _llm_type(self) -> str:
        return "staragent-rules"

    def bind_tools(self, tools: list[Any], **kwargs: Any) -> RulePlanner:
        names = []
        for tool in tools:
            if isinstance(tool, dict):
                names.append(tool.get("function", tool).get("name"))
            else:
                names.append(getattr(tool, "name", None))
        return self.model_copy(update={"tool_names": tuple(n for n in names if n)})

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        turn = read_turn(messages, set(self.tool_names))
        calls = next_calls(turn, set(self.tool_names))
        if calls:
            message = AIMessage(content="", tool_calls=calls)
        else:
            text, cited = compose_answer(turn, self.offline_visual)
            message = AIMessage(content=text, response_metadata={"evidence": [e.model_dump() for e in cited]})
        return ChatResult(generations=[ChatGeneration(message=message)])
