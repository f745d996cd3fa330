"""summarize_segment: a short account of a stretch of the video (or of a given text).

With a chat model it writes the summary from what was said, shown as text, seen (captions) and heard
in the range; with only a vision-language model it asks that; offline it picks the sentences that
share most words with the rest of the range (an extractive summary) and keeps their times."""

from __future__ import annotations

import bisect
import math
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import ToolError
from ..index.text import tokenize
from ..limits import MAX_SUMMARY_TEXT_CHARS
from ..schema import Evidence
from ..timecodes import format_range, format_time
from .base import Tool, ToolContext, ToolResult
from .common import TimeRangeArg, ask_chat, span
from .screen_steps import chosen_steps, screen_steps

LENGTHS = {"short": 2, "medium": 4, "long": 8}
PART_MIN_S = 8.0
"""on-screen text that stays this long marks a part of the video (a title card over a reading, a slide)"""
MAX_PARTS = 8
"""an overview names at most this many parts (each with its title and opening)"""
STEPS_PER_SENTENCE = 2
"""a screen recording's summary tells this many steps for each sentence of the length asked (a step is a short one)"""
MIN_STEPS = 3
"""fewer steps than this are no walk-through: the summary is then the usual extractive one"""


def parts_of(spans) -> list[tuple[float, float]]:
    """The parts of a stretch, in order, as its on-screen text marks them: each run of text that stays
    on screen a while (a title and the lines shown with it), from the ``(start, end)`` of its lines."""
    held = sorted((a, b) for a, b in spans if b - a >= PART_MIN_S)
    parts: list[list[float]] = []
    for a, b in held:
        if parts and a < parts[-1][1] - 0.5:  # overlaps the part before: shown with it
            parts[-1][1] = max(parts[-1][1], b)
        else:
            parts.append([a, b])
    return [(a, b) for a, b in parts]
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“])")


class Point(BaseModel):
    timestamp: str | None
    start: float | None
    end: float | None
    modality: str
    text: str


class SummaryResult(ToolResult):
    # Table 7 names the output "summary", which is also every result's trace-line method: the field is
    # ``text`` in Python and "summary" in JSON.
    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True, validate_by_alias=True)

    timestamp: str | None
    text: str = Field(alias="summary")
    points: list[Point] = Field(default_factory=list, description="the material the summary rests on, with times")
    method: str = Field(description="llm, vlm or extractive")
    note: str | None = None

    def evidence(self) -> list[Evidence]:
        return [
            Evidence(start=p.start, end=p.end, modality=p.modality, text=p.text, source="summarize_segment")
            for p in self.points
            if p.start is not None and p.end is not None
        ]

    def summary(self) -> str:
        return f"{self.timestamp or 'text'}: {(self.text or self.note or '')[:140]}"


def gather(index, start: float, end: float) -> list[Point]:
    """What the range holds in words: speech sentences, distinct on-screen lines, captions, sounds,
    and what the coarse picture models saw."""
    points = []
    for line in index.speech_between(start, end):
        text = line.text.strip()
        offset = 0
        for sentence in _SENTENCE_END.split(text):
            if sentence.strip():
                # a long line's sentences get times in proportion to where they stand in it
                a = line.start + (line.end - line.start) * offset / max(1, len(text))
                b = line.start + (line.end - line.start) * (offset + len(sentence)) / max(1, len(text))
                points.append(Point(**span(a, b), modality="speech", text=sentence.strip()))
            offset += len(sentence) + 1
    seen = set()
    for line in index.ocr_between(start, end):
        if line.text not in seen:
            seen.add(line.text)
            points.append(Point(**span(max(start, line.start), min(end, line.end)), modality="ocr", text=line.text))
    for seg in index.segments_between(start, end):
        if seg.caption:
            points.append(Point(**span(seg.start, seg.end), modality="caption", text=seg.caption))
        if described := seg.audio.describe():
            points.append(Point(**span(seg.start, seg.end), modality="audio", text=described))
    for event in index.pictures_between(start, end):  # the coarse picture labels, where the index has them
        points.append(Point(**span(max(start, event.start), min(end, event.end)), modality="visual", text=event.text()))
    return sorted(points, key=lambda p: (p.start or 0.0, p.modality != "ocr"))


def extractive(points: list[Point], sentences: int, exact: bool = False) -> list[Point]:
    """``sentences`` points that cover the range from beginning to end: the range is cut into that
    many equal stretches, and from each the point whose words recur most across the material (its
    gist) is picked, preferring speech and on-screen text that appears there first (a new title or
    slide); in time order. Stretches with nothing in them leave their place to the others, and so
    do stretches with only sounds in them when words are said or shown elsewhere in the range.
    A range in parts (``parts_of``) is cut at its parts instead, and unless the length is ``exact``
    (a number of sentences asked for) each part gets its title and opening, or its title alone
    when the summary is to be short."""
    counts: dict[str, int] = {}
    tokens = [set(tokenize(p.text)) for p in points]
    for point, toks in zip(points, tokens):
        if point.modality == "audio":
            continue  # the sound descriptions repeat their own stock words: what recurs is what is said and shown
        for t in toks:
            counts[t] = counts.get(t, 0) + 1

    def score(i: int) -> float:
        toks = tokens[i]
        if not toks:
            return 0.0
        centrality = sum(counts.get(t, 0) for t in toks) / math.sqrt(len(toks))
        return centrality * {"speech": 1.0, "ocr": 0.9, "caption": 0.9}.get(points[i].modality, 0.4)

    timed = [i for i in range(len(points)) if points[i].start is not None and tokens[i]]
    untimed = [i for i in range(len(points)) if points[i].start is None and tokens[i]]
    chosen: list[int] = []
    if timed:
        parts = parts_of((points[i].start, points[i].end) for i in timed if points[i].modality == "ocr" and points[i].end is not None)
        bins: dict[int, list[int]] = {}
        if len(parts) >= 2:
            # the range's own parts (a title card over each reading, a slide each): each gives its title
            # and its opening in a summary of the usual length or longer, its title alone in a short one
            parts = parts[:MAX_PARTS]
            if not exact:  # a length asked in words ("short"), not a number of sentences
                sentences = max(sentences, 2 * len(parts) if sentences >= LENGTHS["medium"] else len(parts))
            starts = [a for a, _ in parts]
            for i in timed:
                bins.setdefault(max(0, bisect.bisect_right(starts, points[i].start + 0.5) - 1), []).append(i)
        else:
            # a stretch gives a title and its gist when there is text on screen: half as many stretches then
            stretches = max(1, sentences // 2) if any(points[i].modality == "ocr" for i in timed) else sentences
            lo, hi = min(points[i].start for i in timed), max(points[i].end or points[i].start for i in timed)
            width = (hi - lo) / stretches or 1.0
            for i in timed:
                bins.setdefault(min(stretches - 1, int((points[i].start - lo) / width)), []).append(i)
        worded_range = any(points[i].modality != "audio" for i in timed)
        for n, (_, members) in enumerate(sorted(bins.items())):
            # the first text that appears in the stretch (a new title or slide), and its gist in
            # words (what is said, else what is shown, else heard); the first sentence counts a little
            # more, and the range's own opening line stands for its first stretch (how it begins)
            shown = [i for i in members if points[i].modality == "ocr"]
            said = [i for i in members if points[i].modality not in ("audio", "ocr")]
            if not (said or shown) and worded_range:
                continue  # only sounds here, while words are said or shown elsewhere: the words say more
            worded = said or shown or members
            opening = [i for i in said if len(points[i].text.split()) >= 3]  # not a bare "1." read out
            begins = n == 0 or len(parts) >= 2  # a part, like the whole range, is told by how it begins
            best = min(opening) if begins and opening else max(worded, key=lambda i: score(i) * (1.2 if i == min(worded) else 1.0))
            titles_only = len(parts) >= 2 and sentences < 2 * len(parts) and shown
            chosen += [i for i in dict.fromkeys([*shown[:1], *([] if titles_only else [best])])]
    chosen = list(dict.fromkeys(chosen))[:sentences]
    spare = sorted((i for i in timed + untimed if i not in chosen), key=lambda i: -score(i))
    chosen += spare[: max(0, sentences - len(chosen))]
    return [points[i] for i in sorted(chosen, key=lambda i: (points[i].start is None, points[i].start or 0.0, i))]


class SummarizeSegment(Tool):
    name = "summarize_segment"
    brief_args = ("timestamp",)
    description = (
        "Summarise a time range of the video (what is said, shown and heard there), or a text you pass. "
        "length: 'short' (2 sentences), 'medium' (4), 'long' (8) or a number of sentences."
    )
    needs_video = False  # it can summarise a text alone

    class Args(BaseModel):
        timestamp: TimeRangeArg | None = None
        text: str | None = Field(None, description="text to summarise (instead of, or as well as, the range)")
        length: Literal["short", "medium", "long"] | int = Field("short", description="short | medium | long, or a number of sentences (1-20)")

        @model_validator(mode="after")
        def _something(self):
            if not (self.timestamp or "").strip() and not (self.text or "").strip():
                raise ValueError("give a timestamp range to summarise, or a text")
            if isinstance(self.length, int) and not 1 <= self.length <= 20:
                raise ValueError("length as a number of sentences must be between 1 and 20")
            if self.text and len(self.text) > MAX_SUMMARY_TEXT_CHARS:
                raise ValueError(f"the text is longer than {MAX_SUMMARY_TEXT_CHARS} characters")
            return self

    Result = SummaryResult

    def run(self, ctx: ToolContext, args: Args) -> SummaryResult:
        sentences = LENGTHS[args.length] if isinstance(args.length, str) else args.length
        points: list[Point] = []
        start = end = None
        if (args.timestamp or "").strip():
            start, end = ctx.time_range(args.timestamp)
            points = gather(ctx.require_index(), start, end)
        if args.text and args.text.strip():
            points += [Point(timestamp=None, start=None, end=None, modality="text", text=s.strip()) for s in _SENTENCE_END.split(args.text.strip()) if s.strip()]
        where = format_range(start, end) if start is not None else None
        if not points:
            return SummaryResult(timestamp=where, text="", method="none", note="nothing is said, written or captioned in this range")
        method = ctx.settings.toolset.summary_method
        if method in ("auto", "llm") and (chat := ctx.chat_model()) is not None:
            material = {"range": where, "material": [p.model_dump(include={"timestamp", "modality", "text"}) for p in points]}
            text = ask_chat(chat, "summarize_segment", material, sentences=sentences)
            return SummaryResult(timestamp=where, text=text, points=points, method="llm")
        if method in ("auto", "vlm") and start is not None and (vlm := ctx.optional_expert("vlm")) is not None:
            seen = vlm.refine(ctx.require_index().video_path, start, end, f"Summarise what happens in this clip in at most {sentences} sentences.")
            return SummaryResult(timestamp=where, text=seen.text.strip(), points=points, method="vlm")
        if method in ("llm", "vlm"):
            ctx.expert("chat" if method == "llm" else "vlm", self.name)  # raises: the chosen model is missing
            if start is None:
                raise ToolError("summarize_segment with the vlm method needs a timestamp range")
        if start is not None and not any(p.modality == "speech" for p in points):
            # a silent screen recording: its steps are what the screen shows changing, not its most repeated words
            steps = chosen_steps(screen_steps(ctx.require_index().ocr_between(start, end), start, end), STEPS_PER_SENTENCE * sentences)
            if len(steps) >= MIN_STEPS:
                text = " ".join(f"[{format_time(s.start)}] {s.text}." for s in steps)
                read = [Point(**span(line.start, line.end), modality="ocr", text=line.text) for s in steps for line in s.lines]
                return SummaryResult(timestamp=where, text=text, points=read, method="extractive")
        picked = extractive(points, sentences, exact=isinstance(args.length, int))
        text = " ".join((f"[{format_time(p.start)}] " if p.start is not None else "") + p.text for p in picked)
        return SummaryResult(timestamp=where, text=text, points=picked, method="extractive")
