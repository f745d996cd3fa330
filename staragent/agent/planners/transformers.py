"""The ``transformers`` planner: a local Hugging Face causal LM (Qwen3-4B by default) as a LangChain
chat model with tool calling, so the agent graph runs with it exactly as with the rule planner or an
OpenAI-compatible endpoint.

Tools are rendered by the model's own chat template (``apply_chat_template(..., tools=...)``), with
control tokens in messages encoded as plain text (a slide cannot smuggle ``<|im_start|>`` into
the prompt). The reply is parsed by ``tool_calls.parse_tool_calls``. The weights live in the
ModelPool under the role ``chat`` (``models.chat_engine.LocalChatEngine``): every conversation shares
one resident copy, and generation takes turns on it. The chat model asks the pool for the engine on
every call instead of keeping it, so that the pool's memory budget can unload it between calls.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from ...config import Settings
from ...models.chat_engine import LocalChatEngine
from .tool_calls import as_written, parse_tool_calls


def template_messages(messages: list[BaseMessage]) -> list[dict]:
    """LangChain messages as the ``role``/``content`` dicts chat templates expect (OpenAI shape).
    A call the model wrote but that could not be read goes back into its turn as the text it was
    (``as_written``), so that the model sees the mistake the error that follows is about."""
    out: list[dict] = []
    for m in messages:
        content = m.content if isinstance(m.content, str) else " ".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in m.content
        )
        if isinstance(m, SystemMessage):
            out.append({"role": "system", "content": content})
        elif isinstance(m, HumanMessage):
            out.append({"role": "user", "content": content})
        elif isinstance(m, AIMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": as_written(content, m.invalid_tool_calls)}
            if m.tool_calls:
                entry["tool_calls"] = [
                    {"id": c.get("id"), "type": "function", "function": {"name": c["name"], "arguments": c["args"]}} for c in m.tool_calls
                ]
            out.append(entry)
        elif isinstance(m, ToolMessage):
            out.append({"role": "tool", "content": content, "tool_call_id": m.tool_call_id, "name": m.name})
        else:
            out.append({"role": getattr(m, "role", "user"), "content": content})
    return out


class TransformersChatModel(BaseChatModel):
    """A LangChain chat model over a ``LocalChatEngine``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    pool: Any = Field(exclude=True)
    role: str = "chat"
    """the pool role of the engine"""
    model_name: str = ""
    tools: list[dict] = Field(default_factory=list)
    max_new_tokens: int = 1024
    temperature: float = 0.0
    thinking: bool = False

    @property
    def _llm_type(self) -> str:
        return "staragent-transformers"

    @property
    def engine(self) -> LocalChatEngine:
        """The resident engine (loaded again if the pool unloaded it)."""
        return self.pool.get(self.role)

    @property
    def _identifying_params(self) -> dict:
        return {"model_name": self.model_name, "temperature": self.temperature, "thinking": self.thinking}

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        """A copy that shows ``tools`` (OpenAI function specs, LangChain tools or pydantic models)."""
        from langchain_core.utils.function_calling import convert_to_openai_tool

        return self.model_copy(update={"tools": [convert_to_openai_tool(t) for t in tools]})

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs) -> ChatResult:
        text, prompt_tokens, new_tokens = self.engine.generate(
            template_messages(messages),
            self.tools or None,
            max_new_tokens=kwargs.get("max_tokens", self.max_new_tokens),
            temperature=kwargs.get("temperature", self.temperature),
            thinking=self.thinking,
            stop=stop,
        )
        parsed = parse_tool_calls(text)
        message = AIMessage(
            content=parsed.content,
            tool_calls=parsed.tool_calls,
            invalid_tool_calls=parsed.invalid_tool_calls,
            usage_metadata={"input_tokens": prompt_tokens, "output_tokens": new_tokens, "total_tokens": prompt_tokens + new_tokens},
            response_metadata={"model_name": self.model_name, "reasoning": parsed.reasoning, "raw": text},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def load_transformers_chat(settings: Settings, pool=None, *, model: str | None = None, **options) -> TransformersChatModel:
    """The ``transformers`` chat backend; the weights come from (and stay in) ``pool``. The settings'
    chat model (``planner.model``) is the pool role ``chat``; another one (a judge, or a local model
    asked for where the settings choose none) gets its own role, ``chat:<model>``. The weights are
    loaded here, so that missing ones are reported now, not at the first question."""
    from ...models.pool import ModelPool
    from ...models.specs import chat_spec, chosen_backend, role_spec

    pool = pool if pool is not None else ModelPool(settings)
    model = model or settings.planner.model
    role = "chat" if model == settings.planner.model and chosen_backend(settings, "chat") == "transformers" else f"chat:{model}"
    if not pool.has(role):
        pool.register(role_spec("chat") if role == "chat" else chat_spec(model))
    pool.get(role)
    return pool_chat_model(pool, settings, role, model_name=model, **options)


def pool_chat_model(pool, settings: Settings, role: str = "chat", *, model_name: str | None = None, **options) -> TransformersChatModel:
    """A LangChain chat model over the engine ``pool`` holds as ``role``, decoding as the planner
    settings say unless ``options`` say otherwise."""
    planner = settings.planner
    return TransformersChatModel(
        pool=pool,
        role=role,
        model_name=model_name or planner.model,
        max_new_tokens=options.pop("max_tokens", planner.max_tokens),
        temperature=options.pop("temperature", planner.temperature),
        thinking=options.pop("thinking", planner.thinking),
        **options,
    )
