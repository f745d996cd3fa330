"""Chat models named by a spec, for the harness's judges and its baseline agent.

``BACKEND[:MODEL]`` is handed to ``staragent.agent.planners.make_chat_model(settings, BACKEND, model=MODEL)``
(``openai:gpt-4o-mini``, ``transformers:Qwen/Qwen3-14B``, a local folder after ``transformers:``), so
every chat backend of the project can judge or answer. ``scripted`` is resolved by the caller (it
needs a reply function); the rule planner cannot write free text and is refused.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError, ModelUnavailable


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
