"""The ``openai`` chat backend: any OpenAI-compatible endpoint through langchain-openai.

Servers started without a tool-call parser (vLLM without ``--tool-call-parser``, llama.cpp's
server without ``--jinja``, some Ollama models) return the model's tool calls as plain text in the
reply. When tools were offered and the reply carries no structured calls, the text is read with the
same parser as the local transformers backend (``tool_calls.parse_tool_calls``), so both kinds of
server drive the agent the same way. A reply to tools is therefore never streamed (the calls can
only be read from the whole text); answers without tools are.

A call that could not be read cannot go back to the server as a call (it may have no tool name, and
its arguments are not JSON, which OpenAI and vLLM reject): the next request carries it as the text
the model wrote, and the error the agent answered it with as a user message.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI

from .tool_calls import as_written, parse_tool_calls


def read_text_tool_calls(message):
    """``message`` with the tool calls written in its text turned into real ones (unchanged when
    it has structured calls already, or its text holds none)."""
    if not isinstance(message, AIMessage) or message.tool_calls or message.invalid_tool_calls or not isinstance(message.content, str):
        return message
    parsed = parse_tool_calls(message.content)
    if not parsed.tool_calls and not parsed.invalid_tool_calls:
        return message
    metadata = {**message.response_metadata, "tool_calls_from_text": True}
    if parsed.reasoning:
        metadata["reasoning"] = parsed.reasoning
    return AIMessage(
        content=parsed.content, tool_calls=parsed.tool_calls, invalid_tool_calls=parsed.invalid_tool_calls, id=message.id,
        usage_metadata=message.usage_metadata, response_metadata=metadata, additional_kwargs=message.additional_kwargs,
    )


def unreadable_calls_as_text(messages: list) -> list:
    """``messages`` with every call that could not be read moved out of the calls of its assistant
    turn into that turn's text, and the tool message answering it turned into a user message."""
    unreadable: set[str] = set()
    out = []
    for m in messages:
        if isinstance(m, AIMessage) and m.invalid_tool_calls:
            unreadable |= {call["id"] for call in m.invalid_tool_calls}
            text = m.content if isinstance(m.content, str) else m.text
            out.append(m.model_copy(update={"content": as_written(text, m.invalid_tool_calls), "invalid_tool_calls": []}))
        elif isinstance(m, ToolMessage) and m.tool_call_id in unreadable:
            out.append(HumanMessage(m.content))
        else:
            out.append(m)
    return out


class OpenAICompatibleChat(ChatOpenAI):
    """``ChatOpenAI`` that also reads tool calls a server left in the reply's text."""

    disable_streaming: bool | Literal["tool_calling"] = "tool_calling"
    """with tools, ask for the whole reply (``_generate``) so that calls in its text can be read"""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return self._with_text_calls(super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs), kwargs)

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return self._with_text_calls(await super()._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs), kwargs)

    def _get_request_payload(self, input_, *, stop=None, **kwargs) -> dict:
        return super()._get_request_payload(unreadable_calls_as_text(self._convert_input(input_).to_messages()), stop=stop, **kwargs)

    @staticmethod
    def _with_text_calls(result: ChatResult, kwargs: dict) -> ChatResult:
        if kwargs.get("tools"):
            for generation in result.generations:
                generation.message = read_text_tool_calls(generation.message)
        return result
