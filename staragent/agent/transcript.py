"""The transcript: every finished turn of a kept conversation, whole, beside its graph state.

A thread's state keeps its last few turns whole and earlier ones as question and answer
(``compaction``), so reading a thread back (the page's past turns, ``VideoAgent.turns``) comes from
here: one row per turn in ``chats.sqlite``, its question and the ``Answer`` as the asker got it
(the evidence with its texts, the tool calls). A turn's row is written in the transaction that
prunes the thread's older checkpoints (``threads.prune``), once the turn's state is saved.

A thread an older staragent wrote has no rows: its state holds every turn whole, and ``from_state``
reads them from it, for reading back and to fill the transcript before a new question compacts them.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import BaseMessage, ToolMessage

from ..schema import Answer, Evidence, TrajectoryStep
from .compaction import final_answer, is_compact, split_turns
from .state import is_question

TABLE = "staragent_turns"


@dataclass(frozen=True)
class KeptTurn:
    """One finished turn: the question, and the answer as it was given."""

    question: str
    answer: Answer


def setup(conn) -> None:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {TABLE} (thread_id TEXT NOT NULL, turn INTEGER NOT NULL, question TEXT NOT NULL, "
        "answer TEXT NOT NULL, PRIMARY KEY (thread_id, turn))"
    )
    conn.commit()


def count(cur, thread: str) -> int:
    return cur.execute(f"SELECT count(*) FROM {TABLE} WHERE thread_id = ?", (thread,)).fetchone()[0]


def read(cur, thread: str) -> list[KeptTurn]:
    rows = cur.execute(f"SELECT question, answer FROM {TABLE} WHERE thread_id = ? ORDER BY turn", (thread,)).fetchall()
    return [KeptTurn(question, Answer.model_validate_json(answer)) for question, answer in rows]


def write(cur, thread: str, first: int, turns: list[KeptTurn]) -> None:
    """``turns`` as the thread's turns ``first``, ``first + 1``, ... (0-based)."""
    cur.executemany(
        f"INSERT OR REPLACE INTO {TABLE} (thread_id, turn, question, answer) VALUES (?, ?, ?, ?)",
        [(thread, first + n, t.question, t.answer.model_dump_json()) for n, t in enumerate(turns)],
    )


def forget(cur, thread: str) -> None:
    cur.execute(f"DELETE FROM {TABLE} WHERE thread_id = ?", (thread,))


def finished(messages: list[BaseMessage]) -> list[list[BaseMessage]]:
    """The turns of ``messages`` that were answered, in order."""
    return [t for t in split_turns(messages) if is_question(t[0]) and final_answer(t) is not None]


def from_state(values: dict, **fields) -> list[KeptTurn]:
    """The finished turns a thread's state holds, read from its messages: whole for a turn kept
    whole, the answer's text alone for a compacted one. ``fields``: the answers' other fields
    (``video``, ``profile``, ``thread_id``)."""
    from ..models.chat_engine import strip_reasoning
    from .citations import cited

    turns = finished(values.get("messages") or [])
    # The trajectory channel ends with the last turn's steps (an older staragent's holds every turn's):
    # they are handed out from the last turn back, as many as each turn has tool results.
    trajectory = [TrajectoryStep(**s) for s in values.get("trajectory") or []]
    end = len(trajectory)
    out: list[KeptTurn] = []
    for turn in reversed(turns):
        answer = final_answer(turn)
        text = strip_reasoning(answer.text)[0]
        steps = sum(isinstance(m, ToolMessage) for m in turn)
        start = max(0, end - steps)
        taken, end = trajectory[start:end], start
        gathered = [Evidence(**e) for m in turn if isinstance(m, ToolMessage) for e in (m.artifact or {}).get("evidence", [])]
        evidence = [] if is_compact(turn) else cited(answer, gathered, text)
        out.append(KeptTurn(turn[0].text, Answer(answer=text, evidence=evidence, trajectory=taken, **fields)))
    return out[::-1]
