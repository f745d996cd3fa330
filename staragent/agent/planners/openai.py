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

A server that is not there, dies in the middle of a reply, or answers with something that is not
an OpenAI reply is retried by the client (twice, with backoff), then reported as a
``ModelUnavailable`` naming the server and what to do, never as a traceback.
"""

from __future__ import annotations

import contextlib
import functools
import json
import urllib.error
import urllib.request
from typing import Literal

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI

from ...errors import ModelUnavailable
from .tool_calls import as_written, parse_tool_calls

START_HINT = "start it with `staragent llm serve`, or point STARAGENT_PLANNER__BASE_URL at a running server"


@functools.lru_cache(maxsize=16)
def served_models(base_url: str) -> list[str]:
    """The model ids an OpenAI-compatible server lists at ``/models`` (asked once per endpoint)."""
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=120) as reply:  # a busy server answers after its reply in progress
            listing = json.load(reply)
        return [str(m["id"]) for m in listing.get("data", [])]
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise ModelUnavailable(f"no OpenAI-compatible server answers at {base_url} ({reason}); {START_HINT}") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ModelUnavailable(f"{base_url}/models did not answer with an OpenAI model list; is it an OpenAI-compatible server?") from None


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
        with self._server_errors():
            return self._with_text_calls(super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs), kwargs)

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        with self._server_errors():
            return self._with_text_calls(await super()._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs), kwargs)

    def _stream(self, *args, **kwargs):
        with self._server_errors():
            yield from super()._stream(*args, **kwargs)

    @contextlib.contextmanager
    def _server_errors(self):
        """The client's errors (after its own retries) as one message naming the server."""
        import openai

        where = self.openai_api_base or "api.openai.com"
        try:
            yield
        except openai.APIConnectionError as exc:  # not running, refused, or the connection dropped mid-reply
            cause = exc.__cause__ or exc
            raise ModelUnavailable(f"the chat model's server at {where} did not answer ({type(cause).__name__}: {cause}); {START_HINT}") from None
        except openai.APIStatusError as exc:
            hint = "; start `staragent llm serve` with a larger --ctx" if "context" in str(exc.message).lower() else ""
            raise ModelUnavailable(f"the chat model's server at {where} refused the request ({exc.status_code}: {exc.message}){hint}") from None
        except (openai.APIResponseValidationError, json.JSONDecodeError) as exc:
            raise ModelUnavailable(f"the chat model's server at {where} sent a reply that is not an OpenAI chat completion ({exc}); is it an OpenAI-compatible server?") from None

    def _get_request_payload(self, input_, *, stop=None, **kwargs) -> dict:
        payload = super()._get_request_payload(unreadable_calls_as_text(self._convert_input(input_).to_messages()), stop=stop, **kwargs)
        for message in payload.get("messages", []):
            if message.get("role") == "assistant" and message.get("content") is None:
                message["content"] = ""  # llama.cpp's Python server refuses a null content beside tool calls
        if "max_completion_tokens" in payload and self.openai_api_base and "api.openai.com" not in self.openai_api_base:
            # OpenAI's newer name for the cap; llama.cpp's Python server knows only the old one and
            # would otherwise generate until the context is full
            payload["max_tokens"] = payload["max_completion_tokens"]
        return payload

    @staticmethod
    def _with_text_calls(result: ChatResult, kwargs: dict) -> ChatResult:
        if kwargs.get("tools"):
            for generation in result.generations:
                generation.message = read_text_tool_calls(generation.message)
        return result
