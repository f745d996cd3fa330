"""VideoAgent: the Python API behind ``staragent ask`` and ``staragent chat``.

    agent = VideoAgent()                              # offline profile by default
    answer = agent.ask("talk.mp4", "What does the slide say the price is?")
    chat = agent.chat("talk.mp4")                     # multi-turn, kept in SQLite under a thread id
    chat.ask("Who is the designer?"); chat.ask("And what did she say after that?")
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from ..config import Settings, load_settings
from ..errors import InputError
from ..schema import Answer, Evidence, TokenUsage, TrajectoryStep
from .session import Session, open_session

CHAT_DB = "chats.sqlite"


def select_evidence(answer: str, evidence: list[Evidence], limit: int = 5) -> list[Evidence]:
    """For planners that do not say what they cite: the gathered evidence the answer echoes."""
    from ..index.text import tokenize

    said = set(tokenize(answer))
    scored = []
    seen = set()
    for e in evidence:
        if e.key() in seen:
            continue
        seen.add(e.key())
        toks = set(tokenize(e.text))
        shared = len(said & toks)
        if toks and (shared >= 2 or shared / len(toks) >= 0.5):
            scored.append((shared / len(toks), e))
    scored.sort(key=lambda x: -x[0])
    return sorted((e for _, e in scored[:limit]), key=lambda e: e.start)


def _history_messages(history: list[dict] | None) -> list:
    from langchain_core.messages import AIMessage, HumanMessage

    out = []
    for turn in history or []:
        role, content = turn.get("role"), str(turn.get("content", ""))
        if role == "user":
            out.append(HumanMessage(content))
        elif role == "assistant":
            out.append(AIMessage(content))
    return out


class VideoAgent:
    def __init__(
        self, settings: Settings | None = None, *, chat_model=None, tools: list[str] | None = None, report=None, pool=None, **overrides: Any
    ):
        """``pool``: a ModelPool to share with others (its owner unloads it); by default the agent
        makes its own on first use and unloads it on ``close``."""
        self.settings = settings or load_settings(**overrides)
        self._chat_model = chat_model
        self._tools = tools
        self._report = report
        self._pool = pool
        self._owns_pool = False
        self._sessions: dict[str, Session] = {}
        self._saver = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------ building blocks
    @property
    def pool(self):
        if self._pool is None:
            from ..models.pool import ModelPool

            self._pool, self._owns_pool = ModelPool(self.settings), True
        return self._pool

    def loaded_models(self) -> list[dict]:
        """The expert models resident in this agent's pool: backend, device, memory (``ModelPool.report``)."""
        return self._pool.report() if self._pool is not None else []

    def index(self, video: str | Path, force: bool = False):
        from ..index.builder import build_index

        return build_index(video, self.settings, self.pool, force=force, report=self._report)

    def session(self, video: str | Path) -> Session:
        key = str(Path(video).resolve())
        with self._lock:
            if key not in self._sessions:
                self._sessions[key] = open_session(
                    video, self.settings, pool=self.pool, chat_model=self._chat_model, tools=self._tools, report=self._report
                )
            return self._sessions[key]

    def search(self, video: str | Path, query: str, modalities=None, k: int | None = None):
        from ..index.search import cross_modal_search

        session = self.session(video)
        return cross_modal_search(
            session.index, query, modalities, self.settings.search_k if k is None else k, rrf_k=self.settings.rrf_k, encoders=session.tool_ctx.extras.get("query_encoders")
        )

    def _checkpointer(self):
        if self._saver is None:
            from langgraph.checkpoint.sqlite import SqliteSaver

            self.settings.cache_dir.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.settings.cache_dir / CHAT_DB), check_same_thread=False)
            self._saver = SqliteSaver(conn)
        return self._saver

    # ------------------------------------------------------------ asking
    def ask(
        self,
        video: str | Path | None,
        question: str,
        *,
        thread_id: str | None = None,
        history: list[dict] | None = None,
        session: Session | None = None,
    ) -> Answer:
        """Answer one question. With ``thread_id`` the conversation is kept (see ``chat``);
        ``history`` gives earlier turns explicitly (``[{"role": "user"|"assistant", "content": ...}]``);
        ``session`` replaces the video's own session (the benchmark's simulated tools use it)."""
        from langchain_core.messages import HumanMessage

        from .graph import AgentContext, build_graph

        if not question or not question.strip():
            raise InputError("the question is empty; ask something about the video")
        session = session or self.session(video)
        started = time.perf_counter()
        checkpointer = self._checkpointer() if thread_id else None
        graph = build_graph(checkpointer)
        scope = session.index.dir.name if session.index is not None else "no-video"
        config = {"configurable": {"thread_id": f"{scope}/{thread_id}"}} if thread_id else {}
        config["recursion_limit"] = 4 * self.settings.max_steps + 10
        before = graph.get_state(config).values if thread_id else {}
        offsets = {key: len(before.get(key, [])) for key in ("trajectory", "evidence", "usage")}
        state = graph.invoke(
            {"messages": [*_history_messages(history), HumanMessage(question.strip())], "steps": 0},
            config,
            context=AgentContext(session=session),
        )
        return self._answer(session, state, offsets, time.perf_counter() - started, thread_id)

    def _answer(self, session: Session, state: dict, offsets: dict, seconds: float, thread_id: str | None) -> Answer:
        from ..models.chat_engine import strip_reasoning

        final = state["messages"][-1]
        text = strip_reasoning(str(final.content))[0] or "I could not produce an answer."
        gathered = [Evidence(**e) for e in state.get("evidence", [])[offsets["evidence"] :]]
        cited = (getattr(final, "response_metadata", None) or {}).get("evidence")
        evidence = [Evidence(**e) for e in cited] if cited is not None else select_evidence(text, gathered)
        usage = state.get("usage", [])[offsets["usage"] :]
        return Answer(
            answer=text,
            evidence=evidence,
            trajectory=[TrajectoryStep(**s) for s in state.get("trajectory", [])[offsets["trajectory"] :]],
            video=str(session.index.video_path) if session.index is not None else "",
            profile=self.settings.profile,
            thread_id=thread_id,
            latency_s=round(seconds, 3),
            tokens=TokenUsage(input=sum(u.get("input", 0) for u in usage), output=sum(u.get("output", 0) for u in usage)),
        )

    def chat(self, video: str | Path, thread_id: str | None = None) -> Conversation:
        return Conversation(self, video, thread_id or uuid.uuid4().hex[:12])

    def close(self) -> None:
        """Close the conversation store and unload the models this agent loaded (a pool handed to
        it stays as it is: its owner unloads it)."""
        if self._saver is not None:
            self._saver.conn.close()
            self._saver = None
        if self._pool is not None and self._owns_pool:
            self._pool.unload()

    def __enter__(self) -> VideoAgent:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Conversation:
    """A multi-turn conversation about one video; its turns persist under ``thread_id``."""

    def __init__(self, agent: VideoAgent, video: str | Path, thread_id: str):
        self.agent = agent
        self.video = video
        self.thread_id = thread_id

    def ask(self, question: str) -> Answer:
        return self.agent.ask(self.video, question, thread_id=self.thread_id)
