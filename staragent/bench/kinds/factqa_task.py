"""Fact questions about real videos, scored by answer pattern and cited span
(:mod:`staragent.bench.scorers.factqa`).

The dataset (``../shared/eval/dev_qa.json`` is one) is a JSON object::

    {"about": "...",
     "videos": {NAME: {"file": "media/x.mp4", "srt": null, "no_subtitles": true}},
     "cases": [{"id", "video", "q": "question" | "chat": ["first", ..., "scored question"],
                "any": [regex, ...], "span": [start, end] | null, "kind": "speech"}]}

A ``chat`` case is one conversation: its questions are asked in turn, each after the agent's own
earlier answers (``history: live``), and only the last answer is scored.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..harness_errors import DatasetError
from ..sample_records import Dataset, Sample
from .task import AgentDefaults, Task


def is_factqa(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("cases"), list) and isinstance(data.get("videos"), dict)


def load_factqa(data: dict, path: Path, name: str | None = None, **_: Any) -> Dataset:
    """The cases of a fact-question file as samples: one user turn per question, and an empty
    assistant turn after each (there is no reference answer: the patterns and span score it)."""
    videos = data["videos"]
    samples = []
    for number, case in enumerate(data["cases"], start=1):
        where = f"{path}: case {number} ({case.get('id', 'no id')})"
        if case.get("chat") and case.get("q"):
            raise DatasetError(f"{where} gives both 'q' and 'chat': give 'q' for one question, or 'chat' alone, "
                               "a list of question strings whose last one is scored")
        questions = case.get("chat") or ([case["q"]] if case.get("q") else [])
        if not questions or not all(isinstance(q, str) and q.strip() for q in questions):
            raise DatasetError(f"{where} has no question: give 'q', or 'chat' as a non-empty list of question strings "
                               "(the turns in order; the last one is scored)")
        if not case.get("any"):
            raise DatasetError(f"{where} has no answer patterns ('any')")
        for pattern in case["any"]:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise DatasetError(f"{where}: pattern {pattern!r} is not a valid regular expression ({exc})") from None
        video = videos.get(case.get("video"))
        if video is None:
            raise DatasetError(f"{where} names video {case.get('video')!r}, which 'videos' does not list")
        span = case.get("span")
        if span is not None and not (len(span) == 2 and float(span[0]) <= float(span[1])):
            raise DatasetError(f"{where}: span must be [start, end] in seconds, got {span!r}")
        turns = []
        for q in questions:
            turns += [{"role": "user", "content": q}, {"role": "assistant", "content": ""}]
        samples.append(
            Sample(
                sample_id=str(case.get("id") or f"case-{number}"),
                video_id=str(case["video"]),
                video_path=str((path.parent / video["file"]).resolve()),
                sample_type="multi_turn" if len(questions) > 1 else "single_turn",
                task=str(case.get("kind", "")),
                conversations=turns,
                meta={
                    "kind": str(case.get("kind", "")),
                    "any": list(case["any"]),
                    "span": [float(x) for x in span] if span is not None else None,
                    "history": "live",
                    "no_subtitles": bool(video.get("no_subtitles")),
                    "scored_turn": len(questions) - 1,
                },
            )
        )
    return Dataset(name or path.stem, "factqa", str(path), samples, {"about": data.get("about", "")})


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
