"""The one path every call to the dataset's writer model takes: a prompt in, a validated pydantic
object out.

- The reply is read leniently (a ``<think>`` block dropped, a fenced or slightly broken JSON object
  repaired, stray closing brackets dropped) and validated with the stage's pydantic model, whose validators also check it against the
  video (span labels that exist, tool calls the tools accept, ...).
- An unusable reply is sent back to the model with the problem (``datagen_retry`` prompt), at most
  ``max_retries`` times, sampled at ``RETRY_TEMPERATURE`` (a small model decoding greedily writes the
  same reply again, whatever it is told); then the item is given up and counted as a failure. Rejected
  replies are kept with their problem in ``rejected.jsonl`` beside the cache.
- A backend that does not answer (server down, timeout) is retried with backoff, then stops the run
  with a message saying what to start or change: a dead server is not a bad item.
- Each parsed reply is cached on disk under a key of the writer's identity and the prompt, so a killed
  run asks again only what it had not finished.
- Tokens come from the replies' ``usage_metadata``; a backend that reports none is counted by an
  estimate (4 characters a token), and the usage says so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..agent.planners.tool_calls import balance_brackets, loads_lenient
from ..bench.chat import decoding_of, endpoint_of, message_text, model_id_of
from ..errors import ModelUnavailable
from ..fsutil import append_jsonl, read_json, stable_hash, write_json
from ..models.chat_engine import strip_reasoning
from ..prompts import render

M = TypeVar("M", bound=BaseModel)
CHARS_PER_TOKEN = 4
RETRY_TEMPERATURE = 0.7


class Usage(BaseModel):
    """What one stage (or a whole run) cost."""

    calls: int = 0
    cached: int = 0
    retries: int = 0
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_tokens: bool = False
    seconds: float = 0.0

    def add(self, other: Usage) -> Usage:
        data = {k: getattr(self, k) + getattr(other, k) for k in ("calls", "cached", "retries", "failures", "input_tokens", "output_tokens", "seconds")}
        return Usage(**data, estimated_tokens=self.estimated_tokens or other.estimated_tokens)


class WriterError(ModelUnavailable):
    """The writer model cannot be reached or built."""


def writer_identity(model: Any, spec: str) -> dict[str, Any]:
    """Who writes: part of every cache key and stage fingerprint, and recorded in the dataset."""
    return {"spec": spec, "model_id": model_id_of(model), "decoding": decoding_of(model), "endpoint": endpoint_of(model)}


def describe_errors(exc: Exception) -> str:
    """A validation error as a few short lines a model can act on."""
    if isinstance(exc, ValidationError):
        lines = []
        for err in exc.errors()[:6]:
            where = ".".join(str(p) for p in err.get("loc", ()))
            msg = str(err.get("msg", "")).removeprefix("Value error, ")
            lines.append(f"{where}: {msg}" if where else msg)
        return "; ".join(lines)
    return str(exc)


def _coerce(obj: Any, reply_model: type[BaseModel]) -> Any:
    """A bare list where the reply model holds one list field: wrap it in that field."""
    if isinstance(obj, list):
        fields = [name for name, f in reply_model.model_fields.items() if f.is_required()]
        if len(fields) == 1:
            return {fields[0]: obj}
    return obj


def _json_body(text: str) -> str:
    """From the first ``{`` to the last ``}``: the object a reply holds, without fences or prose."""
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def _where(body: str) -> str:
    """Where strict JSON parsing stops, with the text around it, for the model to fix."""
    import json

    try:
        json.loads(body)
    except json.JSONDecodeError as exc:
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}, near {body[max(0, exc.pos - 40) : exc.pos + 20]!r}"
    return "it is not one JSON object"


def parse_reply(text: str, reply_model: type[M], context: dict[str, Any] | None = None) -> M:
    """The reply as ``reply_model``; ``ValueError`` / ``ValidationError`` saying what is wrong."""
    body = strip_reasoning(text or "")[0]
    if not body.strip():
        raise ValueError("the reply was empty")
    try:
        obj = loads_lenient(body)
    except ValueError:
        try:
            obj = loads_lenient(balance_brackets(_json_body(body)))
        except ValueError:
            raise ValueError(f"the reply is not valid JSON: {_where(_json_body(body))}") from None
    obj = _coerce(obj, reply_model)
    if not isinstance(obj, dict):
        raise ValueError(f"the reply must be a JSON object, not {type(obj).__name__}")
    return reply_model.model_validate(obj, context=context or {})


class Writer:
    """Calls a LangChain chat model for structured replies (see the module docstring). Thread-safe."""

    def __init__(
        self,
        model: Any,
        identity: dict[str, Any],
        cache_dir: str | Path | None = None,
        *,
        max_retries: int = 2,
        transport_retries: int = 2,
        backoff_s: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.model = model
        self.identity = identity
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.max_retries = max(0, int(max_retries))
        self.transport_retries = max(0, int(transport_retries))
        self.backoff_s = backoff_s
        self.sleep = sleep
        self._lock = threading.Lock()

    def _note_rejected(self, key: str, reply_model: type[BaseModel], attempt: int, reply: str, error: str) -> None:
        """Keep each rejected reply and why (``rejected.jsonl`` beside the cache), for tuning prompts."""
        if self.cache_dir is not None:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            row = {"key": key, "stage_reply": reply_model.__name__, "attempt": attempt + 1, "error": error, "reply": reply}
            append_jsonl(self.cache_dir / "rejected.jsonl", row)

    def key(self, prompt: str, reply_model: type[BaseModel]) -> str:
        return stable_hash({"writer": self.identity, "prompt": prompt, "reply": reply_model.__name__}, length=32)

    def _cache_path(self, key: str) -> Path | None:
        return self.cache_dir / key[:2] / f"{key}.json" if self.cache_dir else None

    def _count(self, usage: Usage, **changes: Any) -> None:
        with self._lock:
            for name, value in changes.items():
                if name == "estimated_tokens":
                    usage.estimated_tokens = usage.estimated_tokens or value
                else:
                    setattr(usage, name, getattr(usage, name) + value)

    def _invoke(self, messages: list[Any], **options: Any) -> Any:
        """One model call, retrying a backend that does not answer; a lasting failure stops the run."""
        for attempt in range(self.transport_retries + 1):
            try:
                return self.model.invoke(messages, **options)
            except Exception as exc:  # the backend itself failed: not the reply's fault
                if attempt == self.transport_retries:
                    where = f" at {self.identity['endpoint']}" if self.identity.get("endpoint") else ""
                    raise WriterError(
                        f"the dataset writer {self.identity['spec']!r}{where} did not answer ({type(exc).__name__}: {exc}); "
                        "start the server (e.g. `staragent llm serve`) or pass another --model; finished work is kept"
                    ) from None
                self.sleep(self.backoff_s * (2**attempt))
        raise AssertionError("unreachable")

    def _tokens(self, usage: Usage, messages: list[Any], reply: Any, text: str) -> None:
        meta = getattr(reply, "usage_metadata", None) or {}
        if meta.get("input_tokens") or meta.get("output_tokens"):
            self._count(usage, input_tokens=int(meta.get("input_tokens") or 0), output_tokens=int(meta.get("output_tokens") or 0))
            return
        sent = sum(len(message_text(m)) for m in messages)
        self._count(usage, input_tokens=sent // CHARS_PER_TOKEN, output_tokens=len(text) // CHARS_PER_TOKEN, estimated_tokens=True)

    def ask(self, prompt: str, reply_model: type[M], usage: Usage, context: dict[str, Any] | None = None) -> tuple[M | None, str | None]:
        """``(value, None)``, or ``(None, what was wrong with the last reply)`` after the retries."""
        key = self.key(prompt, reply_model)
        path = self._cache_path(key)
        if path is not None and path.is_file():
            try:
                value = parse_reply(read_json(path)["reply"], reply_model, context)
            except (OSError, KeyError, ValueError, ValidationError):
                value = None  # a reply the current checks reject: ask again
            if value is not None:
                self._count(usage, cached=1)
                return value, None
        from langchain_core.messages import AIMessage, HumanMessage

        messages: list[Any] = [HumanMessage(content=prompt)]
        error = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._count(usage, retries=1)
            self._count(usage, calls=1)
            reply = self._invoke(messages, **({"temperature": RETRY_TEMPERATURE} if attempt else {}))
            text = message_text(reply)
            self._tokens(usage, messages, reply, text)
            try:
                value = parse_reply(text, reply_model, context)
            except (ValueError, ValidationError) as exc:
                error = describe_errors(exc)
                self._note_rejected(key, reply_model, attempt, text, error)
                messages += [AIMessage(content=text), HumanMessage(content=render("datagen_retry", error=error))]
                continue
            if path is not None:
                write_json(path, {"reply": text, "key": key, "writer": self.identity, "attempts": attempt + 1})
            return value, None
        self._count(usage, failures=1)
        return None, error
