"""The graph's state. Lists with ``operator.add`` grow across turns of a conversation (the runner
slices out one turn); ``tool_memory`` maps a call's canonical form to its stored result, so that an
identical call later in the conversation is answered from memory; ``notes`` are what memory_tool
keeps for the conversation (replaced as a whole whenever a tool changes them); ``video`` holds the
facts a planner may need about the video beside the messages (``{"duration": seconds}``), set by the
planner node from the session when a conversation starts."""

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
