"""``staragent mcp``: the agent as an MCP server, for assistants and editors.

Tools: ``ask`` (a question about a video, optionally in a kept conversation), ``search``,
``index``, ``list_videos``, and each of the agent's own tools with a ``video`` argument added.
Every result is JSON; whatever refers to the video carries ``start`` and ``end`` in seconds and a
``timestamp`` written as people read it (``1:05-1:20``). Videos must lie in the folders the
server was given (see ``staragent.agent.videos``).
"""

from __future__ import annotations

import inspect
import logging
from typing import Annotated, Any

from pydantic import Field

from .agent.runner import VideoAgent
from .agent.videos import VideoFolders
from .errors import StarAgentError
from .limits import MAX_SEARCH_RESULTS
from .schema import Evidence
from .timecodes import format_range

log = logging.getLogger("staragent.mcp")

INSTRUCTIONS = """Answers questions about long videos. Call list_videos to see which videos are \
available, then ask (a question in plain words; pass the same thread to continue a conversation) \
or search (where something is said, shown or heard). Times in results are seconds from the start \
of the video, with a readable timestamp beside them."""


def timed(e: Evidence) -> dict[str, Any]:
    return {"start": e.start, "end": e.end, "timestamp": format_range(e.start, e.end), "modality": e.modality, "text": e.text}


def _guarded(fn):
    """staragent's own errors reach the client as their message; anything else as a short line
    (the traceback goes to the server's log, never to the client)."""
    import json

    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import CallToolResult, TextContent

    def run(**kwargs) -> CallToolResult:
        try:
            data = fn(**kwargs)
            return CallToolResult(content=[TextContent(type="text", text=json.dumps(data, ensure_ascii=False))], structured_content=data)
        except StarAgentError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:
            log.exception("MCP tool %s failed", fn.__name__)
            raise ToolError(f"the tool failed ({type(exc).__name__}); the server's log has the details") from None

    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    # evaluated here, in this module: the SDK would read the annotations' text in a namespace of its own
    run.__signature__ = inspect.signature(fn, eval_str=True).replace(return_annotation=CallToolResult)
    return run


def build_server(agent: VideoAgent, folders: VideoFolders):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("staragent", instructions=INSTRUCTIONS, log_level="WARNING")

    def list_videos() -> dict[str, Any]:
        """The videos this server may open (full paths; give one as `video` to the other tools)."""
        return {"videos": [str(p) for p in folders.videos()]}

    def index(video: Annotated[str, Field(description="path of the video (as list_videos gives it)")]) -> dict[str, Any]:
        """Preprocess a video so that questions about it are answered quickly (done on first use anyway)."""
        built = agent.prepare(folders.resolve(video)).index
        return {
            "video": str(built.video_path), "duration": built.duration, "timestamp": format_range(0, built.duration),
            "segments": len(built.segments), "keyframes": len(built.keyframes),
            "speech": built.stage_info("speech").get("source"), "on_screen_text": built.stage_info("ocr").get("backend"),
        }

    def ask(
        video: Annotated[str, Field(description="path of the video (as list_videos gives it)")],
        question: Annotated[str, Field(description="the question, in plain words")],
        thread: Annotated[str | None, Field(description="a name for the conversation: later questions with the same name can refer to earlier ones")] = None,
    ) -> dict[str, Any]:
        """Answer a question about a video, with the evidence (timestamps) behind the answer and the tool calls that found it."""
        answer = agent.ask(folders.resolve(video), question, thread_id=thread)
        return {
            "answer": answer.answer,
            "evidence": [timed(e) for e in answer.evidence],
            "steps": [{"tool": s.tool, "args": s.args, "ok": s.ok, "summary": s.summary} for s in answer.trajectory],
            "thread": thread, "video": answer.video, "profile": answer.profile,
        }

    def search(
        video: Annotated[str, Field(description="path of the video (as list_videos gives it)")],
        query: Annotated[str, Field(description="what to look for: words said or shown, or a description")],
        modalities: Annotated[list[str] | None, Field(description="any of speech, ocr, visual, caption, audio (default: all)")] = None,
        k: Annotated[int, Field(ge=1, le=MAX_SEARCH_RESULTS, description="number of results")] = 5,
    ) -> dict[str, Any]:
        """Find where something is said, shown or heard in a video: the best-matching stretches, each with its timestamp and what matched."""
        found = agent.search(folders.resolve(video), query, modalities, k)
        return {
            "hits": [{"start": h.start, "end": h.end, "timestamp": format_range(h.start, h.end), "score": h.score,
                      "evidence": [timed(e) for e in h.evidence]} for h in found.hits],
            "not_searched": found.unavailable,
        }

    for fn in (list_videos, index, ask, search):
        server.add_tool(_guarded(fn))
    for tool in _agent_tools(agent):
        server.add_tool(_guarded(_tool_function(agent, folders, tool)), name=tool.name, description=tool.description)
    return server


def _agent_tools(agent: VideoAgent) -> list:
    """The tools the agent would be offered here (as for a conversation about a video)."""
    from .tools import ToolRegistry

    settings = agent.settings
    return ToolRegistry.discover(settings=settings).select(settings.tools, settings, agent.pool)


def _tool_function(agent: VideoAgent, folders: VideoFolders, tool):
    """A function whose signature is the tool's arguments (plus ``video`` when it works on one),
    so that the MCP SDK publishes the same schema the planner sees."""
    from pydantic import Field

    fields = getattr(tool.Args, "model_fields", {})
    params = []
    if tool.needs_video:
        params.append(inspect.Parameter("video", inspect.Parameter.KEYWORD_ONLY, annotation=str,
                                        default=Field(description="path of the video (as list_videos gives it)")))
    for name, field in fields.items():
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=field.annotation, default=field))

    def call(**kwargs) -> dict[str, Any]:
        video = kwargs.pop("video", None)
        session = agent.session(folders.resolve(video)) if tool.needs_video else None
        ctx = session.tool_ctx if session is not None else _videoless_context(agent)
        result = tool(ctx, {k: v for k, v in kwargs.items() if v is not None or fields[k].is_required()})
        return {"result": result.model_dump(mode="json"), "evidence": [timed(e) for e in result.evidence()]}

    call.__name__ = tool.name
    call.__signature__ = inspect.Signature(params, return_annotation=dict[str, Any])
    return call


def _videoless_context(agent: VideoAgent):
    from .tools import ToolContext

    return ToolContext(settings=agent.settings, models=agent.pool, extras={"query_encoders": {}})


def serve(agent: VideoAgent, folders: VideoFolders, *, http: bool = False, host: str = "127.0.0.1", port: int = 8766,
          token: str | None = None) -> None:
    """Serve until stopped: over standard input and output, or streamable HTTP at ``/mcp``."""
    from .access import TokenGate, check_binding

    server = build_server(agent, folders)
    if not http:
        server.run("stdio")
        return
    from .serving import serve_until_stopped

    check_binding(host, token)
    app = server.streamable_http_app(host=host)
    serve_until_stopped(TokenGate(app, token) if token else app, host, port)
