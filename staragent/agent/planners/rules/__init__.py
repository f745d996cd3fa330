"""The offline planner: a LangChain chat model that plans by rules instead of a neural network.

It reads the conversation like any chat model would (the question, earlier turns, its own tool
calls and their results) and replies either with tool calls or with a final answer; the graph hands
it the facts it keeps about the video (its length) beside the messages. Because it is a chat model,
the same LangGraph graph runs with it, with a local transformers model, or with an OpenAI-compatible
endpoint.

Reading a question: ``question``; the conversation: ``conversation``; where to look: ``focus``;
what to call: ``plan`` (and ``intents`` for questions that plainly ask for one tool); how well a
line answers: ``ranking``; arithmetic over amounts found: ``arithmetic``; the answer: ``compose``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from .compose import compose_answer, declines_sight
from .conversation import Turn, read_turn
from .plan import next_calls

DECLINED = "declined"
"""response_metadata key of an answer that declines for want of sight (``compose.declines_sight``)"""
OVERVIEW = "overview"
"""response_metadata key of an answer that is an overview of the video or a part (the question asked for one)"""

__all__ = ["DECLINED", "OVERVIEW", "RulePlanner", "Turn", "read_turn", "next_calls", "compose_answer"]


class RulePlanner(BaseChatModel):
    """Offline planner (no model weights). Bind tools with ``bind_tools`` like any chat model."""

    tool_names: tuple[str, ...] = ()
    sight: str = "none"
    """how much of the pictures the index sees (``compose.SIGHTS``)"""
    reads_video_facts: bool = True
    """the graph passes ``video={"duration": ...}`` from its state to ``invoke``"""

    @property
    def _llm_type(self) -> str:
        return "staragent-rules"

    def bind_tools(self, tools: list[Any], **kwargs: Any) -> RulePlanner:
        names = []
        for tool in tools:
            if isinstance(tool, dict):
                names.append(tool.get("function", tool).get("name"))
            else:
                names.append(getattr(tool, "name", None))
        return self.model_copy(update={"tool_names": tuple(n for n in names if n)})

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, video: dict | None = None,
                  asks_summary=None, **kwargs: Any) -> ChatResult:
        video = video or {}
        turn = read_turn(messages, set(self.tool_names), duration=video.get("duration"), video_name=video.get("name"), asks_summary=asks_summary)
        calls = next_calls(turn, set(self.tool_names))
        if calls:
            message = AIMessage(content="", tool_calls=calls)
        else:
            text, cited = compose_answer(turn, self.sight)
            declined = {DECLINED: True} if declines_sight(turn, self.sight) else {}
            overview = {OVERVIEW: True} if turn.question.overview else {}
            message = AIMessage(content=text, response_metadata={"evidence": [e.model_dump() for e in cited], **declined, **overview})
        return ChatResult(generations=[ChatGeneration(message=message)])
