"""Fact questions about real videos, scored by answer pattern and cited span."""

import json
from pathlib import Path
from typing import Any

from ..errors import DatasetError
from ..factqa import is_factqa, load_factqa
from .base import AgentDefaults, Task


def _document(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def load(path: Path, **options: Any) -> Any:
    data = _document(path)
    if not is_factqa(data):
        raise DatasetError(f"{path} is not a fact-question file: it needs a 'videos' object and a 'cases' list")
    return load_factqa(data, path, **options)


TASK = Task(
    kind="factqa",
    title="Fact questions",
    scorers=("factqa",),
    load=load,
    agent=AgentDefaults("profile:offline"),
    recognise=lambda path: path.suffix.lower() == ".json" and is_factqa(_document(path)),
)
