"""How much staragent takes from a person or a client in one go, in one place, and the checks that
refuse more with a message stating the limit.

The bounds are far above any real question or argument; they exist because the work done on a
text grows with its length: before them, a 100 kB question to ``ask`` took 43 s and a 100 kB query
to ``cross_modal_search`` 29 s on 2 cores, and a query that was one 100 kB word did not finish in
three minutes. Every door (the command line, the MCP server, the page, the Python API) reaches them
through ``VideoAgent``, the tools' argument check (``Tool.parse_args``), the time parser and the
video resolvers, so no door keeps limits of its own."""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from typing import Any

from .errors import InputError

MAX_QUESTION_CHARS = 2000
"""a question to ``ask``, ``chat``, the page or the MCP ``ask`` tool (also ``find_answer``'s)"""
MAX_QUERY_CHARS = 2000
"""a query to ``search`` and ``cross_modal_search``, and an object to count"""
MAX_NAME_CHARS = 200
"""a conversation's name (``--thread``), a language, a modality, a tool's name"""
MAX_TIMESTAMP_CHARS = 100
"""a time or a time range as text ("01:02:03-01:02:30" is 17)"""
MAX_PATH_CHARS = 4096
"""a video's path (Linux's PATH_MAX)"""
MAX_SEARCH_RESULTS = 50
"""``k``: the stretches one search returns"""
MAX_ARGUMENTS_CHARS = 200_000
"""a tool call's arguments as JSON, all of them together: room for the longest argument a tool takes
(a 50,000-character program) with its quotes and line ends escaped; data a tool bounds itself
(``Tool.data_args``) is not counted"""
MAX_ARGUMENTS_DEPTH = 50
"""lists and objects inside each other in a tool call's arguments"""

# The tools' own arguments
MAX_WEB_QUERY_CHARS = 300
MAX_REFINE_QUESTION_CHARS = 1000
MAX_NOTE_CHARS = 2000
MAX_TRANSLATE_CHARS = 5000
MAX_SUMMARY_TEXT_CHARS = 20_000
MAX_CODE_CHARS = 50_000
MAX_EXPRESSION_CHARS = 500
MAX_CATEGORIES = 20


def quoted(text: Any, at_most: int = 60) -> str:
    """``text`` as a refusal quotes it: its repr, cut to ``at_most`` characters, with its full length
    when cut, so that a refusal never repeats a megabyte back to the person who sent it."""
    text = str(text)
    if len(text) <= at_most:
        return repr(text)
    return f"{text[:at_most]!r}... ({len(text):,} characters)"


def check_text(text: str, what: str, limit: int, fix: str = "shorten it") -> str:
    """``text`` when it is at most ``limit`` characters of valid Unicode; else an ``InputError``
    naming ``what``, its length and the limit."""
    if len(text) > limit:
        raise InputError(f"{what} is {len(text):,} characters long; the limit is {limit:,} characters: {fix}")
    if (bad := _lone_surrogate(text)) is not None:
        raise InputError(f"{what} is not valid Unicode (character {bad + 1} is half of a surrogate pair); "
                         "send it as UTF-8 text")
    return text


def check_path(path: Any, what: str = "the video's path") -> str:
    """``path`` as text when a file could have that name; else an ``InputError`` saying why. Checked
    before the file system sees it (it refuses a NUL, or half a surrogate pair that stands for no
    byte, with an exception of its own, and takes a megabyte of path without complaint). A name
    that is not UTF-8 is fine: its bytes come back as the surrogates ``os.fsencode`` turns back."""
    text = str(path)
    if len(text) > MAX_PATH_CHARS:
        raise InputError(f"{what} is {len(text):,} characters long; the limit is {MAX_PATH_CHARS:,}")
    if "\x00" in text:
        raise InputError(f"{what} holds a NUL character (\\x00), which no file name can hold")
    try:
        os.fsencode(text)
    except UnicodeEncodeError as exc:
        raise InputError(f"{what} cannot name a file: character {exc.start + 1} is half of a surrogate pair "
                         "that stands for no byte") from None
    return text


def arguments_problem(args: Any, data: Collection[str] = ()) -> str | None:
    """Why a tool call's arguments are too much to take, or None: an argument (or all of them
    together) too long as JSON, nested too deeply, or not valid Unicode. Whatever the tool, for what
    its own argument model lets through (text of any length, JSON data for a program). The size of
    the ``data`` arguments is the tool's to bound (a setting may allow more)."""
    if not isinstance(args, dict):
        return None  # not arguments at all: the tool's own check says so
    for name, value in args.items():
        if problem := _value_problem(value, sized=name not in data):
            plain = isinstance(name, str) and len(name) <= 40 and name.isprintable()
            return f"{name if plain else quoted(name, 40)}: {problem}"
    return _value_problem({k: v for k, v in args.items() if k not in data}, "all the arguments together: ")


def _value_problem(value: Any, what: str = "", sized: bool = True) -> str | None:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):  # ValueError: a list that holds itself
        text = None
    if sized and text is not None and len(text) > MAX_ARGUMENTS_CHARS:
        return f"{what}{len(text):,} characters of JSON, above the limit of {MAX_ARGUMENTS_CHARS:,}"
    if text is None or _too_deep(value):
        return f"{what}lists and objects nested more than {MAX_ARGUMENTS_DEPTH} levels deep (the limit)"
    if (bad := _lone_surrogate(text)) is not None:
        return f"{what}not valid Unicode (character {bad + 1} of its JSON is half a surrogate pair)"
    return None


def _too_deep(value: Any, level: int = 1) -> bool:
    if not isinstance(value, (dict, list, tuple)):
        return False
    if level > MAX_ARGUMENTS_DEPTH:
        return True
    children = value.values() if isinstance(value, dict) else value
    return any(_too_deep(child, level + 1) for child in children)


def _lone_surrogate(text: str) -> int | None:
    """The index of the first character UTF-8 cannot encode (half of a surrogate pair, as a broken
    byte sequence on a command line decodes to), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None
