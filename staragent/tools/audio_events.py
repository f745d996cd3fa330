"""detect_audio_events: what can be heard in a time range besides (and including) speech."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..schema import Evidence
from ..timecodes import format_range
from .base import Tool, ToolContext, ToolResult
from .common import TimeRangeArg

OFFLINE_LIMIT = "acoustic analysis tells speech, tones, noise, sudden loud sounds and silence apart, but cannot name what made a sound"


class Event(BaseModel):
    timestamp: str
    start: float
    end: float
    label: str
    detail: str = ""
    confidence: float | None = Field(None, description="the tagger's confidence for a named sound (0-1)")
    source: str = Field("acoustics", description="acoustics (loudness and spectrum statistics) or the audio tagger that named it")


class AudioEventsResult(ToolResult):
    timestamp: str
    description: str
    events: list[Event]
    loudness_db: float | None = None
    tags: list[str] = Field(default_factory=list)
    audio_track: bool = Field(True, description="false when the video has no audio track, so nothing could be heard")

    def evidence(self) -> list[Evidence]:
        return [
            Evidence(start=e.start, end=e.end, modality="audio", text=f"{e.label}: {e.detail}" if e.detail else e.label,
                     score=e.confidence, source="detect_audio_events")
            for e in self.events
            if e.label not in SPEECH_LABELS
        ]

    def summary(self) -> str:
        return f"{self.timestamp}: {self.description[:140]}"


# the acoustic label, and the AudioSet labels of talking: told as "speech", not as sounds
SPEECH_LABELS = {"speech", "Speech", "Child speech, kid speaking", "Conversation", "Narration, monologue", "Babbling", "Speech synthesizer"}


def _describe(events: list[Event], named: list[Event]) -> str:
    """Named sounds first (most confident first), then what the acoustic statistics found."""
    parts = [f"{e.label} ({e.timestamp}, confidence {e.confidence:.2f})" for e in sorted(named, key=lambda e: -(e.confidence or 0))
             if e.label not in SPEECH_LABELS]
    parts += [f"{e.detail or e.label} ({e.timestamp})" for e in events if e.label != "speech"]
    if any(e.label in SPEECH_LABELS for e in [*events, *named]):
        parts.insert(0, "speech")
    return "; ".join(parts) if parts else "nothing audible"


class DetectAudioEvents(Tool):
    name = "detect_audio_events"
    description = (
        "List the sounds in a time range, each with its times: what made them as AudioSet labels with a confidence "
        "(music, applause, dog, church bell, ...; when an audio tagger ran), and speech, tones or beeps, noise, sudden "
        'loud sounds and silence. timestamp: a range such as "00:12:00-00:12:30".'
    )

    class Args(BaseModel):
        timestamp: TimeRangeArg

    Result = AudioEventsResult

    def run(self, ctx: ToolContext, args: Args) -> AudioEventsResult:
        from ..models.audio import summarize

        index = ctx.require_index()
        start, end = ctx.time_range(args.timestamp)
        if not index.has_audio:
            return AudioEventsResult(timestamp=format_range(start, end), description="the video has no audio track", events=[], audio_track=False)
        raw = index.events_between(start, end)

        def clipped(e, **extra) -> Event:
            a, b = max(start, e.start), min(end, e.end)
            return Event(timestamp=format_range(a, b), start=a, end=b, label=e.label, **extra)

        events = [clipped(e, detail=e.detail) for e in raw]
        tagger = index.stage_info("audio_tags").get("backend", "none")
        named = [clipped(e, confidence=e.score, source=tagger) for e in index.sounds_between(start, end)]
        tags = list(dict.fromkeys(e.label for e in sorted(named, key=lambda e: -(e.confidence or 0))))
        summary = summarize(index.acoustic_frames, raw, start, end)
        description = _describe(events, named)
        if tagger == "none":
            description += f". Note: {OFFLINE_LIMIT}."
        merged = sorted([*named, *events], key=lambda e: (e.start, e.source == "acoustics"))
        return AudioEventsResult(timestamp=format_range(start, end), description=description, events=merged, loudness_db=summary.loudness_db, tags=tags)
