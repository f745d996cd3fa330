"""refine_video and refine_audio: the refinement step of the STARAgent pipeline. Once search has
found where to look, a vision-language model watches that range (or an audio-language model listens
to it) and answers a question about it, or describes it when no question is given.

An audio-language model hears a bounded clip (Qwen2-Audio 30 s, Audio Flamingo 3 600 s): a longer
range is cut into equal windows it can hear whole, each answered on its own and labelled with its
times; past ``models.audio_lm_max_windows`` windows the rest of the range is left out, and the
result's note says so."""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from ..errors import ToolError
from ..limits import MAX_REFINE_QUESTION_CHARS
from ..schema import Evidence
from ..timecodes import format_range
from .base import Tool, ToolContext, ToolResult
from .common import RANGE_HELP, Span, span


class Refinement(Span, ToolResult):
    question: str | None
    text: str = Field(description="what the model saw or heard, in its words")
    model: str
    frame_times: list[float] = Field(default_factory=list, description="seconds of the frames the model looked at")
    note: str | None = None

    def evidence(self) -> list[Evidence]:
        modality = "audio" if self.model.startswith("audio:") else "caption"
        return [Evidence(start=self.start, end=self.end, modality=modality, text=self.text, source=self.model)] if self.text else []

    def summary(self) -> str:
        return f"{self.timestamp}: {self.text[:140]}"


class RangeQuestion(BaseModel):
    timestamp: str = Field(description=RANGE_HELP)
    question: str | None = Field(None, description="what to find out about the range (omit for a description)")


def _read(ctx: ToolContext, args: RangeQuestion):
    """The index, the range in seconds and the question (None when there is none)."""
    index = ctx.require_index()
    start, end = ctx.time_range(args.timestamp)
    question = (args.question or "").strip() or None
    if question and len(question) > MAX_REFINE_QUESTION_CHARS:
        raise ToolError(f"the question is longer than {MAX_REFINE_QUESTION_CHARS} characters")
    return index, start, end, question


class RefineVideo(Tool):
    name = "refine_video"
    brief_args = ("timestamp", "question")
    description = (
        "Have a vision-language model watch a time range of the video and answer a question about what it "
        "shows (people, objects, actions, colours, layout), or describe it in detail when no question is "
        "given. Use it after search has found the range; keep ranges short (under a few minutes)."
    )
    requires = ("vlm",)
    Args = RangeQuestion
    Result = Refinement

    def run(self, ctx: ToolContext, args: RangeQuestion) -> Refinement:
        index, start, end, question = _read(ctx, args)
        vlm = ctx.expert("vlm", self.name)
        seen = vlm.refine(index.video_path, start, end, question)
        return Refinement(
            **span(start, end), question=question, text=seen.text.strip(), model=f"vision:{seen.model or vlm.name}", frame_times=list(seen.frame_times)
        )


class RefineAudio(Tool):
    name = "refine_audio"
    brief_args = ("timestamp", "question")
    description = (
        "Have an audio-language model listen to a time range and answer a question about what can be heard "
        "(speakers' tone, music, instruments, sound sources), or describe the sound when no question is given."
    )
    requires = ("audio_lm",)
    Args = RangeQuestion
    Result = Refinement

    def run(self, ctx: ToolContext, args: RangeQuestion) -> Refinement:
        index, start, end, question = _read(ctx, args)
        if not index.has_audio:
            raise ToolError("refine_audio cannot listen: the video has no audio track")
        model = ctx.expert("audio_lm", self.name)
        model_id = getattr(model, "model_id", None) or model.name
        hears = float(getattr(model, "max_seconds", 0) or 0) or end - start
        windows = listening_windows(start, end, hears, ctx.settings.models.audio_lm_max_windows)
        heard = [(a, b, str(model.refine(index.audio(a, b), question)).strip()) for a, b in windows]
        text = heard[0][2] if len(heard) == 1 else "\n".join(f"[{format_range(a, b)}] {said}" for a, b, said in heard)
        until = windows[-1][1]
        note = None
        if until < end - 1e-6:
            pieces = "one window" if len(windows) == 1 else f"{len(windows)} windows"
            note = (
                f"{model_id} hears {hears:.0f} s at a time; it listened to {format_range(start, until)} in {pieces}, "
                f"not to the rest of the range: ask about {format_range(until, end)} separately"
            )
        return Refinement(**span(start, until), question=question, text=text, model=f"audio:{model_id}", note=note)


def listening_windows(start: float, end: float, hears: float, max_windows: int) -> list[tuple[float, float]]:
    """``[start, end)`` cut into the fewest equal windows no longer than ``hears`` seconds; when
    that takes more than ``max_windows``, the first ``max_windows`` windows of ``hears`` seconds."""
    count = max(1, math.ceil((end - start) / hears - 1e-9))
    if count > max_windows:
        return [(start + i * hears, start + (i + 1) * hears) for i in range(max_windows)]
    step = (end - start) / count
    return [(start + i * step, start + (i + 1) * step) for i in range(count)]
