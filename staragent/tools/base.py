"""The Tool contract.

A tool is a name, a description written for the planner, a pydantic ``Args`` model, a pydantic
``Result`` model, the expert models it ``requires``, and ``run(ctx, args) -> Result``. Tools are
thin: the work lives in ``staragent.models`` and ``staragent.index``.

    class Shout(Tool):
        name = "shout"
        description = "Repeat a text in capitals."
        class Args(BaseModel):
            text: str
        class Result(ToolResult):
            loud: str
        needs_video = False
        def run(self, ctx, args):
            return self.Result(loud=args.text.upper())
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from ..config import Settings
from ..errors import InputError, ModelUnavailable, StarAgentError, ToolError
from ..schema import Evidence

# What each expert role is, in the words an error message needs.
ROLE_WHAT = {
    "asr_refine": "Whisper large-v3 speech recognition",
    "vlm": "a vision-language model such as Qwen2.5-VL",
    "audio_lm": "an audio-language model such as Qwen2-Audio",
    "audio_tagger": "an audio tagger",
    "chat": "a chat language model",
    "detector": "an open-vocabulary object detector such as OWLv2",
    "faces": "a face detector and recogniser",
    "translator": "a translation model",
    "activity": "an action-recognition video classifier",
}


class ToolResult(BaseModel):
    """Base of every tool's result. Override ``evidence`` when the result refers to the video."""

    def evidence(self) -> list[Evidence]:
        return []

    def summary(self) -> str:
        """One line for trajectories and traces."""
        text = json.dumps(self.model_dump(mode="json"), ensure_ascii=False)
        return text if len(text) <= 160 else text[:157] + "..."


@dataclass
class ToolContext:
    """What a tool may use: settings, the model pool, the video's index, the conversation's memory."""

    settings: Settings
    models: Any = None
    index: Any = None
    memory: Any = None
    extras: dict[str, Any] = field(default_factory=dict)

    def require_index(self):
        if self.index is None:
            raise ToolError("this tool works on a video, and no video is loaded in this conversation")
        return self.index

    def expert(self, role: str, needed_by: str):
        """The expert model ``role`` from the pool, or a ``ToolError`` naming the missing model, the
        profile, and why it could not be loaded. Never a stand-in."""
        try:
            return self._pool().get(role)
        except ModelUnavailable as exc:
            what = ROLE_WHAT.get(role, "an expert model")
            raise ToolError(
                f"{needed_by} needs the '{role}' model ({what}), which is not available in the "
                f"'{self.settings.profile}' profile: {exc}"
            ) from None

    def optional_expert(self, role: str):
        """The expert model ``role`` when it can be loaded here, else None."""
        try:
            return self._pool().get(role)
        except ModelUnavailable:
            return None

    def _pool(self):
        if self.models is None:
            from ..models.pool import ModelPool

            self.models = ModelPool(self.settings)
        return self.models

    def time_range(self, text: str) -> tuple[float, float]:
        """Parse a tool's ``timestamp`` argument against the loaded video's length."""
        from ..timecodes import parse_range

        return parse_range(text, self.require_index().duration)


class Tool:
    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]
    Result: ClassVar[type[ToolResult]]
    requires: ClassVar[tuple[str, ...]] = ()
    """Expert roles the tool cannot work without (shown by ``staragent tools list``)."""
    needs_video: ClassVar[bool] = True
    cacheable: ClassVar[bool] = True
    """Whether an identical later call may be answered with this call's result (False for tools
    whose answer depends on state, such as the conversation's memory)."""

    def unavailable_reason(self, settings: Settings) -> str | None:
        """Why this tool cannot run with these settings, or None when it can."""
        return None

    def run(self, ctx: ToolContext, args: BaseModel) -> ToolResult:
        raise NotImplementedError

    def parse_args(self, raw: dict[str, Any] | None) -> BaseModel:
        try:
            return self.Args.model_validate(raw or {})
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
            )
            raise ToolError(f"bad arguments for {self.name}: {problems}") from None

    def __call__(self, ctx: ToolContext, raw_args: dict[str, Any] | None = None) -> ToolResult:
        args = self.parse_args(raw_args)
        if self.needs_video:
            ctx.require_index()
        try:
            return self.run(ctx, args)
        except StarAgentError:
            raise
        except (ValueError, KeyError) as exc:
            raise ToolError(f"{self.name} failed: {exc}") from exc

    def schema(self) -> dict[str, Any]:
        """The OpenAI-style function spec that planners see."""
        params = self.Args.model_json_schema()
        params.pop("title", None)
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": params}}


def error_message(exc: BaseException) -> str:
    if isinstance(exc, (InputError, ToolError, StarAgentError)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
