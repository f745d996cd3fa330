"""Prompt templates live beside this file as Markdown/Jinja; ``render(name, **vars)`` fills one."""

from __future__ import annotations

import functools
from pathlib import Path

_DIR = Path(__file__).parent


@functools.lru_cache(maxsize=1)
def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_DIR)), undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False
    )


def names() -> list[str]:
    return sorted(p.stem for p in _DIR.glob("*.md"))


def render(name: str, **variables) -> str:
    """Render ``prompts/<name>.md`` with ``variables`` (a missing variable is an error)."""
    return _environment().get_template(f"{name}.md").render(**variables).strip()
