"""The LangGraph server's conversation store (``langgraph.json`` names ``checkpointer``): SQLite on
disk beside the index cache (``server_chats.sqlite``), each thread's latest checkpoint only.

``langgraph dev`` otherwise keeps every checkpoint of every thread in the process (its in-memory
runtime writes one a step, each with the messages so far): its memory grew with every turn any client
asked (docs/performance.md, Load). The server loads a custom checkpointer from the path named in
``langgraph.json`` (``checkpointer.path``, alpha in langgraph-api; used by ``langgraph dev`` since the
in-memory runtime asks ``langgraph_api._checkpointer`` for its saver). The server's thread records and
runs stay in its own runtime; the states are here. Reading a thread's history through the server
shows its latest state only, as ``staragent``'s own store does.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from staragent.agent.threads import OLDER_CHECKPOINTS  # absolute: the server loads this file by path

SERVER_DB = "server_chats.sqlite"


class LatestOnlySaver(AsyncSqliteSaver):
    """``AsyncSqliteSaver`` that keeps a thread's newest checkpoint, and the writes pending on it."""

    async def aput(self, config, checkpoint, metadata, new_versions):
        stored = await super().aput(config, checkpoint, metadata, new_versions)
        kept = stored["configurable"]
        await self._drop_older(kept["thread_id"], kept["checkpoint_ns"], kept["checkpoint_id"])
        return stored

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """What the server's sweeper asks for: each thread is kept pruned already; ``delete_all``
        deletes it."""
        if strategy != "keep_latest":
            for thread in thread_ids:
                await self.adelete_thread(str(thread))

    async def _drop_older(self, thread: str, ns: str, newest: str) -> None:
        async with self.lock:
            for statement in OLDER_CHECKPOINTS:
                await self.conn.execute(statement, (str(thread), ns, newest))
            await self.conn.commit()


@contextlib.asynccontextmanager
async def checkpointer() -> AsyncIterator[LatestOnlySaver]:
    """The store, opened for the server's lifetime (the folder is ``STARAGENT_CACHE_DIR``'s)."""
    import aiosqlite

    from staragent.config import load_settings

    path = load_settings().cache_dir / SERVER_DB
    path.parent.mkdir(parents=True, exist_ok=True)
    async with aiosqlite.connect(str(path)) as conn:
        saver = LatestOnlySaver(conn)
        await saver.setup()
        yield saver
