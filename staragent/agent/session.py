"""A Session is everything one conversation about one video needs: settings, the video's index,
the tools offered, the context they run in, and the planner."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Settings
from ..prompts import render
from ..timecodes import format_time
from ..tools import Tool, ToolContext


@dataclass
class Session:
    settings: Settings
    tools: dict[str, Tool]
    tool_ctx: ToolContext
    chat_model: Any

    @property
    def index(self):
        return self.tool_ctx.index

    def capabilities(self) -> str:
        index = self.index
        if index is None:
            return "No video is loaded."
        speech = index.stage_info("speech").get("source", "none")
        ocr = index.stage_info("ocr").get("backend", "none")
        parts = [f"Speech comes from {speech}.", f"On-screen text was read with {ocr}."]
        if not index.has_audio:
            parts.append("The video has no audio track.")
        if "visual" in self.tool_ctx.extras.get("query_encoders", {}):
            parts.append("Keyframes are embedded, so pictures can be searched by description.")
        else:
            parts.append("Nothing here understands the pictures themselves beyond their text.")
        if index.stage_info("audio_tags").get("windows"):
            parts.append("Sounds were labelled by an audio tagger.")
        if index.stage_info("captions").get("captions"):
            parts.append("Scenes were captioned by a vision-language model.")
        return " ".join(parts)

    def system_prompt(self, over_budget: bool = False) -> str:
        index = self.index
        return render(
            "agent_system",
            video_name=Path(index.video_path).name if index else "(none)",
            duration=format_time(index.duration) if index else "0:00",
            capabilities=self.capabilities(),
            max_steps=self.settings.max_steps,
            over_budget=over_budget,
            tool_names=sorted(self.tools),
        )

    def tool_specs(self) -> list[dict]:
        return [tool.schema() for tool in self.tools.values()]


def open_session(
    video: str | Path | None,
    settings: Settings,
    *,
    pool=None,
    chat_model=None,
    tools: list[str] | None = None,
    report=None,
    include_video_tools: bool = False,
) -> Session:
    """Index the video if needed and assemble the tools, their context and the planner. Without a
    video the tools that need one are left out, unless ``include_video_tools`` (for callers that
    replace the tools, such as the benchmark's simulated tools)."""
    from ..tools import ToolRegistry
    from .planners import make_chat_model

    tool_ctx = open_tool_context(video, settings, pool=pool, report=report)
    pool, index, encoders = tool_ctx.models, tool_ctx.index, tool_ctx.extras["query_encoders"]
    registry = ToolRegistry.discover()
    selected = registry.select(tools if tools is not None else settings.tools, settings, pool)
    if index is None and not include_video_tools:
        selected = [t for t in selected if not t.needs_video]
    if chat_model is None:
        options = {}
        if settings.planner_backend == "rules":
            options["offline_visual"] = "visual" not in encoders
        chat_model = make_chat_model(settings, pool=pool, **options)
    return Session(settings=settings, tools={t.name: t for t in selected}, tool_ctx=tool_ctx, chat_model=chat_model)


def open_tool_context(video: str | Path | None, settings: Settings, *, pool=None, report=None) -> ToolContext:
    """What tools run in: the settings, the model pool, the video's index (built if needed) and the
    query encoders its dense stores need. The conversation's notes are added per turn by the graph."""
    from ..index.builder import build_index
    from ..models.pool import ModelPool

    pool = pool or ModelPool(settings)
    index = build_index(video, settings, pool, report=report) if video is not None else None
    encoders = query_encoders(index, settings, pool) if index is not None else {}
    return ToolContext(settings=settings, models=pool, index=index, extras={"query_encoders": encoders})


def query_encoders(index, settings: Settings, pool) -> dict:
    """Text encoders for the index's dense stores: SigLIP's text tower for ``visual`` when the
    keyframes were embedded by the model the settings name (another model's vectors are not
    comparable). The model loads on the first visual search, not here."""
    import logging

    from ..models.specs import chosen_backend

    if "visual" not in index.vector_modalities():
        return {}
    built_with = index.vectors("visual").meta.get("model")
    if chosen_backend(settings, "vision") == "none" or built_with != settings.models.vision_model:
        logging.getLogger("staragent.agent").warning(
            "visual search is off: the keyframes were embedded with %s, and this profile's vision model is %s",
            built_with, settings.models.vision_model if chosen_backend(settings, "vision") != "none" else "none",
        )
        return {}

    def encode(text: str):
        return pool.get("vision").embed_texts([text])[0]

    return {"visual": encode}
