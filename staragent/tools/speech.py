"""transcribe_speech: what is said in a time range.

The index already holds a transcript (subtitles, or the preprocessing recogniser, Whisper small in
the local profile). When the profile has a refinement recogniser (``asr_refine``, Whisper
large-v3), the requested range is listened to again with it, as the paper's refinement step does:
better words, and speech the first pass missed. Subtitles written by people are kept unless they
are in another language than the one asked for. Ranges longer than ``models.asr_refine_max_seconds``
and profiles without the model show the index transcript."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..languages import known_language, language_name, parse_language
from ..models.asr import shift_lines
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
    source: str = Field(description="where the words come from: subtitles, or the speech recogniser that produced them")
    note: str | None = None
    audio_track: bool = Field(True, description="false when the video has no audio track: its words, if any, are subtitles")

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
        notes = []
        recorded = known_language(x.language for x in lines)
        other_language = bool(lines and wanted and recorded and recorded != wanted)
        keep_subtitles = source.startswith("subtitle") and lines and not other_language
        refiner = ctx.optional_expert("asr_refine") if index.has_audio and not keep_subtitles else None
        limit = ctx.settings.models.asr_refine_max_seconds
        if refiner is not None and end - start > limit:
            notes.append(f"the range is longer than {limit:.0f} s, so the index transcript is shown; ask about a shorter range to have {refiner.name} listen again")
            refiner = None
        if refiner is not None:
            heard = shift_lines(refiner.transcribe(index.audio(start, end), None, language=wanted), start, end)
            if heard or not lines:
                lines, source = heard, refiner.name + (f" ({language_name(wanted)})" if wanted else "")
                other_language = False
            else:
                notes.append(f"{refiner.name} heard no speech here; the index transcript is shown")
        if other_language:
            notes.append(f"the speech was transcribed as {language_name(recorded)}, not {language_name(wanted)}")
        if not lines:
            notes.append("nobody speaks in this range" if index.has_audio else "the video has no audio track and no subtitles here")
        note = "; ".join(notes) or None
        out = [Line(timestamp=format_range(x.start, x.end), start=x.start, end=x.end, text=x.text) for x in lines]
        return TranscriptResult(
            timestamp=format_range(start, end), transcript=" ".join(x.text for x in lines), lines=out, source=source, note=note,
            audio_track=index.has_audio,
        )

