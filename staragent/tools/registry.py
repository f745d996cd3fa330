"""Finding tools: the built-in ones, and third-party ones registered under the ``staragent.tools``
entry-point group (``name = "package.module:ToolClass"``)."""

from __future__ import annotations

import difflib
import importlib
import logging
from collections.abc import Iterable

from ..config import Settings
from ..errors import ConfigError, ToolError
from ..limits import MAX_NAME_CHARS, quoted
from .base import Tool

log = logging.getLogger("staragent.tools")
ENTRY_POINT_GROUP = "staragent.tools"

# The 16 tools of STARBench's agentic tasks (Table 7 of the paper), then the refinement tools.
BUILTIN_TOOLS = (
    "staragent.tools.speech:TranscribeSpeech",
    "staragent.tools.scene_text:ExtractSceneText",
    "staragent.tools.detection:CountObjects",
    "staragent.tools.detection:ObjectDetection",
    "staragent.tools.math_exp:ExtractMathExp",
    "staragent.tools.calculator:Calculator",
    "staragent.tools.web:WebSearch",
    "staragent.tools.audio_events:DetectAudioEvents",
    "staragent.tools.code:ExecuteCode",
    "staragent.tools.activities:DetectActivities",
    "staragent.tools.summary:SummarizeSegment",
    "staragent.tools.faces:DetectFaces",
    "staragent.tools.search:CrossModalSearch",
    "staragent.tools.reading:FindAnswer",
    "staragent.tools.memory:MemoryTool",
    "staragent.tools.translation:TranslateSpeech",
    "staragent.tools.translation:TranslateText",
    "staragent.tools.refine:RefineVideo",
    "staragent.tools.refine:RefineAudio",
)


def _load(target: str) -> type[Tool]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _plugin_targets() -> Iterable[tuple[str, object]]:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        yield ep.name, ep


def _class_path(tool: Tool) -> str:
    return f"{type(tool).__module__}.{type(tool).__qualname__}"


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()):
        self._tools: dict[str, Tool] = {}
        self.origins: dict[str, str] = {}
        for tool in tools:
            self.add(tool)

    @classmethod
    def discover(cls, plugins: bool = True, settings: Settings | None = None) -> ToolRegistry:
        """The built-in tools, then the plug-ins in entry-point order, then (given ``settings``)
        the tools of the MCP servers in ``toolset.mcp_servers``. A plug-in never replaces a tool
        already there: a clash is skipped with a warning naming both."""
        registry = cls()
        for target in BUILTIN_TOOLS:
            registry.add(_load(target)(), origin="built-in")
        if plugins:
            for name, ep in _plugin_targets():
                try:
                    tool_cls = ep.load()
                    registry.add(tool_cls(), origin=f"plugin {ep.value}")
                except Exception as exc:  # a broken plug-in must not take the agent down
                    log.warning("skipping plug-in tool %r: %s", name, exc)
            if settings is not None and settings.toolset.mcp_servers:
                from .mcp_servers import mcp_tools

                for origin, tool in mcp_tools(settings):
                    try:
                        registry.add(tool, origin=origin)
                    except ToolError as exc:
                        log.warning("skipping MCP tool %r: %s", tool.name, exc)
        return registry

    def add(self, tool: Tool, origin: str = "custom") -> None:
        for attr in ("name", "description", "Args", "Result"):
            if not hasattr(tool, attr):
                raise ToolError(f"{type(tool).__name__} is not a tool: it lacks {attr!r}")
        if tool.name in self._tools:
            kept = self._tools[tool.name]
            raise ToolError(
                f"{origin} ({_class_path(tool)}) is also called {tool.name!r}; the {self.origins[tool.name]} tool "
                f"({_class_path(kept)}) keeps that name; rename one of them"
            )
        self._tools[tool.name] = tool
        self.origins[tool.name] = origin

    def names(self) -> list[str]:
        return sorted(self._tools)

    def __contains__(self, name: str) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            close = difflib.get_close_matches(name, self.names(), n=1) if len(name) <= MAX_NAME_CHARS else []
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            available = ", ".join(self.names())
            raise ToolError(f"no tool named {quoted(name)}{hint}; available: {available}") from None

    def select(self, names: Iterable[str] | None, settings: Settings, pool=None) -> list[Tool]:
        """The tools to offer the planner.

        Without ``names``: every tool that is not switched off and whose models are here (with
        ``toolset.offer = "all"``, also those whose models are missing; a call then answers which
        model it needs). With ``names``: exactly those. A named tool that is switched off is a
        ``ConfigError``; one whose model is missing is kept, with a warning, so that its calls
        answer which model it needs.
        """
        if names:
            chosen = [self.get(n) for n in dict.fromkeys(names)]
            for tool in chosen:
                if why := tool.unavailable_reason(settings):
                    raise ConfigError(f"the tool {tool.name} was asked for but is switched off here: {why}; turn it on or leave it out")
                if why := tool.missing_models(settings, pool):
                    log.warning("%s was asked for but cannot work here (its calls will say so): %s", tool.name, why)
            return chosen
        offered = [self._tools[n] for n in self.names() if self._tools[n].unavailable_reason(settings) is None]
        if settings.toolset.offer == "all":
            return offered
        return [t for t in offered if t.missing_models(settings, pool) is None]
