"""The load benchmark's clients: one kind per server, each speaking that server's own protocol the
way another program would (the MCP SDK, the LangGraph SDK, Gradio's client). A client keeps one
conversation (thread) about one video; ``ask`` sends one question and says whether it was answered,
``kept_questions`` reads the thread back for the check that follows the load.

Every call has a time limit; nothing here loops on its own (the caller bounds the loops).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass
from pathlib import Path

REQUEST_TIMEOUT_S = 120.0  # one question under load; past this it counts as an error


class AskFailed(Exception):
    """A question that came back without an answer (an error reply, a timeout, a dropped connection)."""


@dataclass(frozen=True)
class Target:
    """A running server: which kind, where, and the folder its cache lives in (read after it stops)."""

    kind: str  # "mcp" | "langgraph" | "page"
    url: str
    cache: Path


class McpClient:
    """Streamable HTTP at /mcp: the ``ask`` tool with a thread name of this client's own."""

    def __init__(self, target: Target, video: Path, thread: str):
        self.video, self.thread, self.cache = video, thread, target.cache
        self._url = target.url.rstrip("/") + "/mcp"
        self._loop = asyncio.new_event_loop()
        self._runner = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner.start()
        self._client = self._call(self._open())

    def _call(self, coroutine, timeout: float = REQUEST_TIMEOUT_S):
        return asyncio.run_coroutine_threadsafe(asyncio.wait_for(coroutine, timeout), self._loop).result(timeout + 5)

    async def _open(self):
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        self._http = httpx2.AsyncClient(timeout=REQUEST_TIMEOUT_S)
        client = Client(streamable_http_client(self._url, http_client=self._http))
        await client.__aenter__()
        return client

    def call_tool(self, name: str, arguments: dict) -> dict:
        """One tool call; its JSON result, or AskFailed with the server's message."""
        result = self._call(self._client.call_tool(name, arguments))
        if result.is_error:
            raise AskFailed(_text_of(result))
        return result.structured_content or {}

    def ask(self, question: str) -> None:
        answered = self.call_tool("ask", {"video": str(self.video), "question": question, "thread": self.thread})
        if not answered.get("answer"):
            raise AskFailed("no answer")

    def index(self, video: Path) -> None:
        result = self._call(self._client.call_tool("index", {"video": str(video)}), timeout=600)
        if result.is_error:
            raise AskFailed(_text_of(result))

    def kept_questions(self) -> list[str]:
        return stored_questions(self.cache, self.video, self.thread)

    def close(self) -> None:
        async def shut():
            await self._client.__aexit__(None, None, None)
            await self._http.aclose()

        with contextlib.suppress(Exception):  # the server may be gone already: nothing to close then
            self._call(shut(), timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._runner.join(5)


def _text_of(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)[:300] or "no answer"


class LangGraphClient:
    """The LangGraph server's HTTP API (langgraph_sdk): a thread the server makes and names (the
    name given is not used), one run per question."""

    def __init__(self, target: Target, video: Path, thread: str | None):
        from langgraph_sdk import get_sync_client

        self.video = video
        self._client = get_sync_client(url=target.url, timeout=REQUEST_TIMEOUT_S)
        self.thread = self._client.threads.create()["thread_id"]

    def ask(self, question: str) -> None:
        out = self._client.runs.wait(self.thread, "staragent", input={"messages": [{"role": "user", "content": question}]},
                                     context={"video": str(self.video), "profile": "offline"}, raise_error=True)
        messages = (out.get("messages") or []) if isinstance(out, dict) else []
        if not messages or messages[-1].get("type") != "ai" or not messages[-1].get("content"):
            raise AskFailed(str(out)[:300])

    def index(self, video: Path) -> None:
        """The server opens (and indexes) a video on its first question about it."""
        self.video = video
        self.ask("What is this video about?")

    def kept_questions(self) -> list[str]:
        state = self._client.threads.get_state(self.thread)
        return [str(m["content"]) for m in (state.get("values") or {}).get("messages", []) if m.get("type") == "human"]

    def close(self) -> None:
        self._client.http.client.close()


class PageClient:
    """The page's own endpoint (Gradio's queue), as the page's script drives it: load, pick the
    video, then submit questions with the chat so far; the thread is the one the server picked."""

    def __init__(self, target: Target, video: Path, thread: str | None):
        import httpx
        from gradio_client import Client

        self.video, self.thread, self.cache = video, None, target.cache
        self._client = Client(target.url, verbose=False, httpx_kwargs={"timeout": httpx.Timeout(REQUEST_TIMEOUT_S)})
        self._client.predict(api_name="/on_load")
        self._open(video)
        self._history: list = []

    def _open(self, video: Path) -> None:
        status = self._client.submit(str(video), api_name="/open_video").result(timeout=600)[1]
        if 'data-state="ready"' not in status:
            raise AskFailed(f"the video did not open: {status[:300]}")

    def ask(self, question: str) -> None:
        _, history, threads = self._client.submit(question, self._history, api_name="/ask").result(timeout=REQUEST_TIMEOUT_S)
        last = history[-1] if history else {}
        said = " ".join(c.get("text", "") for c in last.get("content") or [] if isinstance(c, dict))
        if last.get("role") != "assistant" or "sa-answer" not in said:
            raise AskFailed(said[:300] or "no answer")
        self._history, self.thread = history, (threads or {}).get("value") or self.thread

    def index(self, video: Path) -> None:
        self.video = video
        self._open(video)

    def resume(self, thread: str) -> None:
        """Pick a kept conversation in the page's list: the next question continues it."""
        self._history = self._client.submit(thread, api_name="/resume").result(timeout=REQUEST_TIMEOUT_S)
        self.thread = thread

    def kept_questions(self) -> list[str]:
        return stored_questions(self.cache, self.video, self.thread) if self.thread else []

    def close(self) -> None:
        self._client.close()


def stored_questions(cache: Path, video: Path, thread: str) -> list[str]:
    """The questions of a thread's finished turns as the conversation store keeps them (read after
    the server has stopped, as a restarted server would)."""
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings

    with VideoAgent(load_settings(cache_dir=cache, progress=False)) as agent:
        return [question for question, _ in agent.turns(video, thread)]


def open_client(target: Target, video: Path, thread: str):
    if target.kind == "mcp":
        return McpClient(target, video, thread)
    if target.kind == "langgraph":
        return LangGraphClient(target, video, thread)
    if target.kind == "page":
        return PageClient(target, video, thread)
    raise ValueError(f"no client for a {target.kind!r} server")
