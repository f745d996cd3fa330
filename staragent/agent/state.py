"""The graph's state, and what holds between turns of a conversation.

Channels:

- ``messages``: the conversation (add_messages). A turn appends the question, then rounds of an
  ``AIMessage`` with tool calls and one ``ToolMessage`` per call (its ``artifact`` holds the parsed
  result and evidence), and ends with an ``AIMessage`` that calls no tool: the answer.
- ``trajectory``, ``evidence``, ``usage``: lists that grow across the turns of a conversation
  (``operator.add``); the runner slices out one turn by their lengths before it.
- ``tool_memory``: a call's canonical form -> its stored result, so an identical call later in the
  conversation is answered from memory (merged, never replaced).
- ``notes``: what memory_tool keeps for the conversation (replaced as a whole when a tool changes them).
- ``steps``: rounds of tool calls in the current turn (reset by each question).
- ``video``: the facts a planner may need about the video beside the messages (``{"duration":
  seconds}``), set by the planner node from the session when a conversation starts.

At rest a thread's state ends a complete turn (``threads.is_complete``): the store saves a turn
when it ends, keeps the latest checkpoint only, and ``threads.repair`` drops a turn that was cut
short (a question without an answer, a call without a result) before the next question.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


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
