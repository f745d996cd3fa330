"""Readers turn a ranking into an ``Answer``: the extractive reader with no language model, the LLM
reader with one call to any chat endpoint.

Both cite lines by id, and both only cite lines the ranking offered: a model's ids are checked, and
where they do not hold what its answer says, the offered lines that do are cited instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..index.text import readable, tokenize
from ..prompts import render
from ..schema import Evidence, TokenUsage
from ..timecodes import format_range, format_time, times_in_text
from .answer import Answer
from .features import TYPE_LABELS, typed_values
from .lines import LinePool
from .rank import Ranking

WHERE = {"speech": "said", "ocr": "on screen", "audio": "heard", "visual": "seen", "caption": "described"}
"""how each modality's evidence is said to have been found"""
SURE = 0.75
"""confidence below which an answer says it is not sure"""


def where(e: Evidence) -> str:
    when = format_time(e.start) if e.modality == "speech" else format_range(e.start, e.end)
    return f"{WHERE.get(e.modality, e.modality)} at {when}"


def text_of(e: Evidence) -> str:
    """What a line says as people read it: on-screen text with the spaces OCR lost put back."""
    return readable(e.text) if e.modality == "ocr" else e.text


def quote(e: Evidence) -> str:
    under = f" (under “{e.labels[0]}”)" if e.labels else ""
    return f"{where(e)}: “{' '.join(text_of(e).split())}”{under}"


def _not_found(ranking: Ranking, reader: str) -> Answer:
    best = ranking.lines[:1]
    closest = f" The closest line I found, which may not answer it: {quote(best[0])}." if best else ""
    return Answer(
        text=f"I could not find this in the video: nothing said, shown or heard in it answers the question clearly.{closest}",
        citations=[e.id for e in best], evidence=best, found=False, confidence=ranking.confidence, reader=reader,
    )


def _hedge(ranking: Ranking) -> str:
    return "" if ranking.confidence >= SURE else f" (I am not sure: the best evidence is a weak match, confidence {ranking.confidence:.0%}.)"


RESTATES = 0.6
"""share of a line's words that are the question's own above which the line only names what is asked about"""


def _restates(line: Evidence, frame) -> bool:
    """Whether ``line`` mostly repeats the question's words."""
    own = set(tokenize(line.text))
    return bool(own) and len(own & set(tokenize(frame.text))) >= RESTATES * len(own)


class ExtractiveReader:
    """The value of the asked type from the best lines (a name, date, amount, place, time), else
    the best line quoted."""

    name = "extractive"

    def read(self, ranking: Ranking, pool: LinePool) -> Answer:
        if not ranking.found:
            return _not_found(ranking, self.name)
        frame = ranking.frame
        best = ranking.lines[0]
        if frame.answer_type in TYPE_LABELS:
            for line in ranking.lines[:3]:
                for source in [line, *pool.context(line)]:
                    if source.modality == "audio":
                        continue
                    values = typed_values(source.text, frame.answer_type, frame)
                    if values:
                        cited = [source] if source is line else [line, source]
                        text = f"{values[0]}: {'; '.join(quote(e) for e in cited)}.{_hedge(ranking)}"
                        return Answer(text=text, citations=[e.id for e in cited], evidence=cited, confidence=ranking.confidence, reader=self.name)
        if _restates(best, frame):
            # a line that only repeats the question's words (a product's name over its price) answers
            # nothing: the line read with it that holds a value does, else the next line ranked
            valued = [n for n in pool.context(best) if n.modality != "audio" and typed_values(n.text, "any", frame)]
            others = [e for e in ranking.lines[1:3] if not _restates(e, frame)]
            best = next(iter(valued + others), best)
        cited = [best, *[e for e in ranking.lines[1:2] if e.id != best.id and e.score is not None and best.score is not None
                          and best.score - e.score < 0.1 * abs(best.score)]]
        text = "; ".join(q[0].upper() + q[1:] for q in map(quote, cited)) + "." + _hedge(ranking)
        return Answer(text=text, citations=[e.id for e in cited], evidence=cited, confidence=ranking.confidence, reader=self.name)


@dataclass
class ChatReply:
    text: str
    tokens: TokenUsage | None = None


ChatFn = Callable[[list[dict]], "ChatReply | str"]
"""sends OpenAI-style messages, returns the reply (its text, and the tokens it cost where known)"""

_JSON = re.compile(r"\{.*\}", re.S)
NOT_IN_VIDEO = "NOT_IN_VIDEO"


CITED = 3
"""most lines an LLM answer cites"""
FIRST_READING_CHARS = 600
"""how much of another reader's answer the model is shown"""
NEIGHBOURS_OF_TOP = 3
"""the best lines whose neighbours the model also reads"""


def candidate_lines(ranking: Ranking, pool: LinePool, depth: int, leading: list[Evidence] = ()) -> list[Evidence]:
    """The lines the model reads: ``leading`` (lines another reader chose), then the best ``depth``
    ranked, the best few each followed by a neighbour that is not ranked itself, so a split name or
    a date under a place reaches the model whole."""
    seen = {e.id for e in leading}
    ranked = [e for e in ranking.lines if e.id not in seen][: max(0, depth - len(leading))]
    shown: list[Evidence] = list(leading)
    for n, line in enumerate(ranked):
        shown.append(line)
        if n < NEIGHBOURS_OF_TOP:
            shown += [e for e in pool.context(line)[:1] if e.modality != "audio" and e.id not in {x.id for x in ranked + shown}]
    return shown


def numbered(lines: list[Evidence]) -> str:
    rows = []
    for n, e in enumerate(lines, 1):
        under = f" [under: {e.labels[0]}]" if e.labels else ""
        rows.append(f"[{n}] {format_range(e.start, e.end)} {WHERE.get(e.modality, e.modality)}: {' '.join(text_of(e).split())[:300]}{under}")
    return "\n".join(rows)


_CUT_ANSWER = re.compile(r'\{\s*"answer"\s*:\s*"((?:[^"\\]|\\.)*)', re.S)
"""the answer of a reply cut off before its JSON closed (the token limit reached mid-answer)"""


def _parse_reply(reply: str) -> tuple[str, list[int]]:
    match = _JSON.search(reply or "")
    if match:
        try:
            data = json.loads(match.group(0))
            ids = [int(i) for i in data.get("ids", []) if str(i).strip().lstrip("[").rstrip("]").isdigit()]
            return str(data.get("answer", "")).strip(), ids
        except (ValueError, AttributeError, TypeError):
            pass
    if cut := _CUT_ANSWER.search(reply or ""):
        # never the JSON itself to the user: what the answer said, up to its last whole sentence
        try:
            said = json.loads(f'"{cut[1]}"')
        except ValueError:  # cut inside an escape
            said = cut[1]
        whole = re.match(r"(?s)(.*[.!?])\s", said + " ")
        return (whole[1] if whole else said).strip(), []
    return (reply or "").strip(), [int(n) for n in re.findall(r"\[(\d+)\]", reply or "")]


def _words(answer: str) -> set[str]:
    """An answer's words, the times it writes left out (their digits are no shared word)."""
    for mention in times_in_text(answer):
        answer = answer.replace(mention.text, " ")
    return set(tokenize(answer))


def supported_by(answer: str, lines: list[Evidence]) -> list[Evidence]:
    """The lines that share a word with the answer or start at a time it names, most support first."""
    words, times = _words(answer), times_in_text(answer)

    def support(e: Evidence) -> int:
        return len(words & set(tokenize(e.text))) + 2 * any(abs(m.start - e.start) <= TIME_SLACK_S for m in times)

    scored = [(support(e), e) for e in lines]
    return [e for n, e in sorted(scored, key=lambda x: -x[0]) if n > 0]


TIME_SLACK_S = 1.0
"""how near a time the answer names must be to a line's start to point at it"""


def adds_nothing(answer: str, question: str) -> bool:
    """Whether an answer only says back words of the question (a small model's echo)."""
    return not (_words(answer) - set(tokenize(question))) and not times_in_text(answer)


class LLMReader:
    """One call: the question and the ranked lines, numbered; back comes a short answer and the
    numbers of the lines used. The system prompt never changes, so a server's prompt cache keeps it."""

    name = "llm"

    def __init__(self, chat: ChatFn, depth: int = 12, leading: list[Evidence] = (), first_reading: str | None = None,
                 min_confidence: float = 0.0):
        """``leading``: lines to show before the ranking's; ``first_reading``: another reader's answer
        for the model to keep or correct (the rules', for a small model). Both belong to one question.
        ``min_confidence``: below it the model is not asked and the answer is "not found" (where
        another reader already found nothing, a weak ranking leaves a small model only guesses)."""
        self.chat = chat
        self.depth = depth
        self.leading = list(leading)
        self.first_reading = first_reading
        self.min_confidence = min_confidence

    def messages(self, ranking: Ranking, lines: list[Evidence], first_reading: str | None = None) -> list[dict]:
        frame = ranking.frame
        scope = f"\nIt points at {format_range(frame.scope.start, frame.scope.end)} of the video." if frame.scope else ""
        first = f"\n\nFirst reading: {' '.join(first_reading.split())[:FIRST_READING_CHARS]}" if first_reading else ""
        user = f"Question: {frame.text}{scope}\n\nLines from the video, best match first:\n{numbered(lines)}{first}"
        return [{"role": "system", "content": render("qa_reader")}, {"role": "user", "content": user}]

    def read(self, ranking: Ranking, pool: LinePool) -> Answer:
        if ranking.confidence < self.min_confidence:
            return _not_found(ranking, self.name)
        lines = candidate_lines(ranking, pool, self.depth, pool.own(self.leading))
        if not lines:
            return _not_found(ranking, self.name)
        reply = self.chat(self.messages(ranking, lines, self.first_reading))
        reply = reply if isinstance(reply, ChatReply) else ChatReply(str(reply))
        text, ids = _parse_reply(reply.text)
        if not text or NOT_IN_VIDEO in text.upper().replace(" ", "_"):
            return _not_found(ranking, self.name).model_copy(update={"tokens": reply.tokens})
        if adds_nothing(text, ranking.frame.text):  # an echo answers nothing: the best lines, read without the model
            return ExtractiveReader().read(ranking, pool).model_copy(update={"tokens": reply.tokens})
        cited = [lines[i - 1] for i in dict.fromkeys(ids) if 1 <= i <= len(lines)]
        if not supported_by(text, cited):
            cited = supported_by(text, lines)[:2] or cited or lines[:1]
        cited = sorted(cited[:CITED], key=lambda e: e.start)
        # the moments it rests on, in words, so a reader of the answer alone can find them
        text = f"{text.rstrip()} ({'; '.join(where(e) for e in cited)})"
        return Answer(text=text, citations=[e.id for e in cited], evidence=cited, confidence=ranking.confidence, reader=self.name, tokens=reply.tokens)
