"""A Session is everything one conversation about one video needs: settings, the video's index,
the tools offered, the context they run in, and the planner."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
    small_model: bool = False
    """plan as a small model needs: a short prompt, brief schemas, tools chosen per question"""
    checks_answers: bool = False
    """hold the planner's answers to the checks of ``agent.grounding`` (language-model planners)"""
    _summary_ask: Any = field(default=None, init=False, repr=False)

    def asks_summary(self, question: str) -> bool:
        """Whether ``question`` asks for an overview: the fitted model of ``qa.operation`` over this
        video's words, embedded by the session's own e5 when it has one loaded."""
        if self._summary_ask is None:
            import numpy as np

            from ..qa.operation import SummaryAsk, video_vocabulary

            encoders = self.tool_ctx.extras.get("query_encoders") or {}
            encode = next((f for m, f in encoders.items() if m != "visual"), None)
            embed = (lambda texts: np.stack([encode(t) for t in texts])) if encode else None
            self._summary_ask = SummaryAsk(video_vocabulary(self.index) if self.index is not None else (), embed=embed)
        return self._summary_ask(question)

    @property
    def index(self):
        return self.tool_ctx.index

    def video_facts(self) -> dict:
        """What the graph keeps about the video for planners that read it: its length, and its file's
        name (often the title: "harbour_lights_trailer.mp4")."""
        if self.index is None:
            return {}
        path = str(self.index.manifest.video.get("path") or "")
        return {"duration": self.index.duration, **({"name": Path(path).name} if path else {})}

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
        elif index.pictures:
            parts.append("Keyframes were labelled by a coarse ImageNet object classifier and faces were counted; "
                         "nothing sees colours, clothing or actions.")
        else:
            parts.append("Nothing here understands the pictures themselves beyond their text.")
        if index.stage_info("audio_tags").get("backend", "none") != "none":
            parts.append("Sounds were named by an audio tagger (AudioSet labels with times).")
        if set(self.tool_ctx.extras.get("query_encoders", {})) - {"visual"}:
            parts.append("Speech, on-screen text and sound labels can be searched by meaning as well as by words.")
        if index.stage_info("captions").get("captions"):
            parts.append("Scenes were captioned by a vision-language model.")
        return " ".join(parts)

    def system_prompt(self, over_budget: bool = False, offered: list[str] | None = None) -> str:
        """The planner's instructions; ``offered``: the tools offered in this round (default: all)."""
        index = self.index
        names = sorted(self.tools if offered is None else offered)
        return render(
            "agent_system_small" if self.small_model else "agent_system",
            video_name=Path(index.video_path).name if index else "(none)",
            duration=format_time(index.duration) if index else "0:00",
            capabilities=self.capabilities(),
            max_steps=self.settings.max_steps,
            over_budget=over_budget,
            tool_names=names,
        )

    def tool_specs(self, names: list[str] | None = None) -> list[dict]:
        """The schemas of ``names`` (default: every tool), brief ones for a small model."""
        tools = self.tools.values() if names is None else [self.tools[n] for n in names if n in self.tools]
        return [tool.brief_schema() if self.small_model else tool.schema() for tool in tools]


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
    registry = ToolRegistry.discover(settings=settings)
    selected = registry.select(tools if tools is not None else settings.tools, settings, pool)
    if index is None and not include_video_tools:
        selected = [t for t in selected if not t.needs_video]
    if chat_model is None:
        options = {}
        if settings.planner_backend == "rules":
            options["sight"] = "embeddings" if "visual" in encoders else "labels" if index is not None and index.pictures else "none"
        chat_model = make_chat_model(settings, pool=pool, **options)
    from .planners.rules import RulePlanner

    rules = isinstance(chat_model, RulePlanner)
    small = settings.planner.small_model
    if small is None:
        small = not rules and is_small_model(getattr(chat_model, "model_name", None))
    return Session(
        settings=settings, tools={t.name: t for t in selected}, tool_ctx=tool_ctx, chat_model=chat_model, small_model=small, checks_answers=not rules
    )


_SIZE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*([bm])(?![a-z])", re.I)


def is_small_model(name: str | None) -> bool:
    """Whether a model's name gives it at most 3 billion parameters ("qwen2.5-coder-1.5b-instruct",
    "SmolLM2-135M"); a name without a size is taken for a large model."""
    sizes = [float(n) * (1 if unit.lower() == "b" else 1e-3) for n, unit in _SIZE.findall(str(name or ""))]
    return bool(sizes) and max(sizes) <= 3


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
    """Query encoders for the index's dense stores, each only when the model that embedded the
    store is the one the settings name (another model's vectors are not comparable): SigLIP's text
    tower for ``visual``, the text embedder (e5) for the text modalities. Models load on the first
    search that needs them, not here."""
    return {**_visual_encoder(index, settings, pool), **_text_encoders(index, settings, pool)}


def _visual_encoder(index, settings: Settings, pool) -> dict:
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


def _text_encoders(index, settings: Settings, pool) -> dict:
    import functools
    import logging

    from ..index.passages import DENSE_MODALITIES
    from ..models.specs import chosen_backend, revision

    stored = [m for m in index.vector_modalities() if m in DENSE_MODALITIES]
    if not stored:
        return {}
    meta = index.vectors(stored[0]).meta
    backend = chosen_backend(settings, "text_embedder")
    if backend != meta.get("backend") or revision(settings, "text_embedder") != meta.get("revision"):
        logging.getLogger("staragent.agent").warning(
            "dense text search is off (BM25 only): the index was embedded with %s, and these settings use %s", meta.get("model"), backend
        )
        return {}

    @functools.lru_cache(maxsize=128)  # one query is searched in several modalities
    def encode(text: str):
        return pool.get("text_embedder").embed_queries([text])[0]

    return dict.fromkeys(stored, encode)
