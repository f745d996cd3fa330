"""Tools served by MCP servers (``toolset.mcp_servers``), offered to the agent beside the built-in
ones: a way to add a tool without writing Python.

Each configured server is started (a command, spoken to over its standard input and output) or
reached (a streamable-HTTP URL) once per process; the connection stays open in a background thread
with its own event loop, and every tool call goes through it. A server's tool is an ordinary
``Tool`` to the rest of staragent: its input schema is what the planner sees, and a property called
``video`` is not shown to the planner but filled with the path of the video being discussed.
Results that hold ``start``/``end`` seconds with a ``text`` become evidence the answer can cite.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import json
import logging
import threading
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..config import McpServerSettings, Settings
from ..errors import ToolError
from ..schema import Evidence
from .base import Tool, ToolContext, ToolResult

log = logging.getLogger("staragent.tools")
VIDEO_ARG = "video"
CONNECT_SECONDS = 60.0


class McpConnection:
    """One open connection to one MCP server. Calls may come from any thread."""

    def __init__(self, name: str, config: McpServerSettings):
        self.name = name
        self.config = config
        self._loop = asyncio.new_event_loop()
        self._queue: asyncio.Queue | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"mcp-{name}", daemon=True)
        self._thread.start()
        self._ready: concurrent.futures.Future = concurrent.futures.Future()
        self._done = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)
        try:
            self.tools = self._ready.result(timeout=CONNECT_SECONDS)
        except BaseException:
            self.close()
            raise

    def describe(self) -> str:
        return f"MCP server {self.name!r} ({' '.join(self.config.command) if self.config.command else self.config.url})"

    def _transport(self):
        from mcp.client.stdio import StdioServerParameters

        if self.config.command:
            program, *args = self.config.command
            return StdioServerParameters(command=program, args=args, env=self.config.env or None)
        if not self.config.headers:
            return self.config.url
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        self._http = httpx2.AsyncClient(headers=self.config.headers, timeout=httpx2.Timeout(30.0, read=self.config.timeout + 30))
        return streamable_http_client(self.config.url, http_client=self._http)

    async def _serve(self) -> None:
        """Owns the client for its whole life (the SDK's task groups must be left by the task that
        entered them): lists the tools, then runs the calls put on the queue until told to stop."""
        from mcp import Client

        self._queue = asyncio.Queue()
        try:
            async with Client(self._transport(), read_timeout_seconds=self.config.timeout) as client:
                listed = await client.list_tools()
                self._ready.set_result(list(listed.tools))
                running = set()
                while (item := await self._queue.get()) is not None:
                    task = asyncio.create_task(self._call(client, *item))
                    running.add(task)
                    task.add_done_callback(running.discard)
                for task in running:
                    task.cancel()
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the connection
            if not self._ready.done():
                self._ready.set_exception(exc)
            else:
                log.warning("%s stopped: %s", self.describe(), exc)
        finally:
            if getattr(self, "_http", None) is not None:
                await self._http.aclose()

    @staticmethod
    async def _call(client, name: str, args: dict, result: concurrent.futures.Future) -> None:
        try:
            result.set_result(await client.call_tool(name, args))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            result.set_exception(exc)

    def call(self, name: str, args: dict[str, Any]):
        """Call tool ``name``; returns the SDK's ``CallToolResult``."""
        if self._done.done():
            raise ToolError(f"the connection to {self.describe()} is closed")
        result: concurrent.futures.Future = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (name, args, result))
        try:
            return result.result(timeout=self.config.timeout + 5)
        except concurrent.futures.TimeoutError:
            raise ToolError(f"{name} on {self.describe()} did not answer within {self.config.timeout:.0f} s") from None

    def close(self) -> None:
        if self._queue is not None and not self._done.done():
            self._loop.call_soon_threadsafe(self._queue.put_nowait, None)
            with contextlib.suppress(Exception):  # closing: nothing left to report to
                self._done.result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


_connections: dict[str, McpConnection] = {}
_connections_lock = threading.Lock()


def connection(name: str, config: McpServerSettings) -> McpConnection:
    """The process's connection to this server (made on first use, reused after)."""
    key = f"{name}:{config.model_dump_json()}"
    with _connections_lock:
        if key not in _connections:
            _connections[key] = McpConnection(name, config)
        return _connections[key]


@atexit.register
def _close_all() -> None:
    for conn in list(_connections.values()):
        conn.close()
    _connections.clear()


class McpResult(ToolResult):
    """What an MCP tool answered: its structured result (given as such, or as JSON text), else its text."""

    data: Any = None
    text: str | None = None

    def evidence(self) -> list[Evidence]:
        return [Evidence(**e) for e in _timed_items(self.data)]


def _timed_items(data: Any, depth: int = 0) -> list[dict]:
    """Items of a structured result that say where in the video: ``start`` and ``end`` seconds
    and a ``text`` (with an optional ``modality``), searched a few levels deep."""
    if depth > 4:
        return []
    if isinstance(data, dict):
        if isinstance(data.get("start"), (int, float)) and isinstance(data.get("end"), (int, float)) and isinstance(data.get("text"), str):
            return [{"start": float(data["start"]), "end": float(data["end"]), "text": data["text"], "modality": str(data.get("modality") or "other"), "source": "mcp"}]
        return [item for value in data.values() for item in _timed_items(value, depth + 1)]
    if isinstance(data, list):
        return [item for value in data for item in _timed_items(value, depth + 1)]
    return []


class _AnyArgs(BaseModel):
    model_config = ConfigDict(extra="allow")


class McpTool(Tool):
    """A tool of an MCP server, as the agent sees it."""

    Args = _AnyArgs
    Result = McpResult
    cacheable = False  # another program's tool may answer differently each time

    def __init__(self, conn: McpConnection, spec):
        self.conn = conn
        self.name = spec.name
        self.description = spec.description or f"{spec.name} (a tool of {conn.describe()})"
        self.input_schema = dict(spec.input_schema or {"type": "object", "properties": {}})
        self.needs_video = VIDEO_ARG in (self.input_schema.get("properties") or {})

    def schema(self) -> dict[str, Any]:
        params = json.loads(json.dumps(self.input_schema))
        if self.needs_video:  # filled in by staragent, never chosen by the planner
            params["properties"].pop(VIDEO_ARG, None)
            params["required"] = [r for r in params.get("required", []) if r != VIDEO_ARG]
        params.setdefault("type", "object")
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": params}}

    def parse_args(self, raw: dict[str, Any] | None) -> BaseModel:
        if raw is not None and not isinstance(raw, dict):
            raise ToolError(f"bad arguments for {self.name}: give an object of named arguments")
        return _AnyArgs(**(raw or {}))

    def run(self, ctx: ToolContext, args: BaseModel) -> McpResult:
        arguments = args.model_dump()
        if self.needs_video:
            arguments[VIDEO_ARG] = str(ctx.require_index().video_path)
        result = self.conn.call(self.name, arguments)
        text = "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")
        if result.is_error:
            raise ToolError(f"{self.name} ({self.conn.describe()}) failed: {text or 'no reason given'}")
        if result.structured_content is not None:
            return McpResult(data=result.structured_content)
        try:
            return McpResult(data=json.loads(text))
        except ValueError:
            return McpResult(text=text)


def _reason(exc: BaseException) -> str:
    """The innermost cause, not the task group that carried it."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def mcp_tools(settings: Settings) -> list[tuple[str, Tool]]:
    """``(origin, tool)`` for every tool of every configured MCP server. A server that cannot be
    reached is skipped with a warning: it must not take the agent down."""
    out = []
    for name, config in settings.toolset.mcp_servers.items():
        try:
            conn = connection(name, config)
        except Exception as exc:  # noqa: BLE001 - reported, then the agent goes on without it
            log.warning("skipping MCP server %r: cannot connect (%s)", name, _reason(exc))
            continue
        out.extend((conn.describe(), McpTool(conn, spec)) for spec in conn.tools)
    return out
