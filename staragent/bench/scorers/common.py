"""What every scorer needs: the (sample, turn, record) units of a run, their descriptive fields, and a
thread pool.

A turn without answer text (the agent failed, a replayed dataset had no answer stored for it, or the
answer is blank) is never sent to a judge as if it were an answer. Rubric and trajectory scoring give
it 0 without judge calls (in STARBench, failing to answer is failing the turn) and count it; every
other metric leaves it out of its score and counts it as ``skipped``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import tasks as tk
from ..sample_records import QATurn, Sample, TurnRecord

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
    def skip_reason(self) -> str | None:
        """Why there is no answer to judge (``agent error``, ``empty answer``), or ``None``."""
        if self.record is None or not self.record.ok:
            return "agent error"
        return None if self.record.answer.strip() else "empty answer"

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


def skipped_row(metric: str, unit: Unit) -> dict[str, Any]:
    """The row of a turn a metric leaves out because it has no answer."""
    error = unit.record.error if unit.record is not None else None
    return {"metric": metric, **unit.describe(), "skipped": unit.skip_reason, "agent_error": error}


def interval(rows: list[dict[str, Any]], key: str, rounds: int = 1000) -> dict[str, float] | None:
    """95% interval of the mean of ``key`` over ``rows``, resampling whole videos (a cluster bootstrap)."""
    from .bootstrap import cluster_bootstrap_mean

    rows = [r for r in rows if r.get(key) is not None]
    videos = [str(r.get("video_id") or r.get("sample_id")) for r in rows]
    return cluster_bootstrap_mean([r[key] for r in rows], videos, rounds=rounds) if rows else None


def score_summary(rows: list[dict[str, Any]], key: str = "score") -> dict[str, Any]:
    """Turns scored and skipped, the mean of ``key`` over the scored ones and its video-bootstrap interval."""
    scored, skipped = judged(rows)
    return {"turns": len(scored), "skipped": skipped, "score": mean(r[key] for r in scored), "score_ci": interval(scored, key)}


def judged(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The rows that were scored, and how many were skipped for want of an answer."""
    kept = [r for r in rows if not r.get("skipped")]
    return kept, len(rows) - len(kept)


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
