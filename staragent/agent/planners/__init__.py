"""The planners the agent graph can run with (the same backends judge benchmark answers): one
factory, three kinds, each a LangChain chat model that replies with tool calls or an answer.

- ``rules``: the offline rule planner (no weights, no network).
- ``openai``: any OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp server, hosted APIs); tool
  calls a server returns as text are read too (``openai``, ``tool_calls``).
- ``transformers``: a local Hugging Face model with tool calling (Qwen3-4B by default).
"""

from __future__ import annotations

import os

from ...config import Settings
from ...errors import ConfigError, ModelUnavailable

BACKENDS = ("rules", "openai", "transformers")


def make_chat_model(settings: Settings, backend: str | None = None, *, pool=None, **options):
    """A LangChain chat model for ``backend`` (default: the profile's planner backend). A local
    ``transformers`` model is loaded into ``pool`` (role ``chat``) and stays resident there."""
    backend = backend or settings.planner_backend
    if backend == "rules":
        from .rules import RulePlanner

        return RulePlanner(**options)
    if backend == "openai":
        return _openai(settings, **options)
    if backend == "transformers":
        from .transformers import load_transformers_chat

        return load_transformers_chat(settings, pool=pool, **options)
    raise ConfigError(f"unknown chat backend {backend!r}; choose one of {', '.join(BACKENDS)}")


def _openai(settings: Settings, **options):
    try:
        from .openai import OpenAICompatibleChat
    except ImportError:
        raise ModelUnavailable("the openai backend needs the langchain-openai package: pip install langchain-openai") from None
    planner = settings.planner
    key = planner.api_key or os.environ.get("OPENAI_API_KEY")
    if not planner.base_url and not key:
        raise ModelUnavailable(
            "the openai backend needs an endpoint: set STARAGENT_PLANNER__BASE_URL (e.g. http://localhost:8000/v1 for vLLM) "
            "and, for hosted APIs, STARAGENT_PLANNER__API_KEY or OPENAI_API_KEY"
        )
    return OpenAICompatibleChat(
        model=options.pop("model", planner.openai_model),
        base_url=planner.base_url,
        api_key=key or "not-needed",
        temperature=options.pop("temperature", planner.temperature),
        max_tokens=options.pop("max_tokens", planner.max_tokens),
        **options,
    )
