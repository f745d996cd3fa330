"""Reading tool calls out of what a local model wrote.

Small models are sloppy, so this accepts what they actually produce:

- Hermes / Qwen blocks ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, several in a
  row, the last one possibly unclosed (generation stopped at the end token), holding a list or
  several objects; a ``<tool_call>`` merely mentioned in prose is not a call;
- ``<function=name>{...}</function>`` (Llama 3.1 style) and ``[TOOL_CALLS] [{...}]`` (Mistral);
- a fenced ```json block or a bare JSON object that has a ``name`` and ``arguments``;
- reasoning in a ``<think>…</think>`` block that opens the reply is dropped (``LocalChatEngine`` puts
  back the opening tag when the prompt wrote it);
- JSON with trailing commas, single quotes (with JSON's or Python's literals), comments, or
  missing closing brackets is repaired; ``arguments`` given as a JSON string is decoded.

What cannot be read becomes an *invalid* call with the error, so the caller can send the error back
to the model (the agent graph does) instead of taking the text around it for an answer.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from ...models.chat_engine import strip_reasoning

# A block opens where <tool_call> is followed by JSON, or starts a line and is closed later; a tag
# quoted in a sentence ("wrap calls in `<tool_call>`") is neither.
_TOOL_OPENER = re.compile(r"<tool_call>(?=\s*[\[{])|^[ \t]*<tool_call>(?=.*?</tool_call>)", re.S | re.M)
_TOOL_CLOSER = "</tool_call>"
_NAME_FIELD = re.compile(r"""["']?name["']?\s*:\s*["']([\w.\-]+)["']""")
_JSON_LITERAL = re.compile(r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')|\b(true|false|null)\b""")
_PYTHON_LITERALS = {"true": "True", "false": "False", "null": "None"}
_FUNCTION_BLOCK = re.compile(r"<function=([\w.\-]+)>\s*(.*?)\s*(?:</function>|$)", re.S)
_MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*(.*)$", re.S)
_FENCE = re.compile(r"```(?:json|tool_call)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_COMMENT = re.compile(r"^\s*//.*$", re.M)


@dataclass
class ParsedOutput:
    content: str
    tool_calls: list[dict] = field(default_factory=list)
    """LangChain ``ToolCall`` dicts: name, args, id, type."""
    invalid_tool_calls: list[dict] = field(default_factory=list)
    """LangChain ``InvalidToolCall`` dicts: name, args (raw text), id, error, type."""
    reasoning: str = ""


def as_written(content: str, invalid_calls: list[dict]) -> str:
    """An assistant turn's text with the calls that could not be read put back as the model wrote
    them (each in a ``<tool_call>`` block), so that a model told its call was unreadable can see
    what it wrote."""
    broken = [f"<tool_call>\n{call.get('args') or ''}\n</tool_call>" for call in invalid_calls]
    return "\n".join([content, *broken] if content else broken)


def loads_lenient(raw: str) -> Any:
    """Parse JSON the way a careful reader would, repairing the usual mistakes; ``ValueError``
    when nothing sensible comes out."""
    text = raw.strip()
    if not text:
        raise ValueError("empty")
    attempts = [text]
    fixed = _TRAILING_COMMA.sub(r"\1", _COMMENT.sub("", text))
    attempts.append(fixed)
    attempts.append(_close_brackets(fixed))
    first_error = None
    for attempt in attempts:
        try:
            return json.loads(attempt)
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
        try:  # single quotes, with Python's or JSON's literals
            return ast.literal_eval(_as_python(attempt))
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            pass
    candidate = _first_object(text)
    if candidate and candidate != text:
        return loads_lenient(candidate)
    reason = f" ({first_error.msg} at character {first_error.pos})" if first_error else ""
    raise ValueError(f"not valid JSON{reason}: {text[:80]!r}")


def _as_python(text: str) -> str:
    """JSON's ``true``/``false``/``null`` outside strings as Python literals, for ``literal_eval``."""
    return _JSON_LITERAL.sub(lambda m: m.group(1) or _PYTHON_LITERALS[m.group(2)], text)


def _outside_strings(text: str) -> tuple[list[int], bool]:
    """Positions of the characters of ``text`` outside JSON strings (quotes excluded), and
    whether the text ends inside an unclosed string."""
    positions: list[int] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        else:
            positions.append(i)
    return positions, in_string


def _close_brackets(text: str) -> str:
    """Append the closing quotes and brackets a cut-off JSON value is missing."""
    positions, open_string = _outside_strings(text)
    stack: list[str] = []
    for i in positions:
        ch = text[i]
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    return text + ('"' if open_string else "") + "".join(reversed(stack))


def balance_brackets(text: str) -> str:
    """``text`` without the closing brackets that close nothing open (``{"a": [1]}}``, or ``}`` where
    ``]`` was due): the slip small models make most in nested JSON."""
    positions, _ = _outside_strings(text)
    stack: list[str] = []
    dropped: set[int] = set()
    for i in positions:
        ch = text[i]
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack[-1] != ch:
                dropped.add(i)  # closes nothing open
            else:
                stack.pop()
    return "".join(ch for i, ch in enumerate(text) if i not in dropped)


def split_values(text: str) -> list[str]:
    """The top-level JSON objects or arrays written one after another in ``text`` (the text itself
    when it holds at most one), so that a block with two calls yields both."""
    positions, _ = _outside_strings(text)
    pieces: list[str] = []
    depth, start = 0, 0
    for i in positions:
        ch = text[i]
        if ch in "{[":
            start = i if depth == 0 else start
            depth += 1
        elif ch in "}]" and depth:
            depth -= 1
            if depth == 0:
                pieces.append(text[start : i + 1])
    if depth:  # the last one was cut off
        pieces.append(text[start:])
    return pieces if len(pieces) > 1 else [text]


def _first_object(text: str) -> str | None:
    """The first balanced ``{...}`` in ``text`` (or the rest of it, from the first brace)."""
    positions, _ = _outside_strings(text)
    braces = [i for i in positions if text[i] in "{}"]
    if not braces or text[braces[0]] != "{":
        start = text.find("{")
        return text[start:] if start >= 0 else None
    depth = 0
    for i in braces:
        depth += 1 if text[i] == "{" else -1
        if depth == 0:
            return text[braces[0] : i + 1]
    return text[braces[0] :]


def _call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def _normalise(obj: Any, raw: str, name_hint: str | None = None) -> tuple[list[dict], list[dict]]:
    """Valid and invalid LangChain calls from one parsed JSON value."""
    if isinstance(obj, list):
        valid, invalid = [], []
        for item in obj:
            v, i = _normalise(item, json.dumps(item, ensure_ascii=False) if not isinstance(item, str) else item, name_hint)
            valid += v
            invalid += i
        return valid, invalid
    if not isinstance(obj, dict):
        return [], [_invalid(name_hint, raw, "a tool call must be a JSON object")]
    if "function" in obj and isinstance(obj["function"], dict):  # OpenAI style {"type": "function", "function": {...}}
        obj = obj["function"]
    name = obj.get("name") or obj.get("tool") or obj.get("tool_name") or name_hint
    args: Any = obj.get("arguments", obj.get("parameters", obj.get("args")))
    if name_hint and args is None and "name" not in obj:  # <function=x>{...args...}</function>
        args = obj
    if not name or not isinstance(name, str):
        return [], [_invalid(None, raw, "the tool call has no tool name")]
    if isinstance(args, str):
        try:
            args = loads_lenient(args) if args.strip() else {}
        except ValueError as exc:
            return [], [_invalid(name, raw, f"arguments are not valid JSON ({exc})")]
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return [], [_invalid(name, raw, "arguments must be a JSON object")]
    return [{"name": name, "args": args, "id": _call_id(), "type": "tool_call"}], []


def _invalid(name: str | None, raw: str, error: str) -> dict:
    return {"name": name, "args": raw, "id": _call_id(), "error": error, "type": "invalid_tool_call"}


def _parse_blocks(blocks: list[tuple[str | None, str]]) -> tuple[list[dict], list[dict]]:
    valid, invalid = [], []
    for name_hint, block in blocks:
        for raw in split_values(block) if block.strip() else [block]:
            try:
                obj = loads_lenient(raw) if raw.strip() else {}
            except ValueError as exc:
                named = _NAME_FIELD.search(raw)
                invalid.append(_invalid(name_hint or (named.group(1) if named else None), raw, str(exc)))
                continue
            v, i = _normalise(obj, raw, name_hint)
            valid += v
            invalid += i
    return valid, invalid


def _tool_blocks(text: str) -> tuple[str, list[tuple[str | None, str]]]:
    """The text outside ``<tool_call>`` blocks, and the blocks' contents. A block ends at its
    closing tag, at the next block, or at the end of the text."""
    openers = list(_TOOL_OPENER.finditer(text))
    outside, blocks, position = [], [], 0
    for k, opener in enumerate(openers):
        if opener.start() < position:
            continue
        outside.append(text[position : opener.start()])
        limit = openers[k + 1].start() if k + 1 < len(openers) else len(text)
        close = text.find(_TOOL_CLOSER, opener.end(), limit)
        body_end = close if close >= 0 else limit
        blocks.append((None, text[opener.end() : body_end].strip()))
        position = body_end + len(_TOOL_CLOSER) if close >= 0 else limit
    outside.append(text[position:])
    content = "\n".join(part.strip() for part in outside if part.strip())
    return content, blocks


def parse_tool_calls(text: str) -> ParsedOutput:
    """Split a model's raw output into visible content, tool calls and reasoning."""
    text, reasoning = strip_reasoning(text or "")
    content, blocks = _tool_blocks(text)
    if blocks:
        return ParsedOutput(content, *_parse_blocks(blocks), reasoning=reasoning)
    if "<function=" in text:
        blocks = [(m.group(1), m.group(2)) for m in _FUNCTION_BLOCK.finditer(text)]
        content = text[: text.index("<function=")].strip()
        return ParsedOutput(content, *_parse_blocks(blocks), reasoning=reasoning)
    mistral = _MISTRAL.search(text)
    if mistral:
        return ParsedOutput(text[: mistral.start()].strip(), *_parse_blocks([(None, mistral.group(1))]), reasoning=reasoning)
    for fence in _FENCE.finditer(text):
        if _looks_like_call(fence.group(1)):
            content = (text[: fence.start()] + text[fence.end() :]).strip()
            return ParsedOutput(content, *_parse_blocks([(None, fence.group(1))]), reasoning=reasoning)
    stripped = text.strip()
    if stripped.startswith(("{", "[")) and _looks_like_call(stripped):
        return ParsedOutput("", *_parse_blocks([(None, stripped)]), reasoning=reasoning)
    return ParsedOutput(text.strip(), reasoning=reasoning)


def without_calls(text: str) -> tuple[str, bool]:
    """``text`` with the tool calls (and leading reasoning) written in it removed, and whether it
    held any: what is left of a reply that had to be an answer."""
    parsed = parse_tool_calls(text)
    return parsed.content, bool(parsed.tool_calls or parsed.invalid_tool_calls)


def _looks_like_call(raw: str) -> bool:
    try:
        obj = loads_lenient(raw)
    except ValueError:
        return False
    items = obj if isinstance(obj, list) else [obj]
    return bool(items) and all(isinstance(i, dict) and ("name" in i or "function" in i) and ("arguments" in i or "parameters" in i or "function" in i) for i in items)
