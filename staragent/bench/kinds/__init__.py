"""Dataset kinds as tasks (:class:`~staragent.bench.kinds.task.Task`). The built-in kinds are one module
each in this package; a third-party kind is one module too, registered under the ``staragent.tasks``
entry-point group (``name = "package.module:TASK"``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from ..datasets import read_rows
from ..harness_errors import DatasetError
from ..plugins import discover
from ..sample_records import Dataset
from .task import AgentDefaults, Task

__all__ = [
    "AgentDefaults", "Task", "ENTRY_POINT_GROUP", "all_tasks", "get_task", "task_or_default", "rediscover",
    "load_dataset", "parse_dataset_options", "split_spec",
]  # fmt: skip

ENTRY_POINT_GROUP = "staragent.tasks"
DEFAULT_KIND = "starbench"

# Recognisers are tried in this order: a file's name and whole shape first, then its first row.
BUILTIN_TASKS = (
    "staragent.bench.kinds.synthetic_task:TASK",
    "staragent.bench.kinds.factqa_task:TASK",
    "staragent.bench.kinds.starbench_task:TASK",
    "staragent.bench.kinds.hf_task:TASK",
    "staragent.bench.kinds.vdact_task:TASK",
    "staragent.bench.kinds.videoautobench_task:TASK",
    "staragent.bench.kinds.giraffe_task:TASK",
)


@cache
def _registry() -> dict[str, Task]:
    return discover(BUILTIN_TASKS, ENTRY_POINT_GROUP, Task, lambda t: t.kind, "dataset kind")


def all_tasks() -> dict[str, Task]:
    return dict(_registry())


def get_task(kind: str) -> Task:
    try:
        return _registry()[kind]
    except KeyError:
        raise DatasetError(f"unknown dataset kind {kind!r}; use one of {', '.join(_registry())}") from None


def task_or_default(kind: str | None) -> Task:
    """The task of ``kind``; a run recorded without a known kind is scored as STARBench."""
    return _registry().get(kind or "") or _registry()[DEFAULT_KIND]


def rediscover() -> None:
    """Forget what was found, so newly installed plug-ins are seen."""
    _registry.cache_clear()


def split_spec(spec: str) -> tuple[str | None, str]:
    """``"vdact:/x.json" -> ("vdact", "/x.json")``; a bare path gives ``(None, path)``."""
    match = re.match(r"^([a-z][a-z0-9_]*):(.*)$", spec, re.S)
    if match and match.group(1) in _registry():
        return match.group(1), match.group(2)
    return None, spec


def parse_dataset_options(items: Iterable[str]) -> dict[str, str]:
    """``["responses=a.json", "name=x"]`` -> ``{"responses": "a.json", "name": "x"}``."""
    options: dict[str, str] = {}
    for item in items:
        key, eq, value = str(item).partition("=")
        if not eq or not key.strip():
            raise DatasetError(f"cannot read the dataset option {item!r}; write KEY=VALUE, e.g. responses=answers.json")
        options[key.strip()] = value.strip()
    return options


def check_dataset_options(task: Task, options: dict[str, Any]) -> None:
    allowed = ("name", *task.options)
    unknown = [k for k in options if k not in allowed]
    if unknown:
        raise DatasetError(
            f"dataset option {', '.join(unknown)} does not apply to {task.kind} datasets; {task.kind} takes {', '.join(allowed)}"
        )


def load_dataset(spec: str | Path, **options: Any) -> Dataset:
    """Load a dataset from a spec (``[KIND:]PATH``; see :mod:`staragent.bench.datasets`); ``options`` go
    to its kind's loader. Without a prefix the kind is recognised from the file, else from its first row."""
    kind, rest = split_spec(str(spec))
    task = get_task(kind) if kind else None
    if task is not None and task.remote:
        check_dataset_options(task, options)
        return task.load(rest, **options)
    path = Path(rest).expanduser()
    if not path.exists():
        raise DatasetError(f"dataset file not found: {path} (check the path, or prefix hf: for a hub dataset id)")
    if path.is_dir():
        raise DatasetError(f"{path} is a directory; give the dataset file (.json or .jsonl) inside it")
    tasks = list(_registry().values())
    if task is None:
        task = next((t for t in tasks if t.recognise is not None and t.recognise(path)), None)
    if task is not None and task.load is not None:
        check_dataset_options(task, options)
        return task.load(path, **options)
    rows = read_rows(path)
    if task is None:
        task = _kind_of_rows(rows, path, tasks)
    check_dataset_options(task, options)
    return task.load_rows(rows, path, **options)


def _kind_of_rows(rows: list[Any], path: Path, tasks: list[Task]) -> Task:
    if not rows:
        raise DatasetError(f"{path} holds no rows")
    first = rows[0]
    if not isinstance(first, dict):
        raise DatasetError(f"{path}: row 1 is not a JSON object")
    for task in tasks:
        if task.matches_row is not None and task.load_rows is not None and task.matches_row(first):
            return task
    raise DatasetError(
        f"cannot tell what kind of dataset {path} is (first row has keys {sorted(first)[:8]}); "
        f"prefix the path with one of {', '.join(k + ':' for k in _registry())}"
    )
