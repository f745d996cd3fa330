"""Evidence first: the distinct facts of a video's index, in the order they are asked about.

A fact is one thing the index holds at one moment: a line said, a text shown, a named sound, a caption.
Each becomes at most one question, so a small writer model cannot ask the same thing three times: it is
never shown the same evidence twice. Facts that say nearly the same as an earlier one (a title card
that stays up for a minute, a repeated line) are kept once.

The order spreads questions over the kinds of evidence (and so over the tools that read them) and over
the whole video: the kinds take turns, and each next fact of a kind is the one farthest in time from all
those already taken. A fact that cannot make a good sample is replaced by the
next one in this order (see :mod:`.drafting`). No model is called here.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..bench import text as tx
from .describe import QUIET_LABELS, Description, Span

# The tool that reads each kind of evidence back from the video (an agentic sample's own tool).
TOOL_OF_MODALITY = {"speech": "transcribe_speech", "screen": "extract_scene_text", "sound": "detect_audio_events", "caption": "detect_activities"}
# The sample's modalities in the benchmark's terms.
BENCH_MODALITY = {"speech": "speech", "screen": "visual", "sound": "audio", "caption": "visual"}
# How the writer is told what kind of fact it has.
MODALITY_WORDS = {"speech": "a line said", "screen": "a text shown on screen", "sound": "a sound heard", "caption": "what the picture shows"}
SAME_FACT_F1 = 0.8  # content-word overlap above which two facts say the same thing
MIN_WORDS = 2  # a fact with fewer content words ("okay", "thanks") gives nothing to ask


class Fact(BaseModel):
    """One piece of evidence: what kind, where, and its text as the index holds it."""

    id: int
    span: int
    start: float
    end: float
    modality: str  # speech | screen | sound | caption
    text: str

    @property
    def tool(self) -> str:
        return TOOL_OF_MODALITY[self.modality]

    @property
    def has_numbers(self) -> bool:
        return bool(tx.numbers(self.text, words=False))

    def middle(self) -> float:
        return (self.start + self.end) / 2

    def as_span(self) -> Span:
        """The fact alone, as a span of the description (for the prompt and the checks)."""
        field = {"speech": "speech", "screen": "screen", "sound": "sounds", "caption": "caption"}[self.modality]
        value = [self.text] if field == "screen" else self.text
        return Span(id=self.span, start=self.start, end=self.end, **{field: value})


def _named_sounds(sounds: str) -> str:
    """The sounds of a span without the tags that only say someone speaks or nothing sounds (the line
    said is a fact of its own; a silence has nothing to ask)."""
    return "; ".join(p.strip() for p in sounds.split(";") if p.strip() and p.strip().lower() not in QUIET_LABELS)


def _candidates(span: Span) -> list[tuple[str, str]]:
    found = [("speech", span.speech)] if span.speech else []
    found += [("screen", line) for line in span.screen]
    if sounds := _named_sounds(span.sounds):
        found.append(("sound", sounds))
    if span.caption:
        found.append(("caption", span.caption))
    return found


def facts_of(desc: Description) -> list[Fact]:
    """Every distinct fact of the description, in time order."""
    facts: list[Fact] = []
    seen: list[str] = []
    for span in desc.spans:
        for modality, text in _candidates(span):
            words = " ".join(tx.content_words(text))
            if modality != "sound" and len(words.split()) < MIN_WORDS:
                continue
            if any(words == other or tx.token_f1(words, other) >= SAME_FACT_F1 for other in seen):
                continue
            seen.append(words)
            facts.append(Fact(id=len(facts), span=span.id, start=span.start, end=span.end, modality=modality, text=text.strip()))
    return facts


def spread_order(facts: list[Fact], duration: float) -> list[Fact]:
    """The facts in the order to ask about them (see the module docstring): the kinds of evidence take
    turns, the least used first, and within a kind the fact farthest in time from all those taken comes
    next (ties to the earlier one)."""
    remaining = list(facts)
    gap = {f.id: max(duration, f.end) for f in remaining}  # no fact taken yet: all equally far
    uses: dict[str, int] = {}
    order: list[Fact] = []
    while remaining:
        best = max(remaining, key=lambda f: (-uses.get(f.modality, 0), gap[f.id], -f.start))
        remaining.remove(best)
        order.append(best)
        uses[best.modality] = uses.get(best.modality, 0) + 1
        for f in remaining:
            gap[f.id] = min(gap[f.id], abs(f.middle() - best.middle()))
    return order
