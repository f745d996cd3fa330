"""Chat models named by a spec, for the harness's judges, its baseline agent and dataset generation,
and what any of them needs to read a model and its replies (text, model id, decoding settings,
endpoint).

``BACKEND[:MODEL]`` is handed to ``staragent.agent.planners.make_chat_model(settings, BACKEND, model=MODEL)``
(``openai:gpt-4o-mini``, ``transformers:Qwen/Qwen3-14B``, a local folder after ``transformers:``), so
every chat backend of the project can judge or answer. ``scripted`` is resolved by the caller (it
needs a reply function); the rule planner cannot write free text and is refused.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import InputError, ModelUnavailable

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def chat_model_from_spec(
    spec: str, settings: Any = None, *, error: type[InputError], role: str, offline: str
) -> Any:
    """A LangChain chat model for ``spec``; a problem raises ``error`` naming ``role`` (``judge``,
    ``baseline agent``) and what to do; ``offline`` names the offline alternative."""
    try:
        from ..agent.planners import make_chat_model  # imported here: chat backends are heavy and optional
    except ImportError as exc:
        raise error(
            f"cannot build the {role} {spec!r}: the chat backends (staragent.agent.planners) are not available ({exc}); "
            f"use {offline}"
        ) from None
    backend, _, model_name = spec.partition(":")  # "openai:gpt-4o-mini", "transformers:/models/qwen3"
    if backend == "rules":
        raise error(
            f"the rule planner cannot be the {role}; name a chat backend: openai[:MODEL] or transformers[:MODEL]"
        )
    try:
        if settings is None:
            from ..config import load_settings

            settings = load_settings()
        return make_chat_model(settings, backend, **({"model": model_name} if model_name else {}))
    except Exception as exc:
        raise error(f"cannot build the {role} {spec!r}: {exc}") from None


def local_snapshot(model: Any, settings: Any = None) -> str | None:
    """The Hugging Face snapshot (commit) a local ``transformers`` chat model was read from, or ``None``
    (a served model, a plain folder, or weights that cannot be found)."""
    if getattr(model, "_llm_type", "") != "staragent-transformers":
        return None
    from ..models.weights import locate

    if settings is None:  # the settings the model was built with: where its HF cache is
        from ..config import load_settings

        settings = load_settings()
    try:
        cache = settings.models.hf_cache
        folder = locate(str(model.model_name), what="judge", setting="the MODEL of transformers:MODEL", cache_dir=cache)
    except (ModelUnavailable, OSError):
        return None
    folder = folder.resolve()
    return folder.name if folder.parent.name == "snapshots" else None


def message_text(message: Any) -> str:
    """Text of a LangChain message (content may be a string or a list of parts)."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") in (None, "text"):
                parts.append(str(part.get("text", "")))
        return "".join(parts)
    return str(content or "")


def model_id_of(model: Any) -> str:
    for attr in ("model_name", "model", "model_id", "repo_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


# What changes a reply besides the prompt: sampling settings, Qwen3's thinking switch (transformers),
# and what an OpenAI-compatible client adds to each request (``model_kwargs``, ``extra_body``, ...).
DECODING_FIELDS = (
    "temperature", "top_p", "top_k", "max_tokens", "max_completion_tokens", "max_new_tokens", "seed", "thinking",
    "frequency_penalty", "presence_penalty", "reasoning_effort", "reasoning", "stop", "n", "model_kwargs", "extra_body",
)  # fmt: skip


def decoding_of(model: Any) -> dict[str, Any]:
    """The model's decoding settings and request options that are set (empty options left out)."""
    out = {}
    for attr in DECODING_FIELDS:
        value = getattr(model, attr, None)
        if isinstance(value, (int, float, str, bool)) or (isinstance(value, (dict, list, tuple)) and value):
            out[attr] = list(value) if isinstance(value, tuple) else value
    return out


def endpoint_of(model: Any) -> str | None:
    """The base URL the model is served from (``ChatOpenAI`` keeps it as ``openai_api_base``), or ``None``."""
    for attr in ("openai_api_base", "base_url"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


def strip_think(text: str) -> str:
    """Drop ``<think>...</think>`` blocks and anything before an orphan ``</think>``."""
    text = _THINK.sub("", text or "")
    if "</think>" in text.lower():
        text = text[text.lower().rfind("</think>") + len("</think>") :]
    return text.strip()
