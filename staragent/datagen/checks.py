"""Automatic checks of generated samples, before any person looks at them.

Errors (the sample is left out of the dataset unless a reviewer accepts it):

- ``support``: an answer is not supported by the text of the spans it cites (plus, for agentic turns,
  what its tool calls returned): it states a number they do not hold, or too few of its content words
  come from them; or it says the question cannot be answered.
- ``timestamps``: a cited span or a tool call's time range is not inside the video, or a question or
  answer names a time past the end of the video that no cited span mentions.
- ``duplicate``: the question repeats (or nearly repeats) an earlier one.
- ``criteria``: a turn's rubric is missing, has a criterion that names nothing to look for, or does not
  total as the released scorer expects: at most 5 criteria, names used once, at least one
  high-priority criterion, each weight that of its category (5 / 3 / 1 / -5), penalties negative, so
  the released and the paper's maxima agree.
- ``tool_calls``: an expected call names no tool, or arguments its tool refuses.

Warnings (kept, and shown to the reviewer): a reference answer that does not meet its own rubric by
the offline key-fact judge, a time in an answer far from the spans it cites, a tool call whose response
could not be computed here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..bench import text as tx
from ..bench.judges.heuristic import heuristic_verdict
from ..bench.sample_records import DEFAULT_WEIGHTS, Sample
from .replies import MAX_CRITERIA, UNANSWERABLE

# Words an answer uses to talk about the video rather than its content.
_FILLER_WORDS = """speaker video says said mention mentions mentioned shown show shows showing screen slide slides talk
    presenter narrator around minute minutes second seconds time moment part clip viewer point later earlier first then
    also explain explains explained note notes appear appears appeared displayed display text reads read written
    stated states talks talking discusses discussed describe described sound heard hear hears"""
FILLER = frozenset(tx.content_words(_FILLER_WORDS))
DUPLICATE_F1 = 0.8
NEAR_SECONDS = 30.0


@dataclass
class Check:
    name: str
    level: str  # "error" | "warning"
    detail: str
    turn: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def status_of(checks: list[Check] | list[dict]) -> str:
    levels = {c["level"] if isinstance(c, dict) else c.level for c in checks}
    return "fail" if "error" in levels else "flagged" if "warning" in levels else "pass"


def support(answer: str, question: str, sources: str) -> tuple[float, list[str]]:
    """``(share of the answer's own content words found in sources, numbers the sources lack)``. Words
    the question already uses and words about the video itself do not count either way."""
    body = tx.CLOCK.sub(" ", answer)
    have = set(tx.content_words(sources))
    words = set(tx.content_words(body)) - set(tx.content_words(question)) - FILLER
    share = len(words & have) / len(words) if words else 1.0
    known = tx.numbers(sources) + tx.numbers(question)
    missing = [n for n in tx.numbers(body, words=False) if not any(abs(n - k) <= 1e-6 * max(1.0, abs(k)) for k in known)]
    return share, [f"{n:g}" for n in dict.fromkeys(missing)]


def _times_outside(text: str, duration: float, sources: str) -> list[str]:
    content = set(tx.times(sources))
    return [f"{int(t) // 60}:{int(t) % 60:02d}" for t in tx.times(text) if t > duration + 1 and t not in content]


def _cited(turn: Any) -> list[int]:
    return [int(e["segment"]) for e in (getattr(turn, "evidence", None) or []) if isinstance(e, dict) and "segment" in e]


def check_sample(sample: Sample, spans: dict[int, Any], duration: float, toolbox: Any = None, *, min_support: float = 0.5) -> list[Check]:
    """Every check of one sample (see the module docstring)."""
    checks: list[Check] = []
    earlier = ""
    tool = (sample.meta or {}).get("tool")
    for pair in sample.qa_turns():
        q, a, i = pair.question, pair.answer, pair.index
        cited = _cited(a)
        unknown = [s for s in cited + list(q.key_segments) if int(s) not in spans]
        if unknown:
            checks.append(Check("timestamps", "error", f"cites spans that are not in the video: {unknown}", i))
        sources = " ".join(spans[s].text() for s in cited if s in spans)
        responses = " ".join(tx.normalise(str(c.expected_response)) for c in a.tool_calls if c.expected_response is not None)
        evidence = f"{sources} {responses} {earlier}"
        if not cited:
            checks.append(Check("support", "error", "the answer cites no span", i))
        elif UNANSWERABLE in a.content.lower():
            checks.append(Check("support", "error", "the writer could not answer the question from the video", i))
        else:
            share, missing = support(a.content, q.content, evidence)
            if missing:
                checks.append(Check("support", "error", f"states {', '.join(missing)}, which its cited spans do not hold", i))
            if share < min_support:
                checks.append(Check("support", "error", f"only {share:.0%} of its content words come from the cited spans (needs {min_support:.0%})", i))
        for what, text in (("question", q.content), ("answer", a.content)):
            if late := _times_outside(text, duration, evidence):
                checks.append(Check("timestamps", "error", f"the {what} names {', '.join(late)}, after the video ends", i))
        near = [(spans[s].start, spans[s].end) for s in cited if s in spans]
        for t in tx.times(a.content):
            if t <= duration and near and t not in set(tx.times(evidence)) and all(t < lo - NEAR_SECONDS or t > hi + NEAR_SECONDS for lo, hi in near):
                checks.append(Check("timestamps", "warning", f"the answer names {int(t) // 60}:{int(t) % 60:02d}, far from the spans it cites", i))
        checks += _criteria_checks(a, i)
        checks += _tool_checks(a, i, toolbox)
        earlier += f" {q.content} {a.content} {sources}"
    if tool and not any(c.tool == tool for p in sample.qa_turns() for c in p.answer.tool_calls):
        checks.append(Check("tool_calls", "error", f"the sample is about {tool}, and no expected call uses it"))
    return checks


def _criteria_checks(answer: Any, turn: int) -> list[Check]:
    criteria = answer.criteria
    if not criteria:
        return [Check("criteria", "error", "the answer has no rubric", turn)]
    out = []
    names = [c.name for c in criteria]
    if len(criteria) > MAX_CRITERIA:
        out.append(Check("criteria", "error", f"{len(criteria)} criteria; at most {MAX_CRITERIA}", turn))
    if len(set(names)) < len(names):
        out.append(Check("criteria", "error", "a criterion name is used twice", turn))
    if not any(c.category == "high_priority" and not c.is_penalty for c in criteria):
        out.append(Check("criteria", "error", "no high-priority criterion", turn))
    for c in criteria:
        if not c.is_penalty and not (tx.content_words(c.description) or tx.numbers(c.description, words=False)):
            out.append(Check("criteria", "error", f"{c.name} names nothing a judge could look for ({c.description!r})", turn))
        if c.weight is not None and c.weight != DEFAULT_WEIGHTS[c.category]:
            out.append(Check("criteria", "error", f"{c.name} weighs {c.weight:g}; its category {c.category} weighs {DEFAULT_WEIGHTS[c.category]:g}", turn))
    released = sum(c.released_weight for c in criteria if c.released_weight > 0)
    paper = sum(c.points for c in criteria if not c.is_penalty)
    if released != paper or paper <= 0:
        out.append(Check("criteria", "error", f"the rubric totals {released:g} for the released scorer and {paper:g} for the paper's; they must agree and be positive", turn))
    unmet = [c.name for c in criteria if not c.is_penalty and not heuristic_verdict(c, answer.content)["criteria_met"]]
    if unmet:
        out.append(Check("criteria", "warning", f"the reference answer does not meet {', '.join(unmet)} by the key-fact judge", turn))
    return out


def _tool_checks(answer: Any, turn: int, toolbox: Any) -> list[Check]:
    out = []
    for call in answer.tool_calls:
        if toolbox is not None:
            try:
                toolbox.check(call.tool, call.parameters)
            except ValueError as exc:
                out.append(Check("tool_calls", "error", str(exc), turn))
                continue
        if call.expected_response is None:
            why = getattr(call, "note", None) or "it was not run"
            out.append(Check("tool_calls", "warning", f"the response of {call.tool} is unknown ({why})", turn))
    return out


def find_duplicates(questions: list[tuple[str, str]]) -> dict[str, str]:
    """``{key: key of the earlier question it repeats}`` over ``(key, question)`` pairs in order. A
    repeat is the same question in nearly the same content words (token F1 >= 0.8 with stop words left
    out) about the same numbers and times: "what is on screen around 0:04?" does not repeat "what is on
    screen around 0:20?", nor does "what is the name of the hotel?" repeat "what is the name of the
    scooter?" (with stop words, the two score 0.86)."""
    seen: list[tuple[str, str, list[float]]] = []
    out: dict[str, str] = {}
    for key, question in questions:
        norm = " ".join(tx.content_words(question))
        values = sorted(tx.times(question) + tx.numbers(tx.CLOCK.sub(" ", question)))
        for other_key, other_norm, other_values in seen:
            if values == other_values and (norm == other_norm or tx.token_f1(norm, other_norm) >= DUPLICATE_F1):
                out[key] = other_key
                break
        else:
            seen.append((key, norm, values))
    return out
