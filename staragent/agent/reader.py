"""A small model's answer, read in one call by the reading core's LLM reader.

The rules plan and make the retrieval calls (``guide``); then, instead of a turn of tool planning
with every schema in the prompt (about a minute an answer on 2 cores), the model reads once: the
question, about a dozen numbered lines (those the rules' answer rests on first, then the core's
ranking) and the rules' answer as a first reading to keep or correct. The system prompt never
changes, so the server keeps it cached.
"""

from __future__ import annotations

from langchain_core.messages import convert_to_messages

from ..qa import Answer, read_question
from ..qa.read import ChatReply, LLMReader
from ..schema import Evidence, TokenUsage

READER_MAX_TOKENS = 160
"""the reply is a JSON object with a short answer and a few numbers"""
LEADING = 6
"""most of the rules' lines shown first"""


def model_chat(model, max_tokens: int = READER_MAX_TOKENS):
    """A ``ChatFn`` over a LangChain chat model: OpenAI-style messages in, the reply and its tokens out."""
    bound = model.bind(max_tokens=max_tokens)

    def chat(messages: list[dict]) -> ChatReply:
        reply = bound.invoke(convert_to_messages(messages))
        return ChatReply(reply.text, TokenUsage.of(getattr(reply, "usage_metadata", None)))

    return chat


def read_for_model(model, index, question: str, *, previous: str | None = None, leading: list[Evidence] = (), first_reading: str | None = None,
                   encoders: dict | None = None, min_confidence: float = 0.0) -> Answer:
    """``question`` answered by ``model`` reading ``leading`` then the reading core's ranked lines,
    and ``first_reading`` (the rules' answer) to keep or correct; not asked when the core's ranking is
    less sure than ``min_confidence``."""
    reader = LLMReader(model_chat(model), leading=list(leading)[:LEADING], first_reading=first_reading, min_confidence=min_confidence)
    return read_question(index, question, previous=previous, encoders=encoders or {}, reader=reader).answer
