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
    base_url, key = openai_endpoint(settings)
    return OpenAICompatibleChat(
        model=options.pop("model", None) or openai_model(settings),
        base_url=base_url,
        api_key=key or "not-needed",
        temperature=options.pop("temperature", planner.temperature),
        max_tokens=options.pop("max_tokens", planner.max_tokens),
        **options,
    )


def openai_endpoint(settings: Settings) -> tuple[str | None, str | None]:
    """The endpoint and key of the openai backend: the configured URL; else OpenAI itself when there
    is a key; else the local server ``staragent llm serve`` starts by default."""
    from ...models.llm_server import DEFAULT_HOST, DEFAULT_PORT, base_url

    key = settings.planner.api_key or os.environ.get("OPENAI_API_KEY")
    if settings.planner.base_url:
        return settings.planner.base_url, key
    return (None, key) if key else (base_url(DEFAULT_HOST, DEFAULT_PORT), None)


def openai_model(settings: Settings) -> str:
    """The model to ask at the openai endpoint: ``planner.openai_model``; unset, OpenAI's small
    model there, else the one model the server lists (asked once per endpoint)."""
    if settings.planner.openai_model:
        return settings.planner.openai_model
    url, _ = openai_endpoint(settings)
    if url is None:
        return "gpt-4o-mini"
    from .openai import served_models

    models = served_models(url)
    if len(models) != 1:
        raise ConfigError(f"the server at {url} serves {len(models)} models ({', '.join(models[:8])}); choose one with STARAGENT_PLANNER__OPENAI_MODEL")
    return models[0]
