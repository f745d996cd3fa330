"""A baseline without tools: a chat model answers from a bounded text view of the video, the "LLM
over transcripts" point of comparison for the tool-using agent.

Each turn sends one prompt (``bench_baseline``) holding the video's text view — every spoken line
(transcript) and every line of text on screen, with their times, in time order, cut
after ``context_chars`` characters (the head of the video is kept; a note says the rest was cut) — the
conversation so far (the ideal history) and the question. The model makes no tool calls. The text
view comes from the video's index, built with the run's settings or found in the index cache; without
a video the model answers from the conversation alone, and the prompt says so.

``--agent baseline:CHAT_SPEC[,context_chars=N]``: ``CHAT_SPEC`` is ``scripted`` (a deterministic
stand-in for tests: it quotes the line of the text view that shares most words with the question) or a
chat backend spec (``openai:MODEL``, ``transformers:MODEL``; see :mod:`staragent.bench.chat`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ..fsutil import stable_hash
from ..prompts import render, source
from ..schema import Answer, TokenUsage
from ..timecodes import format_time
from . import text as tx
from .chat import decoding_of, message_text, model_id_of, strip_think
from .function_chat import FunctionChatModel
from .harness_errors import AgentSpecError
from .text import section

DEFAULT_CONTEXT_CHARS = 24_000  # about 6,000 tokens of English
PROMPT = "bench_baseline"


def video_text_view(index: Any, budget_chars: int) -> tuple[str, dict[str, Any]]:
    """The spoken lines and on-screen texts of an index as timed lines, in time order, cut to
    ``budget_chars`` characters; and how much of it was kept."""
    timed: list[tuple[float, str]] = [
        (line.start, f"[{format_time(line.start)}-{format_time(line.end)}] said: {line.text.strip()}")
        for line in index.speech
        if line.text.strip()
    ]
    together: dict[tuple[float, float], list[str]] = {}  # lines on screen over the same span are listed together
    for line in index.ocr_between(0.0, float("inf")):
        if line.text.strip():
            together.setdefault((line.start, line.end), []).append(line.text.strip())
    for (start, end), texts in together.items():
        timed.append((start, f"[{format_time(start)}-{format_time(end)}] on screen: {' | '.join(texts)}"))
    timed.sort(key=lambda item: item[0])
    kept: list[str] = []
    used = 0
    for _, line in timed:
        if used + len(line) + 1 > budget_chars:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept), {
        "lines": len(timed),
        "kept": len(kept),
        "chars": used,
        "truncated": len(kept) < len(timed),
    }


def scripted_baseline_reply(prompt: str) -> str:
    """The scripted stand-in's answer: the line of the text view sharing most words with the question."""
    question = set(tx.content_words(section(prompt, "Question")))
    lines = [
        line for line in section(prompt, "What the video says and shows").splitlines() if line.startswith("[")
    ]
    best = max(lines, key=lambda line: len(question & set(tx.content_words(line))), default=None)
    if best is None or not question & set(tx.content_words(best)):
        return "I cannot tell from the text of the video."
    return f"From the video: {best}"


class BaselineAgent:
    """A chat model over the video's text view; see the module docstring."""

    def __init__(
        self, chat_model: Any, *, chat_spec: str, settings: Any, context_chars: int = DEFAULT_CONTEXT_CHARS
    ):
        self.chat = chat_model
        self.chat_spec = chat_spec
        self.settings = settings
        self.context_chars = context_chars
        self.name = f"baseline-{chat_spec}"
        self._views: dict[Path, tuple[str, dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._pool = None

    def describe(self) -> dict:
        return {
            "agent": "baseline",
            "kind": "baseline",
            "chat": self.chat_spec,
            "model": model_id_of(self.chat),
            "decoding": decoding_of(self.chat),
            "context": "spoken lines and on-screen text of the video index, in time order, head kept",
            "context_chars": self.context_chars,
            "prompt": PROMPT,
            "prompt_hash": stable_hash(source(PROMPT)),
            "tools": [],
        }

    def text_view(self, video: Path) -> tuple[str, dict[str, Any]]:
        """The video's text view, indexing the video on first use (one index per video, built once)."""
        with self._lock:
            if video not in self._views:
                from ..index.builder import build_index
                from ..models.pool import ModelPool

                self._pool = self._pool or ModelPool(self.settings)
                index = build_index(video, self.settings, self._pool)
                self._views[video] = video_text_view(index, self.context_chars)
            return self._views[video]

    def respond(
        self, video: Path | None, history: list[dict], question: str, *, sample: dict, turn: int
    ) -> Answer:
        context, view = self.text_view(video) if video is not None else ("", {"truncated": False})
        prompt = render(
            PROMPT,
            context=context,
            truncated=view["truncated"],
            has_video=video is not None,
            history=history,
            question=question,
        )
        from langchain_core.messages import HumanMessage

        message = self.chat.invoke([HumanMessage(content=prompt)])
        usage = getattr(message, "usage_metadata", None) or {}
        return Answer(
            answer=strip_think(message_text(message)),
            video=str(video or ""),
            profile=self.name,
            tokens=TokenUsage(
                input=int(usage.get("input_tokens") or 0), output=int(usage.get("output_tokens") or 0)
            ),
        )


def make_baseline(chat_spec: str | None, options: dict[str, str], settings: Any = None) -> BaselineAgent:
    """The agent of ``--agent baseline:CHAT_SPEC[,context_chars=N]``."""
    if not chat_spec:
        raise AgentSpecError(
            "name the baseline's chat model: baseline:scripted, baseline:openai:MODEL or baseline:transformers:MODEL"
        )
    options = dict(options)
    try:
        context_chars = int(options.pop("context_chars", DEFAULT_CONTEXT_CHARS))
    except ValueError:
        raise AgentSpecError("baseline option context_chars must be a whole number of characters") from None
    if context_chars <= 0:
        raise AgentSpecError("baseline option context_chars must be positive")
    if options:
        raise AgentSpecError(
            f"unknown option(s) {', '.join(options)} for the baseline agent; known: context_chars"
        )
    if settings is None:
        from ..config import load_settings

        settings = load_settings()
    if chat_spec == "scripted":
        model = FunctionChatModel(reply_fn=scripted_baseline_reply, model_name="scripted-baseline")
    else:
        from .chat import chat_model_from_spec

        model = chat_model_from_spec(
            chat_spec, settings, error=AgentSpecError, role="baseline agent", offline="baseline:scripted"
        )
    return BaselineAgent(model, chat_spec=chat_spec, settings=settings, context_chars=context_chars)
