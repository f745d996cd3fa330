"""A small model's answer, read in one call by the reading core's LLM reader.

The rules plan and make the retrieval calls (``guide``); then, instead of a turn of tool planning
with every schema in the prompt (about a minute an answer on 2 cores), the model reads once: the
question, about a dozen numbered lines (those the rules' answer rests on first, then the core's
ranking) and the rules' answer as a first reading to keep or correct. The system prompt never
changes, so the server keeps it cached.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from ..qa import Answer
from ..qa.core import read_frame
from ..qa.lines import LinePool, pool_of
from ..qa.rank import rank
from ..qa.read import ChatReply, LLMReader
from ..qa.retrieve import signals
from ..schema import Evidence, TokenUsage

READER_MAX_TOKENS = 160
"""the reply is a JSON object with a short answer and a few numbers"""
LEADING = 6
"""most of the rules' lines shown first"""

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}


def model_chat(model, max_tokens: int = READER_MAX_TOKENS):
    """A ``ChatFn`` over a LangChain chat model: OpenAI-style messages in, the reply and its tokens out."""
    bound = model.bind(max_tokens=max_tokens)

    def chat(messages: list[dict]) -> ChatReply:
        reply = bound.invoke([_ROLES[m["role"]](m["content"]) for m in messages])
        usage = getattr(reply, "usage_metadata", None) or {}
        tokens = TokenUsage(input=usage.get("input_tokens", 0), output=usage.get("output_tokens", 0)) if usage else None
        return ChatReply(reply.text, tokens)

    return chat


def as_pool_lines(evidence: list[Evidence], pool: LinePool) -> list[Evidence]:
    """Evidence from tool results as the pool's own lines (with their ids and headings) where the
    pool holds them; the rest keep their text under a fresh id."""
    by_key = {(e.modality, round(e.start, 1), " ".join(e.text.split())): e for e in pool.lines}
    out = []
    for n, e in enumerate(evidence, 1):
        line = by_key.get((e.modality, round(e.start, 1), " ".join(e.text.split())))
        out.append(line or e.model_copy(update={"id": e.id or f"t{n}"}))
    return list({e.id: e for e in out}.values())


def read_for_model(model, index, question: str, *, previous: str | None = None, leading: list[Evidence] = (), first_reading: str | None = None,
                   encoders: dict | None = None) -> Answer:
    """``question`` answered by ``model`` reading ``leading`` then the reading core's ranked lines,
    and ``first_reading`` (the rules' answer) to keep or correct."""
    pool = pool_of(index)
    frame = read_frame(pool, question, previous=previous)
    ranking = rank(frame, pool, signals(index, pool, frame, encoders or {}))
    return LLMReader(model_chat(model)).read(ranking, pool, leading=as_pool_lines(list(leading)[:LEADING], pool), first_reading=first_reading)
