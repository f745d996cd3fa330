"""count_words: how often a word is said and shown in a video (an example staragent plug-in)."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from staragent.errors import ToolError
from staragent.schema import Evidence
from staragent.timecodes import format_range
from staragent.tools import Tool, ToolContext, ToolResult


class Moment(BaseModel):
    timestamp: str
    start: float
    end: float
    modality: str
    text: str


class WordCount(ToolResult):
    word: str
    timestamp: str
    spoken: int = Field(description="times the word is said")
    shown: int = Field(description="times it appears in distinct on-screen lines")
    moments: list[Moment]

    def evidence(self) -> list[Evidence]:
        return [Evidence(start=m.start, end=m.end, modality=m.modality, text=m.text, source="count_words") for m in self.moments]

    def summary(self) -> str:
        return f"{self.word!r} in {self.timestamp}: said {self.spoken}x, shown {self.shown}x"


class CountWords(Tool):
    name = "count_words"
    description = (
        "Count how often a word is said and how often it is shown on screen, in the whole video or in a "
        'time range ("00:01:00-00:02:00"), with the moments it occurs.'
    )

    class Args(BaseModel):
        word: str = Field(description="the word to count (case does not matter)")
        timestamp: str | None = Field(None, description="time range; omit for the whole video")

    Result = WordCount

    def run(self, ctx: ToolContext, args: Args) -> WordCount:
        word = args.word.strip()
        if not word or " " in word:
            raise ToolError("count_words counts one word; give a single word")
        index = ctx.require_index()
        start, end = ctx.time_range(args.timestamp) if args.timestamp else (0.0, index.duration)
        pattern = re.compile(rf"\b{re.escape(word)}\b", re.I)
        moments, spoken, shown = [], 0, 0
        for line in index.speech_between(start, end):
            if hits := len(pattern.findall(line.text)):
                spoken += hits
                moments.append(Moment(timestamp=format_range(line.start, line.end), start=line.start, end=line.end, modality="speech", text=line.text))
        for line in index.ocr_between(start, end):  # each line once, with the span it stayed on screen
            if hits := len(pattern.findall(line.text)):
                shown += hits
                lo, hi = max(start, line.start), min(end, line.end)
                moments.append(Moment(timestamp=format_range(lo, hi), start=lo, end=hi, modality="ocr", text=line.text))
        moments.sort(key=lambda m: m.start)
        return WordCount(word=word, timestamp=format_range(start, end), spoken=spoken, shown=shown, moments=moments)
