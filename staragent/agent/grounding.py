"""Checks a language model's answer must pass before it reaches the user, and what the model is told
when it fails them. (The offline rule planner cites exactly what it quotes and is not checked.)

- **It rests on the video.** In a conversation about a video, an answer given in a turn without a
  single tool call must at least cite a time that earlier tool results gave; otherwise the model is
  sent back to search.
- **Its times are real.** A time it cites lies inside the video and near evidence a tool returned in
  the conversation. A time that tool results or the user wrote themselves is a quotation, not a
  citation ("Departure: 15:15" on a slide, "what happens at 9:00?"), and is left alone.

The graph gives the model ``planner.answer_retries`` chances to fix its answer. After that, a turn
that still has no tool call gets a search made for it, and times that still fail are struck out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..timecodes import TimeMention, format_time, times_in_text

SLACK_S = 5.0
"""how far (seconds) a cited time may lie from the evidence it stands for (rounding, a moment
quoted from inside a span)"""


# What an answer says when it has nothing to offer. Kept to whole phrases, so that a caveat beside a
# real answer ("the pictures themselves are not checked") does not make it a refusal.
_NOTHING_FOUND = re.compile(
    r"\b(?:i\s+)?(?:found|find|see|hear)\s+nothing\b|\bcould(?:n't| not)\s+find\b|\bdid(?:n't| not)\s+find\b|"
    r"\bnothing (?:about|on|that answers)\b|\bno (?:mention|information|answer) (?:of|about|to)\b|"
    r"\b(?:is|are|was|were)(?:n't| not) (?:mentioned|said|shown|stated)\b|\bdoes(?:n't| not) (?:say|show|mention|state)\b",
    re.I,
)


def says_nothing_found(answer: str) -> bool:
    """Whether an answer says the video holds nothing that answers the question."""
    return bool(_NOTHING_FOUND.search(answer))


@dataclass
class Verdict:
    looked: bool
    """a tool was called in this turn, or the answer cites a time the tool results gave"""
    outside: list[TimeMention] = field(default_factory=list)
    """cited times after the end of the video"""
    unsupported: list[TimeMention] = field(default_factory=list)
    """cited times inside the video that no tool result is near"""

    @property
    def ok(self) -> bool:
        return self.looked and not self.outside and not self.unsupported

    @property
    def struck(self) -> list[TimeMention]:
        return [*self.outside, *self.unsupported]


def quoted_in(mention: TimeMention, quoted: str) -> bool:
    """Whether ``quoted`` (tool results, the user's words) has ``mention`` written in it."""
    return re.search(rf"(?<![\d:.]){re.escape(mention.text)}(?![\d:])", quoted) is not None


def _near(mention: TimeMention, spans: list[tuple[float, float]]) -> bool:
    return any(mention.start <= end + SLACK_S and mention.end >= start - SLACK_S for start, end in spans)


def check_answer(answer: str, *, called_tools: bool, duration: float, evidence: list[Any], quoted: list[str]) -> Verdict:
    """Check ``answer``. ``evidence``: what tools returned in the conversation (``start``/``end``, as
    dicts or objects); ``quoted``: the texts of the tool results and of the user's messages."""
    spans = [(_get(e, "start"), _get(e, "end")) for e in evidence]
    everything = "\n".join(quoted)
    verdict = Verdict(looked=called_tools)
    for mention in times_in_text(answer):
        if quoted_in(mention, everything):
            verdict.looked = True
        elif mention.start > duration + 1 or mention.end > duration + 1:
            verdict.outside.append(mention)
        elif _near(mention, spans):
            verdict.looked = True
        else:
            verdict.unsupported.append(mention)
    return verdict


def _get(item: Any, key: str) -> float:
    return float(item[key] if isinstance(item, dict) else getattr(item, key))


def feedback(verdict: Verdict, duration: float, search_tool: str | None) -> str:
    """What the model is told about an answer that failed: each problem, and what to do."""
    parts = []
    if not verdict.looked:
        how = f"call {search_tool} with the key words of the question" if search_tool else "call a tool that reads the video"
        parts.append(f"You answered without looking at the video. First {how}, then answer from what it returns.")
    if verdict.outside:
        times = ", ".join(m.text for m in verdict.outside)
        parts.append(f"The video is {format_time(duration)} long, so {times} is not a time in it.")
    if verdict.unsupported:
        times = ", ".join(m.text for m in verdict.unsupported)
        parts.append(f"No tool result gave the time {times}.")
    if verdict.outside or verdict.unsupported:
        parts.append("Cite only the time ranges printed with the evidence you quote.")
    return " ".join(parts) + " Answer again."


def strike(answer: str, verdict: Verdict) -> str:
    """``answer`` with the times that failed the checks struck out, and a note saying so."""
    if not verdict.struck:
        return answer
    out = answer
    for mention in verdict.struck:
        out = out.replace(mention.text, "[time removed]", 1)
    return f"{out}\n(Times that no tool result supports were removed.)"


def cited_evidence(answer: str, evidence: list[Any]) -> list[Any]:
    """The gathered evidence at the times ``answer`` cites (nearest first for each time)."""
    chosen: list[Any] = []
    for mention in times_in_text(answer):
        near = [e for e in evidence if mention.start <= _get(e, "end") + 1 and mention.end >= _get(e, "start") - 1]
        chosen += [e for e in near if e not in chosen]
    return chosen

