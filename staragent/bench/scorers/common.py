"""What every scorer needs: the (sample, turn, record) units of a run, their descriptive fields, and a
thread pool."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import tasks as tk
from ..schema import QATurn, Sample, TurnRecord

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Unit:
    """One scored turn: the sample, its question/reference pair, and the agent's record (if any)."""

    sample: Sample
    pair: QATurn
    record: TurnRecord | None

    @property
    def answer(self) -> str:
        return self.record.answer if self.record is not None and self.record.ok else ""

    @property
    def reference(self) -> str:
        return self.pair.answer.content

    @property
    def question(self) -> str:
        return self.pair.question.content

    @property
    def agentic(self) -> bool:
        return bool(self.pair.expected_tool_calls)

    def describe(self) -> dict[str, Any]:
        """The fields breakdowns group by; copied into every score row."""
        sample = self.sample
        return {
            "sample_id": sample.sample_id,
            "turn": self.pair.index,
            "video_id": sample.video_id,
            "task": sample.task,
            "canonical_task": tk.canonical_task(sample.task),
            "category": tk.category_of(sample.task),
            "agentic": self.agentic,
            "sample_type": "multi_turn" if sample.is_multi_turn else "single_turn",
            "duration": sample.duration,
            "duration_bucket": tk.duration_bucket(sample.duration),
            "difficulty": self.pair.question.difficulty,
            "modalities": list(self.pair.question.modalities),
            "modality_set": tk.modality_set(self.pair.question.modalities),
            "answered": self.record is not None and self.record.ok,
        }


def units_of(samples: Iterable[Sample], records: Iterable[TurnRecord], *, only_recorded: bool = True) -> list[Unit]:
    by_key = {r.key: r for r in records}
    out = []
    for sample in samples:
        for pair in sample.qa_turns():
            record = by_key.get((sample.sample_id, pair.index))
            if record is None and only_recorded:
                continue
            out.append(Unit(sample, pair, record))
    return out


def pmap(fn: Callable[[T], R], items: list[T], workers: int = 1) -> list[R]:
    """``[fn(x) for x in items]``, on ``workers`` threads, order kept."""
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))


def ratio(obtained: float, maximum: float) -> float:
    return obtained / maximum if maximum > 0 else 0.0


def mean(values: Iterable[float]) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None
