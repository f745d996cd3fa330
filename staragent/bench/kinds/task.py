"""A :class:`Task`: one kind of dataset with everything the harness needs to know about it, in one
place: how to recognise and load it, which scorers score it by default, and which agent runs it when
``bench run`` is given none. The shape follows inspect_ai's ``Task(dataset, solver, scorer)``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..sample_records import Dataset


@dataclass(frozen=True)
class AgentDefaults:
    """The agent ``bench run`` uses for this kind when ``--agent`` is not given."""

    spec: str
    simulated_tools: bool = False


@dataclass(frozen=True)
class Task:
    kind: str
    """the prefix of a dataset spec (``vdact:PATH``) and ``run.json``'s ``dataset.kind``"""
    title: str
    scorers: tuple[str, ...]
    """default scorers, in order; those with nothing to score in a dataset are left out"""
    load_rows: Callable[..., Dataset] | None = None
    """``(rows, path, **options)``: a JSON or JSON-lines file read into rows for it"""
    load: Callable[..., Dataset] | None = None
    """``(source, **options)``: the spec after the prefix, for kinds that read their file themselves"""
    options: tuple[str, ...] = ()
    """loader options besides ``name``"""
    agent: AgentDefaults | None = None
    recognise: Callable[[Path], bool] | None = None
    """whether a file without a prefix is this kind, by its name or whole content (tried first)"""
    matches_row: Callable[[dict[str, Any]], bool] | None = None
    """whether a file without a prefix is this kind, by its first row"""
    remote: bool = False
    """the source is not a local file (a hub id)"""
