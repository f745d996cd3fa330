"""What a conversation carries from turn to turn: the last few turns whole, earlier ones as their
question and answer.

Each turn loads its thread's latest state, and that state used to hold every tool result of every
turn four times over (the ToolMessage's text and its artifact, the tool memory, the evidence list):
on the load benchmark's questions it grew by about 25 kB a turn, 1 MB after 40 turns, and a server's
memory followed the longest threads it was answering (docs/design.md, Load). The graph's first
node, ``begin_turn``, now bounds it before the planner runs:

- the last ``FULL_TURNS`` finished turns stay as they happened (calls, results, evidence): a
  follow-up reads the turn before it whole, and a language model sees its recent tool results;
- an earlier turn keeps its question and its answer's text, with the times the answer cited
  (``CITED_TIMES``), which the answer checks of ``grounding`` count as support; its calls, their
  results and any answer sent back for a retry are dropped;
- the tool memory keeps the calls of the turns kept whole (an older call is run again);
- ``trajectory``, ``evidence``, ``usage`` and ``steps`` start empty: they hold the turn's own.

The rule planner reads of an earlier turn only its question and answer, and of the last turn what it
cited, so its answers do not change. The whole history of a kept thread is in the store's transcript
(``transcript``).
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.types import Overwrite

from ..schema import Evidence
from .state import AgentState, call_key, is_question

FULL_TURNS = 3
"""finished turns kept whole; the turn before a follow-up is always among them"""
CITED_TIMES = "staragent_cited_times"
"""``response_metadata`` key of a compacted answer: ``[[start, end], ...]`` of the evidence it cited"""


def split_turns(messages: list[BaseMessage]) -> list[list[BaseMessage]]:
    """The messages grouped by turn, each group opening with a question of the user's (messages
    before the first question, if any, form a group of their own)."""
    turns: list[list[BaseMessage]] = []
    for m in messages:
        if is_question(m) or not turns:
            turns.append([m])
        else:
            turns[-1].append(m)
    return turns


def final_answer(turn: list[BaseMessage]) -> AIMessage | None:
    """The answer that ends a turn; None for a turn cut short."""
    last = turn[-1]
    return last if isinstance(last, AIMessage) and not last.tool_calls and not last.invalid_tool_calls else None


def is_compact(turn: list[BaseMessage]) -> bool:
    answer = final_answer(turn)
    return answer is not None and CITED_TIMES in answer.response_metadata


def compact(turn: list[BaseMessage]) -> list[BaseMessage]:
    """A finished turn as its question and its answer with the times it cited. A turn without an
    answer (cut short, on a server that does not repair threads) is left as it is."""
    from ..models.chat_engine import strip_reasoning
    from .citations import cited

    answer = final_answer(turn)
    if answer is None or not is_question(turn[0]) or is_compact(turn):
        return turn
    gathered = [Evidence(**e) for m in turn if isinstance(m, ToolMessage) for e in (m.artifact or {}).get("evidence", [])]
    times = [[round(e.start, 2), round(e.end, 2)] for e in cited(answer, gathered, strip_reasoning(answer.text)[0])]
    return [turn[0], AIMessage(content=answer.content, id=answer.id, response_metadata={CITED_TIMES: times})]


def begin_turn(state: AgentState) -> dict:
    """The graph's first node: the state a new question starts from (see the module's notes)."""
    turns = split_turns(state.get("messages") or [])
    update: dict = {"trajectory": Overwrite([]), "evidence": Overwrite([]), "usage": Overwrite([]), "steps": 0}
    finished = turns[:-1]  # the last group is the question just asked
    older, whole = finished[:-FULL_TURNS], finished[-FULL_TURNS:]
    compacted = [compact(t) for t in older]
    if any(c is not t for c, t in zip(compacted, older, strict=True)):
        update["messages"] = Overwrite([m for t in [*compacted, *whole, *turns[-1:]] for m in t])
    memory = state.get("tool_memory") or {}
    kept = {call_key(c["name"], c["args"]) for t in whole for m in t if isinstance(m, AIMessage) for c in m.tool_calls}
    if set(memory) - kept:
        update["tool_memory"] = Overwrite({key: stored for key, stored in memory.items() if key in kept})
    return update


def spans(messages: list[BaseMessage]) -> list[dict[str, float]]:
    """Where tools found something in the conversation as the state holds it: the evidence of the
    turns kept whole (this one included), and the times the earlier answers cited."""
    out = []
    for m in messages:
        if isinstance(m, ToolMessage):
            out += [{"start": e["start"], "end": e["end"]} for e in (m.artifact or {}).get("evidence", [])]
        elif isinstance(m, AIMessage):
            out += [{"start": start, "end": end} for start, end in m.response_metadata.get(CITED_TIMES, [])]
    return out
