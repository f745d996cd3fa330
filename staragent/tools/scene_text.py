"""extract_scene_text: the text visible on screen in a time range."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..languages import language_name, parse_language
from ..schema import Evidence
from ..timecodes import format_range
from .base import Tool, ToolContext, ToolResult
from .common import TimeRangeArg

EDGE_SECONDS = 0.75


class ShownText(BaseModel):
    text: str
    timestamp: str = Field(description="when the line was on screen")
    start: float
    end: float
    box: list[float] | None = Field(None, description="where on the frame: left, top, right, bottom, as fractions of its width and height")
    changes: list[list[float]] = Field(default_factory=list, description="[start, end] of each time what is beside it (a check box, a switch) changed and held")


class SceneTextResult(ToolResult):
    timestamp: str
    texts: list[str] = Field(description="distinct lines of text, in order of first appearance (top to bottom within a frame)")
    lines: list[ShownText] = Field(description="each line with the span it was on screen")
    note: str | None = None

    def evidence(self) -> list[Evidence]:
        return [Evidence(start=line.start, end=line.end, modality="ocr", text=line.text, source="extract_scene_text", changes=line.changes)
                for line in self.lines]

    def summary(self) -> str:
        return f"{self.timestamp}: " + (" | ".join(self.texts)[:120] if self.texts else (self.note or "no text"))


def _reader_languages(index) -> list[str]:
    """The languages the index's OCR was set up to read."""
    record = index.manifest.stages.get("ocr")
    params = record.params if record else {}
    if params.get("backend") == "rapidocr":
        return ["en", "zh"]  # the PP-OCR models bundled with rapidocr read Chinese and English
    return [str(code) for code in params.get("languages") or []]


class ExtractSceneText(Tool):
    name = "extract_scene_text"
    description = (
        "Read the text shown on screen (slides, captions, lower thirds, credits, signs, labels) in a time range, "
        "each line with when it appeared and left. "
        'timestamp: a range such as "00:12:00-00:12:30".'
    )

    class Args(BaseModel):
        timestamp: TimeRangeArg
        language: str | None = Field(None, description="language of the text, e.g. 'de' (optional)")

    Result = SceneTextResult

    def run(self, ctx: ToolContext, args: Args) -> SceneTextResult:
        index = ctx.require_index()
        start, end = ctx.time_range(args.timestamp)
        wanted = parse_language(args.language, allow_auto=True)
        shown = []
        for line in index.ocr_between(start, end):
            if min(end, line.end) - max(start, line.start) < min(EDGE_SECONDS, (end - start) / 2):
                continue  # on screen only for a moment at the range's edge: it belongs to the stretch before or after
            shown.append(ShownText(text=line.text, timestamp=format_range(line.start, line.end), start=line.start, end=line.end,
                                   box=[round(v, 3) for v in line.box] if line.box else None,
                                   changes=line.changes))
        texts = list(dict.fromkeys(line.text for line in shown))
        note = None if texts else "no readable text on screen in this range"
        read_as = _reader_languages(index)
        if wanted and read_as and wanted not in read_as:
            caution = f"the text was read with a reader for {', '.join(read_as)}; {language_name(wanted)} text may be misread"
            note = f"{note}; {caution}" if note else caution
        return SceneTextResult(timestamp=format_range(start, end), texts=texts, lines=shown, note=note)
