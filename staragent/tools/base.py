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
from ..errors import InputError, StarAgentError, ToolError
from ..schema import Evidence


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
    needs_video: ClassVar[bool] = True

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
