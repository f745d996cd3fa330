"""A chat model whose reply is a function of the prompt: the offline stand-in that lets the judges'
and the baseline agent's whole path (prompt, client, cache, parser) run in tests and demos."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class FunctionChatModel(BaseChatModel):
    """Answers with ``reply_fn(prompt)``, ``prompt`` being the text of the last message. Counts its calls."""

    reply_fn: Callable[[str], str]
    model_name: str = "function-chat"
    temperature: float = 0.0
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "staragent-scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls += 1
        prompt = str(messages[-1].content) if messages else ""
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply_fn(prompt)))])
