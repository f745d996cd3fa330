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
import re
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationError, model_serializer

from ..config import Settings
from ..errors import ModelUnavailable, ToolError
from ..limits import arguments_problem
from ..schema import Evidence

# Notes gathered while one tool call runs (see ``ToolContext.note``); each call has its own list.
_CALL_NOTES: ContextVar[list[str] | None] = ContextVar("staragent_tool_call_notes", default=None)


class ToolResult(BaseModel):
    """Base of every tool's result. Override ``evidence`` when the result refers to the video."""

    note: str | None = Field(None, description="what to know about how this result was made (a widened or clipped range, a caveat)")

    @model_serializer(mode="wrap")
    def _without_empty_note(self, handler):
        data = handler(self)
        if isinstance(data, dict) and data.get("note", "") is None:
            del data["note"]  # most results have nothing to note; spare the planner a null in each
        return data

    def evidence(self) -> list[Evidence]:
        return []

    def summary(self) -> str:
        """One line for trajectories and traces."""
        text = json.dumps(self.model_dump(mode="json"), ensure_ascii=False)
        return text if len(text) <= 160 else text[:157] + "..."

    def with_notes(self, notes: list[str]) -> ToolResult:
        """This result with ``notes`` put before its own note."""
        if not notes:
            return self
        return self.model_copy(update={"note": "; ".join([*notes, self.note] if self.note else notes)})


def roles_of(requirement: str | tuple[str, ...]) -> tuple[str, ...]:
    """The roles of one entry of ``Tool.requires``: a role, or alternatives of which one is enough."""
    return (requirement,) if isinstance(requirement, str) else tuple(requirement)


def _expert_problem(role: str, settings: Settings, pool: Any = None) -> str | None:
    """Why expert ``role`` cannot be loaded here, or None: a model a caller registered on the pool
    counts as present; otherwise the settings' backend is checked as ``staragent doctor`` does."""
    if pool is not None and pool.registered(role):
        return None
    from ..errors import ConfigError
    from ..models.specs import problem

    try:
        return problem(settings, role)
    except ConfigError:
        return f"staragent knows no expert model called {role!r}"


def needs_message(needed_by: str, profile: str, problems: dict[str, str]) -> str:
    """"X needs the 'vlm' model (...), which is not available in the 'offline' profile: why"; with
    several alternatives, why for each."""
    from ..models.specs import ROLES

    what = " or ".join(f"the '{role}' model ({ROLES[role].description if role in ROLES else 'an expert model'})" for role in problems)
    if len(problems) == 1:
        [why] = problems.values()
        return f"{needed_by} needs {what}, which is not available in the '{profile}' profile: {why}"
    whys = "; ".join(f"{role}: {why}" for role, why in problems.items())
    return f"{needed_by} needs {what}; none is available in the '{profile}' profile ({whys})"


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
            raise ToolError(needs_message(needed_by, self.settings.profile, {role: str(exc)})) from None

    def optional_expert(self, role: str):
        """The expert model ``role`` when it can be loaded here, else None."""
        try:
            return self._pool().get(role)
        except ModelUnavailable:
            return None

    def chat_model(self):
        """A plain exchange with the pool's ``chat`` engine (``reply(system, user) -> str``; the
        engine is looked up per call, so the pool may unload it between calls), or None when there
        is none here."""
        if self.optional_expert("chat") is None:
            return None
        from ..models.chat_engine import EngineChat

        return EngineChat(self._pool(), self.settings)

    def _pool(self):
        if self.models is None:
            from ..models.pool import ModelPool

            self.models = ModelPool(self.settings)
        return self.models

    def time_range(self, text: str | float) -> tuple[float, float]:
        """Parse a tool's ``timestamp`` argument against the loaded video's length: a single moment
        becomes the window around it, an end past the video is cut; the result's note says so."""
        from ..timecodes import read_range

        found = read_range(text, self.require_index().duration, widen_points=True)
        self.note(*found.notes)
        return found.start, found.end

    def note(self, *lines: str) -> None:
        """Add to the note of the result of the tool call that is running (no call: nothing)."""
        notes = _CALL_NOTES.get()
        if notes is not None:
            notes.extend(lines)


class Tool:
    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]
    Result: ClassVar[type[ToolResult]]
    requires: ClassVar[tuple[str | tuple[str, ...], ...]] = ()
    """Expert roles the tool cannot work without (shown by ``staragent tools list``). An entry that
    is a tuple names alternatives, any one of which will do: ``(("translator", "chat"),)``."""
    needs_video: ClassVar[bool] = True
    brief: ClassVar[str | None] = None
    """a one-line description for small models (None: the first sentence of ``description``)"""
    brief_args: ClassVar[tuple[str, ...] | None] = None
    """the arguments a small model is shown (None: the required ones, or all when none is)"""
    data_args: ClassVar[tuple[str, ...]] = ()
    """Arguments that carry data whose size the tool bounds itself (execute_code's ``inputs``, up to
    ``toolset.sandbox.max_inputs_bytes``): ``limits.MAX_ARGUMENTS_CHARS`` does not count them."""
    cacheable: ClassVar[bool] = True
    """Whether an identical later call may be answered with this call's result (False for tools
    whose answer depends on state, such as the conversation's memory)."""

    def unavailable_reason(self, settings: Settings) -> str | None:
        """Why this tool is switched off with these settings (web search disabled, no sandbox), or
        None. Missing expert models are ``missing_models``'s business."""
        return None

    def missing_models(self, settings: Settings, pool: Any = None) -> str | None:
        """Which expert model the tool needs and cannot have here, and why; None when it has them."""
        for requirement in self.requires:
            problems = {role: _expert_problem(role, settings, pool) for role in roles_of(requirement)}
            if all(problems.values()):
                return needs_message(self.name, settings.profile, problems)
        return None

    def cannot_run(self, settings: Settings, pool: Any = None) -> str | None:
        """Why a call to this tool could not work here (switched off, or a model missing), or None."""
        return self.unavailable_reason(settings) or self.missing_models(settings, pool)

    def run(self, ctx: ToolContext, args: BaseModel) -> ToolResult:
        raise NotImplementedError

    def parse_args(self, raw: dict[str, Any] | None) -> BaseModel:
        try:
            args = self.Args.model_validate(raw or {})
        except ValidationError as exc:
            errors = exc.errors()
            problems = "; ".join(f"{_where(e)}: {e['msg']}" for e in errors[:3])
            more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""  # not 10,000 lines for one bad list
            raise ToolError(f"bad arguments for {self.name}: {problems}{more}") from None
        # what the model lets through: a megabyte of text, half a surrogate pair
        if problem := arguments_problem(raw, self.data_args):
            raise ToolError(f"bad arguments for {self.name}: {problem}")
        return args

    def __call__(self, ctx: ToolContext, raw_args: dict[str, Any] | None = None) -> ToolResult:
        """Validate the arguments (bad ones are a ``ToolError`` for the caller) and run. Any other
        exception is a bug in the tool and propagates as itself."""
        args = self.parse_args(raw_args)
        if self.needs_video:
            ctx.require_index()
        token = _CALL_NOTES.set([])
        try:
            result = self.run(ctx, args)
            return result.with_notes(_CALL_NOTES.get())
        finally:
            _CALL_NOTES.reset(token)

    def schema(self) -> dict[str, Any]:
        """The OpenAI-style function spec that planners see."""
        params = self.Args.model_json_schema()
        params.pop("title", None)
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": params}}

    def brief_schema(self) -> dict[str, Any]:
        """The spec a small model sees: the ``brief`` description and only the ``brief_args``,
        each with its type, choices and a short description (no titles, defaults or unions)."""
        params = self.Args.model_json_schema()
        required = params.get("required", [])
        names = self.brief_args if self.brief_args is not None else (required or list(params.get("properties", {})))
        properties = {name: _brief_property(params["properties"][name]) for name in names}
        brief = {"type": "object", "properties": properties, "required": [n for n in names if n in required]}
        return {"type": "function", "function": {"name": self.name, "description": self.brief or _first_sentence(self.description), "parameters": brief}}


def _where(error: dict) -> str:
    """The argument a pydantic error is about ("query", "categories.3")."""
    return ".".join(map(str, error["loc"])) or "arguments"


def _first_sentence(text: str) -> str:
    end = _SENTENCE_END.search(text)
    return text if end is None else text[: end.start() + 1]


_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)\.\s")


def _brief_property(prop: dict[str, Any]) -> dict[str, Any]:
    """One argument's JSON schema cut down to its type (a nullable one as the type itself), its
    choices and the first clause of its description."""
    options = [p for p in prop.get("anyOf", [prop]) if p.get("type") != "null"]
    chosen = options[0] if options else prop
    out: dict[str, Any] = {"type": chosen.get("type", "string")}
    if "enum" in chosen:
        out["enum"] = chosen["enum"]
    if chosen.get("type") == "array" and "items" in chosen:
        out["items"] = {k: v for k, v in chosen["items"].items() if k in ("type", "enum")}
    description = prop.get("description") or chosen.get("description")
    if description:
        out["description"] = description.split(";")[0].split(" (")[0]
    return out

