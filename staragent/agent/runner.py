"""VideoAgent: the Python API behind ``staragent ask`` and ``staragent chat``.

    agent = VideoAgent()                              # offline profile by default
    answer = agent.ask("talk.mp4", "What does the slide say the price is?")
    chat = agent.chat("talk.mp4")                     # multi-turn, kept in SQLite under a thread id
    chat.ask("Who is the designer?"); chat.ask("And what did she say after that?")
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Settings, load_settings
from ..errors import InputError
from ..faults import marker
from ..limits import (
    MAX_NAME_CHARS,
    MAX_QUERY_CHARS,
    MAX_QUESTION_CHARS,
    MAX_SEARCH_RESULTS,
    check_path,
    check_text,
)
from ..schema import Answer, Evidence, TokenUsage, TrajectoryStep
from .citations import cited
from .session import Session, open_session

CHAT_DB = "chats.sqlite"


def with_time(answer: str, evidence: list[Evidence]) -> str:
    """A language model's answer that names no time, with the time of the evidence it echoes most
    appended, so that every answer says when (the times come from tool results, never the model)."""
    from ..index.text import tokenize
    from ..timecodes import format_range, times_in_text

    if not evidence or times_in_text(answer):
        return answer
    said = set(tokenize(answer))

    def echoed(e: Evidence) -> tuple:  # how many of its words the answer repeats, then what share, then the tighter span
        words = set(tokenize(e.text))
        return (len(said & words), len(said & words) / len(words) if words else 0.0, -(e.end - e.start))

    best = max(evidence, key=echoed)
    return f"{answer.rstrip()} ({format_range(best.start, best.end)})"


@dataclass
class ToolStarted:
    """The planner called a tool; it is running."""

    call_id: str
    tool: str
    args: dict[str, Any]


@dataclass
class ToolFinished:
    """A tool call ended (or was answered from the conversation's memory)."""

    call_id: str
    step: TrajectoryStep


@dataclass
class Answered:
    """The turn's answer: always the last event of ``VideoAgent.stream``."""

    answer: Answer


AgentEvent = ToolStarted | ToolFinished | Answered


@dataclass
class ThreadInfo:
    """A kept conversation about one video: its id (as given to ``ask``), its first question, how
    many questions it holds and when it last changed (ISO 8601, UTC)."""

    thread_id: str
    title: str
    turns: int
    updated: str


def _thread_config(session: Session, thread_id: str) -> dict:
    """Threads are namespaced by the video's index: one name cannot mix two videos' conversations."""
    return {"configurable": {"thread_id": f"{_scope(session)}/{thread_id}"}}


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


def check_question(question: str, thread_id: str | None = None) -> None:
    """Refuse a question or a conversation name no one could mean before any work is done: the
    work of a turn grows with the question's length."""
    if not isinstance(question, str) or not question.strip():
        raise InputError("the question is empty; ask something about the video")
    check_text(question, "the question", MAX_QUESTION_CHARS, "ask it in fewer words")
    if thread_id is not None:
        check_text(str(thread_id), "the conversation's name (thread)", MAX_NAME_CHARS, "pick a shorter name")


def check_query(query: str, k: int | None) -> None:
    """Refuse a search no one could mean before the video is opened."""
    if not isinstance(query, str) or not query.strip():
        raise InputError("the search query is empty; say what to look for")
    check_text(query, "the search query", MAX_QUERY_CHARS, "search for a few words")
    if k is not None and not 1 <= k <= MAX_SEARCH_RESULTS:
        raise InputError(f"k (the number of results) must be between 1 and {MAX_SEARCH_RESULTS}, not {k}")


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
        self._opening: dict[str, threading.Lock] = {}
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

    def session(self, video: str | Path, report=None) -> Session:
        """The video's session, opened (and its index built) once: callers asking about the same
        video at the same time wait for one build instead of starting their own; other videos
        are not held up. ``report`` hears the build's progress when this call is the one building."""
        # checked first: realpath raises on a NUL (a symlink loop is reported by the index's input check)
        key = os.path.realpath(check_path(video))
        with self._lock:
            if key in self._sessions:
                return self._sessions[key]
            gate = self._opening.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                if key in self._sessions:
                    return self._sessions[key]
            session = open_session(
                video, self.settings, pool=self.pool, chat_model=self._chat_model, tools=self._tools, report=report or self._report
            )
            with self._lock:
                self._sessions[key] = session
                self._opening.pop(key, None)
            return session

    def prepare(self, video: str | Path, report=None) -> Session:
        """Open the video's session and load what a first question needs besides (the graph, the
        search structures, the overview model's parser and vocabulary, the conversation store), so
        that the first answer comes at once."""
        from . import graph  # noqa: F401 - imported for its cost, paid here rather than by the first question

        session = self.session(video, report=report)
        self.search(video, "video", k=1)
        session.asks_summary("video")  # the overview model reads every question: its parser, the video's words
        self._checkpointer()
        return session

    def opened(self, video: str | Path) -> bool:
        """Whether the video's session is open (its index built and loaded)."""
        with self._lock:
            return os.path.realpath(video) in self._sessions

    def search(self, video: str | Path, query: str, modalities=None, k: int | None = None):
        from ..index.hybrid_search import cross_modal_search

        check_query(query, k)
        session = self.session(video)
        return cross_modal_search(
            session.index, query, modalities, self.settings.search_k if k is None else k, rrf_k=self.settings.rrf_k, encoders=session.tool_ctx.extras.get("query_encoders")
        )

    def _checkpointer(self):
        if self._saver is None:
            from .threads import open_store

            self._saver = open_store(self.settings.cache_dir / CHAT_DB)
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
        ``history`` gives earlier turns explicitly (``[{"role": "user"|"assistant", "content": ...}]``;
        not with a thread, which keeps its own);
        ``session`` replaces the video's own session (the benchmark's simulated tools use it)."""
        for event in self.stream(video, question, thread_id=thread_id, history=history, session=session):
            if isinstance(event, Answered):
                return event.answer
        raise AssertionError("the agent's stream ended without an answer")

    def stream(
        self,
        video: str | Path | None,
        question: str,
        *,
        thread_id: str | None = None,
        history: list[dict] | None = None,
        session: Session | None = None,
    ) -> Iterator[AgentEvent]:
        """``ask``, step by step: a ``ToolStarted`` when a tool call begins, a ``ToolFinished``
        when it ends, and last the ``Answered`` turn."""
        from langchain_core.messages import HumanMessage

        from .graph import AgentContext, build_graph
        from .threads import DURABILITY, prune, recorded_count, repair, store_room, unrecorded
        from .transcript import KeptTurn

        check_question(question, thread_id)
        if thread_id and history:
            raise InputError("pass either a thread or the earlier turns (history), not both: a thread keeps its own earlier turns")
        session = session or self.session(video)
        started = time.perf_counter()
        checkpointer = self._checkpointer() if thread_id else None
        graph = build_graph(checkpointer)
        config = _thread_config(session, thread_id) if thread_id else {}
        if thread_id:  # kept with the thread's checkpoint: lets ``threads`` list the conversations of a video
            config["metadata"] = {"video_scope": _scope(session)}
        config["recursion_limit"] = 4 * self.settings.max_steps + 10
        marker("turn.start")
        # a full disk under the store: one clear error, and the thread as it was before this turn
        with store_room(self.settings.cache_dir / CHAT_DB) if thread_id else contextlib.nullcontext():
            state, recorded, missing = {}, 0, []
            if thread_id:
                repair(graph, checkpointer, config)  # a turn cut short earlier leaves no half of itself behind
                recorded = recorded_count(checkpointer, config)
                # finished turns the transcript lacks (a thread an older staragent wrote): kept whole before this turn compacts them
                missing = unrecorded(graph.get_state(config).values, recorded, **self._answer_fields(session, thread_id))
            inputs = {"messages": [*_history_messages(history), HumanMessage(question.strip())], "steps": 0}
            durability = {"durability": DURABILITY} if thread_id else {}
            stream = graph.stream(inputs, config, context=AgentContext(session=session), stream_mode=["custom", "values"], **durability)
            for mode, chunk in stream:
                if mode == "values":
                    state = chunk
                elif chunk.get("event") == "tool_started":
                    yield ToolStarted(call_id=chunk["id"], tool=chunk["tool"], args=chunk["args"])
                elif chunk.get("event") == "tool_finished":
                    yield ToolFinished(call_id=chunk["id"], step=TrajectoryStep(**chunk["step"]))
            answer = self._answer(session, state, time.perf_counter() - started, thread_id)
            if thread_id:
                prune(checkpointer, config, recorded, [*missing, KeptTurn(question.strip(), answer)])
        yield Answered(answer)

    def _answer_fields(self, session: Session, thread_id: str | None) -> dict:
        """The fields every answer in a thread shares."""
        video = str(session.index.video_path) if session.index is not None else ""
        return {"video": video, "profile": self.settings.profile, "thread_id": thread_id}

    def _answer(self, session: Session, state: dict, seconds: float, thread_id: str | None) -> Answer:
        """The turn's answer from the state it ended with (``trajectory``, ``evidence`` and ``usage``
        hold this turn's only: see ``compaction``)."""
        from ..models.chat_engine import strip_reasoning

        final = state["messages"][-1]
        text = strip_reasoning(str(final.content))[0] or "I could not produce an answer."
        gathered = [Evidence(**e) for e in state.get("evidence", [])]
        evidence = cited(final, gathered, text)
        if session.checks_answers:
            text = with_time(text, evidence)
        usage = state.get("usage", [])
        return Answer(
            answer=text,
            evidence=evidence,
            trajectory=[TrajectoryStep(**s) for s in state.get("trajectory", [])],
            **self._answer_fields(session, thread_id),
            latency_s=round(seconds, 3),
            tokens=TokenUsage(input=sum(u.get("input", 0) for u in usage), output=sum(u.get("output", 0) for u in usage)),
        )

    # ------------------------------------------------------------ kept conversations
    def threads(self, video: str | Path) -> list[ThreadInfo]:
        """The conversations kept about ``video``, the most recently changed first. The store keeps
        a thread's latest state only: its first question and its number of questions come from it."""
        from .state import is_question

        scope = _scope(self.session(video))
        found: dict[str, ThreadInfo] = {}
        for item in self._checkpointer().list(None, filter={"video_scope": scope}):
            thread_id = item.config["configurable"]["thread_id"].removeprefix(f"{scope}/")
            if thread_id in found:  # listed newest first
                continue
            questions = [m.text for m in item.checkpoint["channel_values"].get("messages", []) if is_question(m)]
            found[thread_id] = ThreadInfo(thread_id, (questions[0] if questions else "")[:200], len(questions), item.checkpoint["ts"])
        return sorted(found.values(), key=lambda t: t.updated, reverse=True)

    def turns(self, video: str | Path, thread_id: str) -> list[tuple[str, Answer]]:
        """The questions and answers of a kept conversation's finished turns, in order, each answer
        as it was given, with its evidence and the tool calls that led to it (a turn cut short is left
        out). They come from the store's transcript (``transcript``): the thread's state keeps only its
        last turns whole."""
        from .graph import build_graph
        from .threads import kept_turns

        session = self.session(video)
        config = _thread_config(session, thread_id)
        kept = kept_turns(build_graph(self._checkpointer()), self._checkpointer(), config, **self._answer_fields(session, thread_id))
        return [(turn.question, turn.answer) for turn in kept]

    def thread_history(self, video: str | Path, thread_id: str) -> list[dict]:
        """The questions and answers of the finished turns of a conversation (see ``Conversation.history``)."""
        return [turn for question, answer in self.turns(video, thread_id)
                for turn in ({"role": "user", "content": question}, {"role": "assistant", "content": answer.answer})]

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


def _scope(session: Session) -> str:
    """Conversations are kept per video (its index directory): one thread name can be reused for another video."""
    return session.index.dir.name if session.index is not None else "no-video"


class Conversation:
    """A multi-turn conversation about one video; its turns persist under ``thread_id``."""

    def __init__(self, agent: VideoAgent, video: str | Path, thread_id: str):
        self.agent = agent
        self.video = video
        self.thread_id = thread_id

    def ask(self, question: str) -> Answer:
        return self.agent.ask(self.video, question, thread_id=self.thread_id)

    def history(self) -> list[dict]:
        """The finished turns so far, ``[{"role": "user"|"assistant", "content": ...}]`` (a turn cut
        short is not among them: the next question drops it)."""
        return self.agent.thread_history(self.video, self.thread_id)
