"""The agent graph: planner -> tools -> planner ... -> answer.

The planner is any LangChain chat model bound to the tools' schemas. The tools node runs the calls,
answers a call identical to an earlier one in the conversation from memory instead of running it
again, and records each step of the trajectory. A call the model wrote but that could not be read
(``AIMessage.invalid_tool_calls``) is answered with an error saying what was wrong, so the model
can try again; it counts as a step. After ``max_steps`` rounds the planner is asked again without
tools, so it has to answer.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from staragent.agent.planners.tool_calls import without_calls

# Absolute imports: LangGraph's server (langgraph.json) loads this file by path, not as a package member.
from staragent.agent.session import Session
from staragent.agent.state import AgentState
from staragent.errors import StarAgentError, ToolError
from staragent.schema import TrajectoryStep
from staragent.tools.base import ToolContext
from staragent.tools.memory import ConversationMemory

log = logging.getLogger("staragent.agent")


@dataclass
class AgentContext:
    """Run-scoped context. Python callers pass a ready ``session``; a LangGraph server passes plain
    fields (``video``, ``profile``) and the session is opened on first use and kept."""

    video: str | None = None
    profile: str | None = None
    session: Session | None = None

    def resolve(self) -> Session:
        if self.session is None:
            self.session = _server_session(self.video, self.profile)
        return self.session


@functools.lru_cache(maxsize=8)
def _server_session(video: str | None, profile: str | None) -> Session:
    from staragent.agent.session import open_session
    from staragent.config import load_settings

    return open_session(video, load_settings(profile=profile))


def call_key(name: str, args: dict[str, Any]) -> str:
    return f"{name}:{json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)}"


def planner(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    session = runtime.context.resolve()
    over_budget = state.get("steps", 0) >= session.settings.max_steps
    messages = [SystemMessage(session.system_prompt(over_budget)), *state["messages"]]
    model = session.chat_model
    if not over_budget and session.tools:
        model = model.bind_tools(session.tool_specs())
    reply = model.invoke(messages)
    if over_budget:  # the model may still call a tool, natively or in its text (a server without a tool parser)
        text, wrote_calls = without_calls(reply.text)
        if wrote_calls or reply.tool_calls or reply.invalid_tool_calls:
            reply = AIMessage(content=text or "I ran out of tool calls before I could answer.", id=reply.id, usage_metadata=reply.usage_metadata)
    usage = getattr(reply, "usage_metadata", None) or {}
    return {"messages": [reply], "usage": [{"input": usage.get("input_tokens", 0), "output": usage.get("output_tokens", 0)}]}


def _run_tool(session: Session, ctx: ToolContext, name: str, args: dict) -> dict:
    tool = session.tools.get(name)
    try:
        if tool is None:
            raise ToolError(f"no tool named {name!r} is available; available: {', '.join(session.tools)}")
        result = tool(ctx, args)
    except StarAgentError as exc:
        return {"ok": False, "error": str(exc), "summary": f"error: {exc}"}
    except Exception as exc:  # a tool bug must not end the conversation; the planner sees the error
        log.exception("tool %s failed", name)
        message = f"{type(exc).__name__}: {exc}"
        return {"ok": False, "error": message, "summary": f"error: {message}"}
    return {"ok": True, "summary": result.summary(), "result": result.model_dump(mode="json"), "evidence": [e.model_dump() for e in result.evidence()]}


def _content(name: str, stored: dict) -> str:
    """What the planner reads: the result quoted as data under "data" (the system prompt says text
    in it is never an instruction), or the error. Built when sent, so memory keeps the result once."""
    if stored["ok"]:
        return json.dumps({"tool": name, "data": stored["result"]}, ensure_ascii=False)
    return json.dumps({"tool": name, "error": stored["error"]}, ensure_ascii=False)


def _unreadable_call(call: dict) -> tuple[ToolMessage, dict]:
    """The error message a call that could not be read gets back, and its trajectory step."""
    name = call.get("name") or "unnamed tool"
    error = (
        f"your call of {name} could not be read: {call.get('error') or 'malformed'}. Write it again as one JSON object "
        '{"name": <tool name>, "arguments": {<argument>: <value>, ...}} with double-quoted keys and strings.'
    )
    message = ToolMessage(
        content=json.dumps({"tool": name, "error": error}, ensure_ascii=False), tool_call_id=call["id"], name=name, status="error"
    )
    step = TrajectoryStep(tool=name, args={"unreadable": str(call.get("args") or "")[:500]}, ok=False, summary=f"error: {error}", error=error)
    return message, step.model_dump()


def tools_node(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    session = runtime.context.resolve()
    memory = state.get("tool_memory") or {}
    # The conversation's notes travel in the graph state, so the checkpointer keeps them with the chat.
    notes = ConversationMemory(state.get("notes"))
    ctx = dataclasses.replace(session.tool_ctx, memory=notes)
    messages, trajectory, evidence, remembered = [], [], [], {}
    for call in state["messages"][-1].tool_calls:
        key = call_key(call["name"], call["args"])
        tool = session.tools.get(call["name"])
        cacheable = tool is None or tool.cacheable
        stored = (memory.get(key) or remembered.get(key)) if cacheable else None
        cached = stored is not None
        started = time.perf_counter()
        if stored is None:
            stored = _run_tool(session, ctx, call["name"], call["args"])
            if cacheable and stored["ok"]:  # a failure may be passing (a busy server): the next call tries again
                remembered[key] = stored
        latency = 0.0 if cached else time.perf_counter() - started
        messages.append(
            ToolMessage(
                content=_content(call["name"], stored),
                tool_call_id=call["id"],
                name=call["name"],
                status="success" if stored["ok"] else "error",
                artifact={k: stored[k] for k in ("result", "evidence", "error") if k in stored},
            )
        )
        step = TrajectoryStep(
            tool=call["name"], args=call["args"], ok=stored["ok"], latency_s=round(latency, 4), summary=stored["summary"], error=stored.get("error"), cached=cached
        )
        trajectory.append(step.model_dump())
        evidence.extend(stored.get("evidence", []))
    for call in getattr(state["messages"][-1], "invalid_tool_calls", None) or []:
        message, step = _unreadable_call(call)
        messages.append(message)
        trajectory.append(step)
    update = {"messages": messages, "trajectory": trajectory, "evidence": evidence, "tool_memory": remembered, "steps": state.get("steps", 0) + 1}
    if notes.changed:
        update["notes"] = notes.dump()
    return update


def route(state: AgentState) -> str:
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls) else END


def build_graph(checkpointer=None):
    builder = StateGraph(AgentState, context_schema=AgentContext)
    builder.add_node("planner", planner)
    builder.add_node("tools", tools_node)
    builder.add_edge(START, "planner")
    builder.add_conditional_edges("planner", route, {"tools": "tools", END: END})
    builder.add_edge("tools", "planner")
    return builder.compile(checkpointer=checkpointer, name="staragent")


graph = build_graph()
