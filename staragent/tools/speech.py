"""transcribe_speech: what is said in a time range."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..languages import known_language, language_name, parse_language
from ..schema import Evidence
from ..timecodes import format_range
from .base import Tool, ToolContext, ToolResult
from .common import RANGE_HELP


class Line(BaseModel):
    timestamp: str
    start: float
    end: float
    text: str


class TranscriptResult(ToolResult):
    timestamp: str
    transcript: str
    lines: list[Line]
    source: str = Field(description="where the words come from: subtitles or a speech recogniser")
    note: str | None = None

    def evidence(self) -> list[Evidence]:
        return [Evidence(start=x.start, end=x.end, modality="speech", text=x.text, source="transcribe_speech") for x in self.lines]

    def summary(self) -> str:
        text = self.transcript or self.note or "no speech"
        return f"{self.timestamp}: {text[:120]}"


class TranscribeSpeech(Tool):
    name = "transcribe_speech"
    description = (
        "Get the words spoken in a time range of the video, with a timestamp for each line. "
        'timestamp: a range such as "00:12:00-00:12:30" (or "12:00-12:30").'
    )

    class Args(BaseModel):
        timestamp: str = Field(description=RANGE_HELP)
        language: str | None = Field(None, description="language of the speech, e.g. 'en' or 'French' (optional)")

    Result = TranscriptResult

    def run(self, ctx: ToolContext, args: Args) -> TranscriptResult:
        index = ctx.require_index()
        start, end = ctx.time_range(args.timestamp)
        wanted = parse_language(args.language, allow_auto=True)
        lines = index.speech_between(start, end)
        source = index.stage_info("speech").get("source", "unknown")
        note = None
        recorded = known_language(x.language for x in lines)
        if lines and wanted and recorded and recorded != wanted:
            # The index heard another language: listen again with the refinement recogniser if there is one.
            whisper = ctx.optional_expert("asr_refine") if index.has_audio else None
            if whisper is not None:
                heard = whisper.transcribe(index.audio(start, end), None, language=wanted)
                lines = [x.model_copy(update={"start": start + x.start, "end": min(end, start + x.end)}) for x in heard if x.text.strip()]
                source = f"{whisper.name} ({language_name(wanted)})"
            else:
                note = f"the speech was transcribed as {language_name(recorded)}, not {language_name(wanted)}"
        if not lines:
            note = "nobody speaks in this range" if index.has_audio else "the video has no audio track and no subtitles here"
        out = [Line(timestamp=format_range(x.start, x.end), start=x.start, end=x.end, text=x.text) for x in lines]
        return TranscriptResult(
            timestamp=format_range(start, end), transcript=" ".join(x.text for x in lines), lines=out, source=source, note=note
        )

