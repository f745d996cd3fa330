"""Prompt templates as files, loaded by name.

A prompt named ``foo`` lives beside this module as ``foo.md`` (plain Markdown with Jinja2 markup) or
``foo.j2``. Templates are rendered with :class:`jinja2.StrictUndefined`, so a variable the caller
forgot raises instead of silently rendering as an empty string.

    from staragent.prompts import render
    text = render("bench_rubric_criterion", question=q, reference=r, answer=a, criterion=c)
"""

from __future__ import annotations

import functools
from pathlib import Path

from ..errors import ConfigError

PROMPT_DIR = Path(__file__).resolve().parent
SUFFIXES = (".md", ".j2", ".md.j2")


@functools.lru_cache(maxsize=1)
def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPT_DIR)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def available() -> list[str]:
    """Names of every prompt template shipped with staragent."""
    names = set()
    for path in PROMPT_DIR.iterdir():
        for suffix in SUFFIXES:
            if path.is_file() and path.name.endswith(suffix):
                names.add(path.name[: -len(suffix)])
    return sorted(names)


def path_of(name: str) -> Path:
    """The file holding prompt ``name``."""
    for suffix in SUFFIXES:
        candidate = PROMPT_DIR / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    raise ConfigError(
        f"no prompt template named {name!r} in {PROMPT_DIR}; known prompts: {', '.join(available()) or 'none'}"
    )


def source(name: str) -> str:
    """The raw template text (unrendered)."""
    return path_of(name).read_text(encoding="utf-8")


def render(name: str, **variables) -> str:
    """Render prompt ``name`` with ``variables``; a missing variable raises ``ConfigError``."""
    import jinja2

    template_file = path_of(name).name
    try:
        template = _environment().get_template(template_file)
        return template.render(**variables).strip() + "\n"
    except jinja2.UndefinedError as exc:
        raise ConfigError(f"prompt {name!r} needs a variable that was not given: {exc.message}") from None
