"""The one path every LLM judge call takes: an on-disk cache, retries with backoff, bounded concurrency.

Cache key: the judge's model id and revision, the endpoint it is served from, the rendered prompt, and
the decoding settings (with the extra request options and Qwen3's thinking switch). Only
replies that parse are cached; an empty or unparsable reply is retried and, if it never parses, the call
is returned as failed (``ok=False``) and never cached.

The identity also records what the server says it ran: the model name and ``system_fingerprint`` of
the replies' metadata (OpenAI-compatible servers report both), kept with each cached reply too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from ...fsutil import read_json, stable_hash, write_json
from ..chat import message_text, strip_think


class JudgeIdentity(BaseModel):
    """Who judged: written into every score row, part of every cache key."""

    kind: str = Field(description="llm | scripted | heuristic")
    model_id: str
    revision: str | None = None
    decoding: dict[str, Any] = Field(default_factory=dict)
    endpoint: str | None = Field(default=None, description="the server's base URL (OpenAI-compatible judges)")
    spec: str = ""
    served_models: list[str] = Field(default_factory=list, description="model names the server reported")
    system_fingerprints: list[str] = Field(default_factory=list, description="system fingerprints the server reported")

    @property
    def tag(self) -> str:
        """Names the scores of this judge: kind, model, revision, endpoint host and decoding settings, so
        the same model at another temperature (or with thinking on) scores into rows of its own."""
        # "heuristic-keyfacts-1", not "heuristic-heuristic-keyfacts-1": the kind once
        name = self.model_id if self.model_id.startswith(self.kind) else f"{self.kind}-{self.model_id}"
        parts = [name] + ([self.revision] if self.revision else [])
        if self.endpoint:
            parts.append("at_" + (urlsplit(self.endpoint).netloc or self.endpoint))
        parts += [f"{key}{_tag_value(value)}" for key, value in sorted(self.decoding.items())]
        return "-".join(p.replace("/", "_").replace(":", "_") for p in parts)

    def observe(self, metadata: dict[str, Any] | None) -> None:
        """Note the model name and system fingerprint a reply's metadata reports."""
        metadata = metadata or {}
        for field, seen in (("model_name", self.served_models), ("system_fingerprint", self.system_fingerprints)):
            value = metadata.get(field)
            if isinstance(value, str) and value and value not in seen:
                seen.append(value)


def _tag_value(value: Any) -> str:
    """A decoding value in a tag: scalars as they are, request options (dicts, lists) by a short hash."""
    return str(value) if isinstance(value, (int, float, str, bool)) else stable_hash(value, length=8)


class JudgeCall(BaseModel):
    """The outcome of one judge call: the parsed value when ``ok``, the raw reply, and how it went."""

    ok: bool
    value: Any = None
    reply: str = ""
    error: str | None = None
    attempts: int = 0
    cached: bool = False
    key: str | None = None
    latency_s: float = 0.0


def _served(message: Any) -> dict[str, Any]:
    """The model name and system fingerprint in a reply's metadata (empty when it reports none)."""
    metadata = getattr(message, "response_metadata", None) or {}
    return {k: metadata[k] for k in ("model_name", "system_fingerprint") if isinstance(metadata.get(k), str) and metadata[k]}


class JudgeClient:
    """Calls a LangChain chat model as a judge. Thread-safe; ``max_concurrency`` bounds the calls in
    flight across threads."""

    def __init__(
        self,
        model: Any,
        identity: JudgeIdentity,
        cache_dir: str | Path | None = None,
        *,
        max_retries: int = 2,
        backoff_s: float = 1.0,
        max_concurrency: int = 4,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.model = model
        self.identity = identity
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.max_retries = max(0, int(max_retries))
        self.backoff_s = backoff_s
        self.sleep = sleep
        self._slots = threading.BoundedSemaphore(max(1, int(max_concurrency)))
        self._stats_lock = threading.Lock()
        self.stats = {"calls": 0, "cache_hits": 0, "model_calls": 0, "failures": 0, "retries": 0}

    def cache_key(self, prompt: str) -> str:
        key = {
            "model_id": self.identity.model_id,
            "revision": self.identity.revision,
            "prompt": prompt,
            "decoding": self.identity.decoding,
        }
        if self.identity.endpoint:  # only when known, so that earlier cache entries stay valid
            key["endpoint"] = self.identity.endpoint
        return stable_hash(key, length=32)

    def _cache_path(self, key: str) -> Path | None:
        return self.cache_dir / key[:2] / f"{key}.json" if self.cache_dir else None

    def _observe(self, served: dict[str, Any] | None) -> None:
        with self._stats_lock:
            self.identity.observe(served)

    def _bump(self, name: str, n: int = 1) -> None:
        with self._stats_lock:
            self.stats[name] += n

    def ask(self, prompt: str, parse: Callable[[str], Any]) -> JudgeCall:
        """Send ``prompt``; return the parsed reply (``parse`` returns ``None`` for an unusable reply)."""
        self._bump("calls")
        key = self.cache_key(prompt)
        path = self._cache_path(key)
        if path is not None and path.is_file():
            try:
                cached = read_json(path)
                reply = cached["reply"]
                value = parse(reply)
            except (OSError, ValueError, KeyError):
                value = None
            if value is not None:
                self._observe(cached.get("served"))
                self._bump("cache_hits")
                return JudgeCall(ok=True, value=value, reply=reply, attempts=0, cached=True, key=key)
        from langchain_core.messages import HumanMessage

        reply, error, attempts = "", None, 0
        t0 = time.perf_counter()
        for attempt in range(self.max_retries + 1):
            attempts = attempt + 1
            if attempt:
                self._bump("retries")
                self.sleep(self.backoff_s * (2 ** (attempt - 1)))
            try:
                with self._slots:
                    self._bump("model_calls")
                    message = self.model.invoke([HumanMessage(content=prompt)])
                reply = strip_think(message_text(message))
                served = _served(message)
                self._observe(served)
            except Exception as exc:  # a backend error: retry, then record
                error = f"{type(exc).__name__}: {exc}"
                continue
            if not reply.strip():
                error = "empty reply"
                continue
            value = parse(reply)
            if value is None:
                error = "reply could not be parsed"
                continue
            if path is not None:
                write_json(path, {"reply": reply, "identity": self.identity.model_dump(), "key": key, "served": served})
            return JudgeCall(
                ok=True, value=value, reply=reply, attempts=attempts, key=key, latency_s=time.perf_counter() - t0
            )
        self._bump("failures")
        return JudgeCall(
            ok=False, reply=reply, error=error, attempts=attempts, key=key, latency_s=time.perf_counter() - t0
        )
