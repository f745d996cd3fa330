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

from ..index.text import tokenize
from ..schema import Evidence
from ..timecodes import clock_range, format_range, parse_time
from .question import Question, analyse

SEARCH, SPEECH, TEXT, AUDIO, CALC = "cross_modal_search", "transcribe_speech", "extract_scene_text", "detect_audio_events", "calculator"
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

    def called(self, name: str) -> list[Step]:
        return [s for s in self.steps if s.name == name]


def _call(name: str, **args) -> dict:
    return {"name": name, "args": args, "id": f"call_{next(_counter)}", "type": "tool_call"}


def read_turn(messages: list[BaseMessage]) -> Turn:
    """The current question, what was called for it so far, and what earlier turns said."""
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if not humans:
        raise ValueError("the conversation has no question")
    last = humans[-1]
    previous_q, previous_answer = None, None
    if len(humans) > 1:
        previous_q = analyse(str(messages[humans[-2]].content))
        earlier = [m for m in messages[humans[-2] : last] if isinstance(m, AIMessage) and not m.tool_calls and m.content]
        previous_answer = str(earlier[-1].content) if earlier else None
    duration = None
    for m in messages:
        if isinstance(m, SystemMessage) and (found := _LENGTH_IN_PROMPT.search(str(m.content))):
            duration = parse_time(found[1])
    turn = Turn(analyse(str(messages[last].content), previous_q), duration=duration, previous_answer=previous_answer)
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
                        result=artifact.get("result"),
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
    if q.operation and len(q.operands) >= 2:
        return [_call(SEARCH, query=operand, k=3) for operand in q.operands]
    return [_call(SEARCH, query=q.query, k=5)]


def _top_hits(turn: Turn) -> list[dict]:
    hits = []
    for step in turn.called(SEARCH):
        results = (step.result or {}).get("results") or []
        if results:
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
            span = _shift((hit["start"], hit["end"]), q.relation, turn.duration)
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
    for e in _turn_evidence(turn):
        if exclude and e.key() in exclude:
            continue
        numbers = _numbers(e.text)
        if not numbers:
            continue
        toks = set(tokenize(e.text))
        score = len(wanted & toks) / max(1, len(wanted))
        if q.answer_type == "money" and _MONEY.search(e.text):
            score += 0.5
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
    return len(wanted & toks) / max(1, len(wanted))


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


_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "both": 2}


def listed_values(turn: Turn) -> list[tuple[float, Evidence]]:
    """For "the total of the two prices": every relevant number of the asked kind, in time order."""
    q = turn.question
    wanted = q.tokens
    found: dict[float, Evidence] = {}
    for e in sorted(_turn_evidence(turn), key=lambda x: x.start):
        if not wanted & set(tokenize(e.text)):
            continue
        if q.answer_type == "money" and not _MONEY.search(e.text):
            continue
        for _, value in _numbers(e.text)[:1]:
            found.setdefault(value, e)
    count = next((n for word, n in _COUNT_WORDS.items() if re.search(rf"\b{word}\b", q.text.lower())), 5)
    return list(found.items())[:count]


def arithmetic(turn: Turn) -> str | None:
    q = turn.question
    values = [v for v, _ in (operand_values(turn) if q.operands else listed_values(turn))]
    if len(values) < 2:
        return None
    text = [f"{v:g}" for v in values]
    if q.operation == "mean":
        return f"mean({', '.join(text)})"
    if q.operation == "-":
        return f"abs({text[0]} - {text[1]})"
    return f" {q.operation} ".join(text)


# ------------------------------------------------------------------ answering


def _turn_evidence(turn: Turn) -> list[Evidence]:
    seen, out = set(), []
    for step in turn.steps:
        for e in step.evidence:
            if e.key() not in seen:
                seen.add(e.key())
                out.append(e)
    return out


def _has_type(text: str, answer_type: str | None) -> bool:
    if answer_type == "money":
        return bool(_MONEY.search(text))
    if answer_type in ("number", "percent"):
        return bool(_NUMBER.search(text)) or bool(set(text.lower().split()) & {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"})
    if answer_type == "time":
        return bool(_TIME.search(text))
    if answer_type == "date":
        return bool(_YEAR.search(text))
    if answer_type == "person":
        return bool(_NAME.search(text))
    if answer_type == "place":
        return bool(_NAME.search(text) or _PROPER.search(text))
    return False


def _beyond_question(text: str, wanted: set[str]) -> str:
    """``text`` without the words the question already used: what the line adds."""
    return " ".join(w for w in text.split() if not (set(tokenize(w)) & wanted))


def _score(q: Question, e: Evidence) -> tuple[float, float]:
    wanted = q.tokens
    toks = set(tokenize(e.text))
    share = len(wanted & toks) / max(1, len(wanted))
    news = _beyond_question(e.text, wanted)
    if (q.time_range or q.relation) and e.source != "cross_modal_search" and (not q.wants or e.modality in q.wants):
        share = max(share, 0.5)  # the question named the moment: what is there is the answer
    score = share + (0.5 if _has_type(news, q.answer_type) else 0.0) + (0.15 if e.modality in q.wants else 0.0)
    if not tokenize(news):
        score -= 0.4  # it only repeats the question (a title, a heading)
    if e.modality == "audio" and "audio" in q.wants:
        share = max(share, 0.5)
        score += 0.5
    return score, share


def _with_context(q: Question, evidence: list[Evidence]) -> list[tuple[float, float, Evidence]]:
    """Score every line; a line shown together with a matching line (the name under a slide's
    title) borrows part of that line's match, since it is often the answer."""
    scores = {e.key(): _score(q, e) for e in evidence}
    out = []
    for e in evidence:
        score, share = scores[e.key()]
        if share == 0 and e.modality == "ocr":
            borrowed = max(
                (scores[o.key()][1] for o in evidence if o.modality == "ocr" and o.start < e.end and o.end > e.start and o is not e),
                default=0.0,
            )
            share = 0.6 * borrowed
            score += share
        if share > 0:
            out.append((score, share, e))
    return out


def choose_evidence(turn: Turn, limit: int = 3) -> list[Evidence]:
    q = turn.question
    scored = _with_context(q, _turn_evidence(turn))
    if not scored:
        return []
    if q.relation and any(e.source != "cross_modal_search" for *_, e in scored):
        # the answer lies in the shifted range, not in the span that anchored it
        scored = [x for x in scored if x[2].source != "cross_modal_search"]
    scored.sort(key=lambda x: (-x[0], x[2].start))
    best = scored[0][2]
    chosen = [best]
    covered = set(tokenize(best.text)) & q.tokens
    for _, _, e in scored[1:]:
        if len(chosen) >= limit:
            break
        near = abs(e.start - best.start) <= 30 or any(e.key() == c.key() for c in chosen)
        adds = (set(tokenize(e.text)) & q.tokens) - covered
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


def compose_answer(turn: Turn, offline_visual: bool) -> tuple[str, list[Evidence]]:
    from .rule_intents import intent_answer

    if (answered := intent_answer(turn)) is not None:
        return answered
    q = turn.question
    cited = choose_evidence(turn)
    parts = []
    calc = [found for s in turn.called(CALC) if (found := _calculated(s))]
    if calc:
        value, expression = calc[-1]
        verb = {"+": "Together that makes", "-": "The difference is", "*": "The product is", "/": "The ratio is", "mean": "The average is"}.get(q.operation or "", "The result is")
        parts.append(f"{verb} {value} ({expression}).")
        cited = [e for _, e in (operand_values(turn) if q.operands else listed_values(turn))] or cited
    groups: dict[tuple, list[Evidence]] = {}
    for e in sorted(cited, key=lambda x: x.start):
        groups.setdefault((e.modality, round(e.start, 1), round(e.end, 1)), []).append(e)
    parts.extend(_sentence(g) for g in groups.values())
    if not parts:
        errors = [s.error for s in turn.steps if s.error]
        topic = " ".join(q.topic) or q.text
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
        turn = read_turn(messages)
        calls = next_calls(turn, set(self.tool_names))
        if calls:
            message = AIMessage(content="", tool_calls=calls)
        else:
            text, cited = compose_answer(turn, self.offline_visual)
            message = AIMessage(content=text, response_metadata={"evidence": [e.model_dump() for e in cited]})
        return ChatResult(generations=[ChatGeneration(message=message)])
