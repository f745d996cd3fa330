"""Expected tool calls of agentic samples, checked against the project's real tools.

A proposed call must name a registered tool and pass that tool's own ``Args`` model (the same
validation the agent's calls go through); a ``timestamp`` must lie inside the video. Then the calls of
a sample are run, in order, on the video's index: what the tool returns becomes the call's
``expected_response`` (what ``bench run --simulated-tools`` serves). A tool that cannot run here (its
model is missing, it is switched off) leaves the response unknown, and the sample is flagged for
review.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from ..errors import TimeFormatError, ToolError
from ..timecodes import read_range, to_clock

RESPONSE_CHARS = 4000  # an expected response longer than this is cut (a long transcript is not needed whole)


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip())[0].rstrip(".")


class ToolBox:
    """The registry's tools, bound to one video (``ctx``: a ToolContext with its index and model pool)."""

    def __init__(self, registry: Any, settings: Any, ctx: Any = None, duration: float | None = None):
        self.registry = registry
        self.settings = settings
        self.ctx = ctx
        self.duration = duration

    def line(self, name: str) -> str:
        """``calculator: Evaluate ... ; expression*: string`` for the prompt."""
        tool = self.registry.get(name)
        schema = tool.Args.model_json_schema()
        required = set(schema.get("required", []))
        args = []
        for arg, spec in schema.get("properties", {}).items():
            kind = spec.get("type") or "/".join(str(o.get("type")) for o in spec.get("anyOf", []) if o.get("type") != "null")
            if "enum" in spec:
                kind = "|".join(map(str, spec["enum"]))
            args.append(f"{arg}{'*' if arg in required else ''}: {kind or 'any'}")
        return f"{name}: {_first_sentence(tool.description)}; " + ", ".join(args)

    def example_arguments(self, name: str, start: float, end: float) -> str:
        """A plausible argument object for the prompt's example (required arguments only)."""
        tool = self.registry.get(name)
        schema = tool.Args.model_json_schema()
        out: dict[str, Any] = {}
        for arg in schema.get("required", []):
            if arg == "timestamp":
                out[arg] = f"{to_clock(start)}-{to_clock(end + 0.999)}"
            else:
                spec = schema["properties"][arg]
                out[arg] = [] if spec.get("type") == "array" else ("add" if "enum" in spec else "...")
        return json.dumps(out)

    def check(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments as the tool reads them (only those given); ``ValueError`` naming the problem."""
        if name not in self.registry:
            from .taxonomy import AGENTIC_TOOLS

            raise ValueError(f"there is no tool called {name!r}; use one of {', '.join(AGENTIC_TOOLS)}")
        tool = self.registry.get(name)
        try:
            parsed = tool.parse_args(arguments)
        except ToolError as exc:
            raise ValueError(str(exc)) from None
        given = parsed.model_dump(mode="json", exclude_unset=True)
        stamp = given.get("timestamp")
        if stamp is not None and self.duration:
            try:
                read_range(stamp, self.duration)
            except TimeFormatError as exc:
                raise ValueError(f"{name}: {exc}") from None
        return given

    def run_calls(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Run a sample's calls in order (one conversation's memory for all of them): per call
        ``{"response", "verified", "note"}``. A call the tool refuses raises ``ValueError``."""
        if self.ctx is None:
            return [{"response": None, "verified": False, "note": "no video to run the tool on"} for _ in calls]
        ctx = replace(self.ctx, memory=None)  # memory_tool notes belong to this sample (and calls may run side by side)
        out = []
        for name, arguments in calls:
            tool = self.registry.get(name)
            why_not = tool.cannot_run(self.settings, ctx.models)
            if why_not:
                out.append({"response": None, "verified": False, "note": f"not run here: {why_not}"})
                continue
            try:
                result = tool(ctx, arguments)
            except ToolError as exc:  # the call is wrong for this video: the writer is told why
                raise ValueError(f"calling {name} with {json.dumps(arguments)} fails: {exc}") from None
            out.append({"response": _trim(result.model_dump(mode="json")), "verified": True, "note": None})
        return out


def _trim(value: Any) -> Any:
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= RESPONSE_CHARS:
        return value
    if isinstance(value, dict):  # cut the longest fields until it fits, keeping the structure
        out = dict(value)
        for key in sorted(out, key=lambda k: -len(json.dumps(out[k], default=str))):
            if len(json.dumps(out, ensure_ascii=False, default=str)) <= RESPONSE_CHARS:
                break
            if isinstance(out[key], list):
                while out[key] and len(json.dumps(out, ensure_ascii=False, default=str)) > RESPONSE_CHARS:
                    out[key] = out[key][:-1]
            elif isinstance(out[key], str):
                out[key] = out[key][: RESPONSE_CHARS // 2] + "…"
        return out
    return text[:RESPONSE_CHARS] + "…"
