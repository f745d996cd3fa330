"""refine_video and refine_audio: the refinement step of the STARAgent pipeline. Once search has
found where to look, a vision-language model watches that range (or an audio-language model listens
to it) and answers a question about it, or describes it when no question is given."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..errors import ToolError
from ..schema import Evidence
from .base import Tool, ToolContext, ToolResult
from .common import RANGE_HELP, Span, span

MAX_QUESTION_CHARS = 1000


class Refinement(Span, ToolResult):
    question: str | None
    text: str = Field(description="what the model saw or heard, in its words")
    model: str
    frame_times: list[float] = Field(default_factory=list, description="seconds of the frames the model looked at")

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
    if question and len(question) > MAX_QUESTION_CHARS:
        raise ToolError(f"the question is longer than {MAX_QUESTION_CHARS} characters")
    return index, start, end, question


class RefineVideo(Tool):
    name = "refine_video"
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
        heard = model.refine(index.audio(start, end), question)
        return Refinement(**span(start, end), question=question, text=str(heard).strip(), model=f"audio:{model.name}")
