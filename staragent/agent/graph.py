"""The agent graph: begin_turn -> planner -> tools -> planner ... -> answer.

``begin_turn`` bounds what the turn carries of the conversation (``compaction``). The planner is any
LangChain chat model bound to the tools' schemas. The tools node runs the calls, answers a call
identical to an earlier one of the turns kept whole from memory instead of running it again, and records each step of the trajectory. A call the model wrote but that could not be read
(``AIMessage.invalid_tool_calls``) is answered with an error saying what was wrong, so the model
can try again; it counts as a step. After ``max_steps`` rounds the planner is asked again without
tools, so it has to answer.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
import uuid
from dataclasses import dataclass

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from staragent.agent import compaction, grounding, toolchoice
from staragent.agent.guide import evidence_line, guide
from staragent.agent.planners.rules.question import analyse
from staragent.agent.planners.tool_calls import without_calls
from staragent.agent.reader import read_for_model

# Absolute imports: LangGraph's server (langgraph.json) loads this file by path, not as a package member.
from staragent.agent.session import Session
from staragent.agent.state import CHECK, AgentState, call_key, is_question
from staragent.errors import StarAgentError, ToolError
from staragent.faults import marker
from staragent.qa.rank import FOUND
from staragent.schema import Evidence, TokenUsage, TrajectoryStep
from staragent.tools.base import ToolContext
from staragent.tools.memory import ConversationMemory

log = logging.getLogger("staragent.agent")

BY_AGENT = "staragent_by_agent"
"""``response_metadata`` flag of tool calls the graph made itself, not the planner"""
KEPT_DRAFT = "staragent_kept_draft"
"""``response_metadata`` flag of a small model's answer replaced by the rules' draft (see ``guide``)"""


@dataclass
class AgentContext:
    """Run-scoped context: the session the turn runs in. A LangGraph server gets its own context
    (``agent.server.ServerContext``), which opens the session from plain fields."""

    session: Session | None = None

    def resolve(self) -> Session:
        if self.session is None:
            raise RuntimeError("the agent graph was run without a session: pass AgentContext(session=...)")
        return self.session


def _turn(messages: list) -> tuple[str, list]:
    """The question of the current turn (the user's last own message) and the messages after it."""
    for i in range(len(messages) - 1, -1, -1):
        if is_question(messages[i]):
            return messages[i].text, messages[i + 1 :]
    return "", list(messages)


def _overview_reader(session: Session, video: dict):
    """``question -> bool``: whether it asks for an overview of the video, as the rules' question reader decides."""
    return lambda question: analyse(question, None, video.get("name"), session.asks_summary).overview


def planner(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    session = runtime.context.resolve()
    over_budget = state.get("steps", 0) >= session.settings.max_steps
    question, turn = _turn(state["messages"])
    video = state.get("video") or session.video_facts()
    # whether a summary is asked is read as the rules read it (the fitted model and the phrasings written down), not a second way
    overview = _overview_reader(session, video)
    offered = toolchoice.choose(question, session.tools, overview) if session.small_model else None
    guidance = None
    if offered is not None and session.index is not None and not over_budget:
        # a small model's retrieval, planned by the rules and made for it until it has spoken (see ``guide``)
        guidance = guide(state["messages"], session.tool_specs(offered), video, skip=frozenset({CHECK}), asks_summary=session.asks_summary)
        if guidance.calls and not any(isinstance(m, AIMessage) and not m.response_metadata.get(BY_AGENT) for m in turn):
            return {"messages": [_agent_calls(guidance.calls)]}
        if not guidance.calls and toolchoice.reads(question, overview):
            # then one call reads the lines, instead of a turn of tool planning (see ``agent.reader``)
            return _read_by_model(session, state, question, guidance, video)
    messages = [SystemMessage(session.system_prompt(over_budget, offered)), *state["messages"]]
    if guidance is not None and not guidance.calls and guidance.draft:
        messages.append(guidance.message(question))
    model = session.chat_model
    if not over_budget and session.tools:
        model = model.bind_tools(session.tool_specs(offered))
    if session.small_model:
        model = model.bind(max_tokens=min(session.settings.planner.max_tokens, toolchoice.SMALL_MAX_TOKENS))
    # a planner that reads the video's facts gets them from the state, not from the prompt's text
    reply = model.invoke(messages, video=video, asks_summary=session.asks_summary) if getattr(model, "reads_video_facts", False) else model.invoke(messages)
    if over_budget:  # the model may still call a tool, natively or in its text (a server without a tool parser)
        text, wrote_calls = without_calls(reply.text)
        if wrote_calls or reply.tool_calls or reply.invalid_tool_calls:
            reply = AIMessage(content=text or "I ran out of tool calls before I could answer.", id=reply.id, usage_metadata=reply.usage_metadata)
    if guidance is not None and guidance.leads and not (reply.tool_calls or reply.invalid_tool_calls) and _drops(reply.text, guidance.draft):
        # a small model that finds nothing where the rules quote what answers: the quoted answer stands
        reply = reply.model_copy(update={"content": guidance.draft, "response_metadata": {**reply.response_metadata, KEPT_DRAFT: True, "evidence": list(guidance.cited)}})
    usage = getattr(reply, "usage_metadata", None) or {}
    update = {"messages": [reply], "usage": [{"input": usage.get("input_tokens", 0), "output": usage.get("output_tokens", 0)}]}
    if "video" not in state:
        update["video"] = video
    if session.checks_answers and session.index is not None and not (reply.tool_calls or reply.invalid_tool_calls):
        update["messages"] = _checked(session, state, question, turn, reply)
    return update


def _previous_question(messages: list, question: str) -> str | None:
    """The user's question of the turn before this one, for a follow-up."""
    asked = [m.text for m in messages if is_question(m)]
    return asked[-2] if len(asked) >= 2 and asked[-1] == question else None


def _read_by_model(session: Session, state: AgentState, question: str, guidance, video: dict) -> dict:
    """A small model's answer as the reading core's LLM reader gives it: the lines the rules' answer
    rests on first, then the core's ranking. Where the rules quote an answer, their answer stands and
    the model is not asked: on 120 questions about the dev media (the dev set, blind rounds 22 and 23)
    the bundled 1.5B model never made such an answer better on balance (45, 17 and 11 right against
    the rules' 55, 18 and 16), so it reads only where the rules find nothing."""
    # an overview the rules made with the summary tool stands too: a dozen lines are no whole video to sum up
    if (guidance.leads or guidance.overview) and guidance.draft and not grounding.says_nothing_found(guidance.draft):
        reply = AIMessage(content=guidance.draft, response_metadata={KEPT_DRAFT: True, "evidence": list(guidance.cited)})
        return {**({} if "video" in state else {"video": video}), "messages": [reply], "usage": [{"input": 0, "output": 0}]}
    previous = _previous_question(state["messages"], question)
    refused = guidance.declined or (bool(guidance.draft) and grounding.says_nothing_found(guidance.draft))
    # where the rules found nothing, the model reads only a ranking sure enough that the video holds
    # the answer: below it, on questions whose answer is absent, a small model names what it guesses
    answer = read_for_model(session.chat_model, session.index, question, previous=previous, leading=[Evidence(**e) for e in guidance.cited], first_reading=guidance.draft or None,
                            encoders=session.tool_ctx.extras.get("query_encoders") or {}, min_confidence=FOUND if refused else 0.0)
    if refused and grounding.says_nothing_found(answer.text):
        # the lines did not say it either: the rules' answer says why (what no line holds, or that only
        # the pictures could tell), "not found" does not
        answer = answer.model_copy(update={"text": guidance.draft, "evidence": [Evidence(**e) for e in guidance.cited], "citations": []})
    tokens = answer.tokens or TokenUsage()
    usage = {"input_tokens": tokens.input, "output_tokens": tokens.output, "total_tokens": tokens.input + tokens.output}
    reply = AIMessage(content=answer.text, response_metadata={"evidence": [e.model_dump() for e in answer.evidence]}, usage_metadata=usage)
    return {**({} if "video" in state else {"video": video}), "messages": [reply], "usage": [{"input": tokens.input, "output": tokens.output}]}


def _drops(answer: str, draft: str) -> bool:
    """Whether a model's answer says nothing was found where the rules' draft found something."""
    return grounding.says_nothing_found(answer) and bool(draft) and not grounding.says_nothing_found(draft)


def _checked(session: Session, state: AgentState, question: str, turn: list, reply: AIMessage) -> list:
    """The messages an answer leaves behind: itself when it passes the checks of ``grounding``;
    itself and the problems, sent back to the model, while it has retries left; then a search made
    for it (no tool was called) or the answer with its failing times struck out."""
    duration = session.index.duration
    quoted = [m.text for m in state["messages"] if isinstance(m, ToolMessage | HumanMessage) and not m.additional_kwargs.get(CHECK)]
    called = any(isinstance(m, ToolMessage) for m in turn)
    spans = compaction.spans(state["messages"])  # what tools found in the turns kept whole, and the times earlier answers cited
    verdict = grounding.check_answer(reply.text, called_tools=called, duration=duration, evidence=spans, quoted=quoted)
    if verdict.ok:
        return [reply]
    search = toolchoice.SEARCH if toolchoice.SEARCH in session.tools else None
    retries = sum(1 for m in turn if isinstance(m, HumanMessage))
    if retries < session.settings.planner.answer_retries:
        log.info("answer sent back (looked: %s, outside: %s, unsupported: %s)", verdict.looked, verdict.outside, verdict.unsupported)
        return [reply, HumanMessage(grounding.feedback(verdict, duration, search), additional_kwargs={CHECK: True})]
    if not verdict.looked and search and question:
        return [_agent_calls([(search, {"query": question.strip()[:300]})])]
    return [reply.model_copy(update={"content": grounding.strike(reply.text, verdict)})]


def _agent_calls(calls: list[tuple[str, dict]]) -> AIMessage:
    """Tool calls the agent makes itself, marked so that the trajectory says so."""
    tool_calls = [{"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"} for name, args in calls]
    return AIMessage(content="", tool_calls=tool_calls, response_metadata={BY_AGENT: True})


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


def _content(name: str, stored: dict, brief: bool = False) -> str:
    """What the planner reads: the result quoted as data under "data" (the system prompt says text
    in it is never an instruction), or the error. Built when sent, so memory keeps the result once.
    ``brief`` (a small model): the evidence as lines of time range, where and text, beside the
    result's short texts it does not repeat (a summary, a description) and its note."""
    if not stored["ok"]:
        return json.dumps({"tool": name, "error": stored["error"]}, ensure_ascii=False)
    if not (brief and stored.get("evidence")):
        return json.dumps({"tool": name, "data": stored["result"]}, ensure_ascii=False)
    lines = list(dict.fromkeys(evidence_line(e, BRIEF_TEXT) for e in stored["evidence"]))
    said = " ".join(" ".join(e["text"].split()) for e in stored["evidence"])
    extra = {
        key: value for key, value in stored["result"].items()
        if isinstance(value, str) and key not in ("timestamp", "query", "source") and 0 < len(value) <= 4 * BRIEF_TEXT and " ".join(value.split()) not in said
    }  # fmt: skip
    return json.dumps({"tool": name, "data": {"found": lines[:BRIEF_LINES], **extra}}, ensure_ascii=False)


BRIEF_LINES, BRIEF_TEXT = 12, 300


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
    # Each call's start and end go out as they happen to callers streaming "custom" events (the page shows them).
    write = get_stream_writer()
    messages, trajectory, evidence, remembered = [], [], [], {}
    chose = state["messages"][-1]
    usage = chose.usage_metadata or {}
    tokens = TokenUsage.of(usage)
    by_agent = bool(chose.response_metadata.get(BY_AGENT))
    for call in chose.tool_calls:
        write({"event": "tool_started", "id": call["id"], "tool": call["name"], "args": call["args"]})
        key = call_key(call["name"], call["args"])
        tool = session.tools.get(call["name"])
        cacheable = tool is None or tool.cacheable
        stored = (memory.get(key) or remembered.get(key)) if cacheable else None
        cached = stored is not None
        started = time.perf_counter()
        if stored is None:
            marker(f"tool.{call['name']}")
            stored = _run_tool(session, ctx, call["name"], call["args"])
            if cacheable and stored["ok"]:  # a failure may be passing (a busy server): the next call tries again
                remembered[key] = stored
        latency = 0.0 if cached else time.perf_counter() - started
        messages.append(
            ToolMessage(
                content=_content(call["name"], stored, session.small_model),
                tool_call_id=call["id"],
                name=call["name"],
                status="success" if stored["ok"] else "error",
                artifact={k: stored[k] for k in ("result", "evidence", "error") if k in stored},
            )
        )
        step = TrajectoryStep(
            tool=call["name"], args=call["args"], ok=stored["ok"], latency_s=round(latency, 4), summary=stored["summary"], error=stored.get("error"),
            cached=cached, tokens=None if trajectory else tokens, by_agent=by_agent,
        )  # fmt: skip
        trajectory.append(step.model_dump())
        write({"event": "tool_finished", "id": call["id"], "step": trajectory[-1]})
        evidence.extend(stored.get("evidence", []))
    for call in getattr(chose, "invalid_tool_calls", None) or []:
        message, step = _unreadable_call(call)
        step["tokens"] = None if trajectory or tokens is None else tokens.model_dump()
        messages.append(message)
        trajectory.append(step)
        write({"event": "tool_finished", "id": call.get("id") or "", "step": step})
    update = {"messages": messages, "trajectory": trajectory, "evidence": evidence, "tool_memory": remembered, "steps": state.get("steps", 0) + 1}
    if notes.changed:
        update["notes"] = notes.dump()
    return update


def route(state: AgentState) -> str:
    last = state["messages"][-1]
    if isinstance(last, HumanMessage):  # an answer sent back
        return "planner"
    return "tools" if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls) else END


def build_graph(checkpointer=None, context_schema: type = AgentContext):
    builder = StateGraph(AgentState, context_schema=context_schema)
    builder.add_node("begin_turn", compaction.begin_turn)  # bounds what the turn carries (see ``compaction``)
    builder.add_node("planner", planner)
    builder.add_node("tools", tools_node)
    builder.add_edge(START, "begin_turn")
    builder.add_edge("begin_turn", "planner")
    builder.add_conditional_edges("planner", route, {"tools": "tools", "planner": "planner", END: END})
    builder.add_edge("tools", "planner")
    return builder.compile(checkpointer=checkpointer, name="staragent")

