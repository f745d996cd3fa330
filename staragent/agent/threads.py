"""The conversation store: LangGraph's ``SqliteSaver`` over ``chats.sqlite``, kept small and whole.

SqliteSaver writes the whole graph state into every checkpoint, and the graph takes several steps
per turn, so a thread that kept every checkpoint would grow with the square of its length. Here:

- a turn is written once, when it ends (``durability="exit"``);
- after each turn the thread's older checkpoints and their pending writes are deleted, in one
  transaction (SqliteSaver has no ``prune`` of its own yet), so a thread holds its latest state
  only and grows with what that state holds;
- the write-ahead log is folded back into the database after each turn, so it does not keep megabytes
  of old pages;
- the state itself keeps the last few turns whole and earlier ones as question and answer
  (``compaction``), so it stops growing with the thread; each finished turn is written whole to the
  transcript (``transcript``) in the transaction that prunes, and reading a thread back reads that.

A turn is whole in the store or not there at all, except where a turn ended early but still wrote
its state: a Ctrl-C or an error in the middle of a turn (``exit`` saves on the way out), or a thread
written by an older staragent after every step. Before the next question, ``repair`` cuts such a
thread back to the end of its last complete turn: the unanswered question and any tool call left
without a result are dropped, together with the memory, notes and trajectory of that turn.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from ..errors import DiskFull
from ..faults import marker
from ..fsutil import out_of_space
from . import transcript
from .transcript import KeptTurn

DURABILITY = "exit"
OLDER_CHECKPOINTS = tuple(
    f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id != ?" for table in ("writes", "checkpoints")
)
"""what drops a thread's checkpoints (and their pending writes) but the one named, in SqliteSaver's tables;
the LangGraph server's store (``server_store``) prunes with it too"""


def open_store(path: Path):
    from langgraph.checkpoint.sqlite import SqliteSaver

    with store_room(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        saver = SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
        saver.setup()
        transcript.setup(saver.conn)
    return saver


@contextlib.contextmanager
def store_room(path: Path) -> Iterator[None]:
    """A full disk under the store becomes one clear error. SQLite has rolled the failed write back,
    so the thread is as it was before the turn: its earlier turns are whole."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        if out_of_space(exc, path.parent):
            raise DiskFull(
                f"no space left on the disk holding the conversations ({path.parent}): this turn could not be kept. "
                "Free some space there (or pass --cache-dir with a folder on a disk with room) and ask again; "
                "the conversation's earlier turns are kept"
            ) from None
        raise


def is_complete(values: dict) -> bool:
    """Whether a state ends a turn: no messages yet, or an answer that calls no tool."""
    from langchain_core.messages import AIMessage

    messages = values.get("messages") or []
    if not messages:
        return True
    last = messages[-1]
    return isinstance(last, AIMessage) and not last.tool_calls and not getattr(last, "invalid_tool_calls", None)


def _thread(config: dict) -> str:
    return str(config["configurable"]["thread_id"])


def _cut(graph, config: dict) -> tuple[object | None, list[str]]:
    """The thread's newest state that ends a turn (None when none does), and the checkpoints after it."""
    newer: list[str] = []
    for saved in graph.get_state_history(config):  # newest first
        if not saved.next and is_complete(saved.values):
            return saved, newer
        newer.append(saved.config["configurable"]["checkpoint_id"])
    return None, newer


def finished_state(graph, config: dict) -> dict:
    """The thread's newest state that ends a turn, empty when there is none (read only: a turn cut
    short is left out)."""
    kept, _ = _cut(graph, config)
    return dict(kept.values) if kept is not None else {}


def kept_turns(graph, saver, config: dict, **fields) -> list[KeptTurn]:
    """Every finished turn of the thread, in order: the transcript, then any finished turn of the
    state it lacks (a thread an older staragent wrote). ``fields``: see ``transcript.from_state``."""
    with saver.cursor(transaction=False) as cur:
        recorded = transcript.read(cur, _thread(config))
    return [*recorded, *unrecorded(finished_state(graph, config), len(recorded), **fields)]


def recorded_count(saver, config: dict) -> int:
    with saver.cursor(transaction=False) as cur:
        return transcript.count(cur, _thread(config))


def unrecorded(values: dict, recorded: int, **fields) -> list[KeptTurn]:
    """The finished turns of a thread's state after the ``recorded`` first ones."""
    if len(transcript.finished(values.get("messages") or [])) <= recorded:
        return []
    return transcript.from_state(values, **fields)[recorded:]


def repair(graph, saver, config: dict) -> int:
    """Cut the thread back to the end of its last complete turn (the whole thread when no turn was
    ever completed). Returns how many checkpoints were dropped."""
    kept, newer = _cut(graph, config)
    if not newer:
        return 0
    if kept is None:
        saver.delete_thread(_thread(config))
        with saver.cursor() as cur:
            transcript.forget(cur, _thread(config))
        return len(newer)
    with saver.cursor() as cur:
        for table in ("writes", "checkpoints"):
            cur.executemany(
                f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
                [(_thread(config), checkpoint_id) for checkpoint_id in newer],
            )
    return len(newer)


def prune(saver, config: dict, first: int = 0, turns: list[KeptTurn] = ()) -> None:
    """Keep only the thread's latest checkpoint and write ``turns`` to the transcript as its turns
    ``first``, ... (one transaction), then shrink the write-ahead log."""
    thread = _thread(config)
    marker("turn.saved")
    with saver.cursor() as cur:
        transcript.write(cur, thread, first, list(turns))
        cur.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
            (thread,),
        )
        row = cur.fetchone()
        if row is None:
            return
        for statement in OLDER_CHECKPOINTS:
            cur.execute(statement, (thread, "", row[0]))
    # Another process reading the store can keep the log from shrinking: it shrinks next time.
    with saver.lock, contextlib.suppress(sqlite3.OperationalError):
        saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    marker("turn.done")
