"""The graph's state, and what holds between turns of a conversation.

Channels:

- ``messages``: the conversation (add_messages). A turn appends the question, then rounds of an
  ``AIMessage`` with tool calls and one ``ToolMessage`` per call (its ``artifact`` holds the parsed
  result and evidence), and ends with an ``AIMessage`` that calls no tool: the answer. Only the last
  ``compaction.FULL_TURNS`` finished turns stay like that; earlier ones are kept as their question
  and answer (see ``compaction``), so the state a turn loads stops growing with the conversation.
- ``trajectory``, ``evidence``, ``usage``: what the current turn did, found and spent
  (``operator.add`` within the turn; emptied when the next question starts).
- ``tool_memory``: a call's canonical form -> its stored result, so an identical call later in the
  conversation is answered from memory; it holds the calls of the turns kept whole.
- ``notes``: what memory_tool keeps for the conversation (replaced as a whole when a tool changes them).
- ``steps``: rounds of tool calls in the current turn (reset by each question).
- ``video``: the facts a planner may need about the video beside the messages (``{"duration":
  seconds}``), set by the planner node from the session when a conversation starts.

At rest a thread's state ends a complete turn (``threads.is_complete``): the store saves a turn
when it ends, keeps the latest checkpoint only, and ``threads.repair`` drops a turn that was cut
short (a question without an answer, a call without a result) before the next question. Every
finished turn, whole, is also written to the store's transcript (``transcript``), which is what
reading a thread back shows.
"""

from __future__ import annotations

import json
import operator
from typing import Annotated, Any

from langchain_core.messages import AnyMessage, BaseMessage, HumanMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

CHECK = "staragent_check"
"""``additional_kwargs`` flag of the user-role messages the graph writes itself (an answer sent back)"""


def is_question(m: BaseMessage) -> bool:
    """Whether ``m`` is a question of the user's own (not an answer the graph sent back)."""
    return isinstance(m, HumanMessage) and not m.additional_kwargs.get(CHECK)


def call_key(name: str, args: dict[str, Any]) -> str:
    """A tool call's canonical form: its key in ``tool_memory``."""
    return f"{name}:{json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)}"


def merge_dicts(left: dict | None, right: dict | None) -> dict:
    return {**(left or {}), **(right or {})}


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    trajectory: Annotated[list[dict[str, Any]], operator.add]
    evidence: Annotated[list[dict[str, Any]], operator.add]
    usage: Annotated[list[dict[str, int]], operator.add]
    tool_memory: Annotated[dict[str, dict[str, Any]], merge_dicts]
    notes: list[dict[str, Any]]
    steps: int
    video: dict[str, Any]
