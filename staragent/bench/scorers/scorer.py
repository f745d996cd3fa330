"""What a scorer declares, so that scoring, the console, the report, ``compare``, meta-evaluation and
the export can use it without knowing its name.

A :class:`Scorer` turns the (sample, turn, record) units of a run into score rows (one dict per
scored turn, stored in ``scores.jsonl``) and the rows into a summary. Beside those two functions it
declares what it needs (:class:`Needs`), which row field is its per-turn value, the headline numbers
that ``compare`` and the charts show (:class:`Headline`), and how it reads on the console and in
the report. :meth:`Scorer.score_of` gives any row as a typed :class:`Score`, the shape inspect_ai
uses (value, answer, explanation, metadata).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..charts import Table

JudgeNeed = Literal["none", "any", "llm"]
"""``none``: judge-free; ``any``: the heuristic or scripted judge will do; ``llm``: a chat model."""

# Fields every row copies from its unit (``Unit.describe``); the rest of a row is the scorer's own.
UNIT_FIELDS = frozenset({
    "metric", "sample_id", "turn", "video_id", "task", "canonical_task", "category", "agentic", "sample_type",
    "duration", "duration_bucket", "difficulty", "modalities", "modality_set", "answered", "judge", "judge_tag",
    "scored_at", "judge_tag_written",
})  # fmt: skip


@dataclass(frozen=True)
class Needs:
    judge: JudgeNeed = "none"
    references: bool = True
    """reference answers in the dataset"""
    rubrics: bool = False
    """criteria beside each reference answer"""
    trajectories: bool = False
    """the agent's tool calls, not only its answers"""


@dataclass(frozen=True)
class Score:
    """One scored turn, typed: the number, the answer it scored, why, and everything else the scorer
    kept (the judge's replies among it)."""

    value: float | None
    answer: str | None = None
    explanation: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Headline:
    """A number of the summary worth a row in ``compare`` and a bar in the interval chart."""

    label: str
    key: str
    ci_key: str | None = None
    chart: bool = True
    """shown in the report's chart of scores with intervals (0-100 scores only)"""


@dataclass(frozen=True)
class Section:
    """A scorer's part of the report: a title, lines of prose, tables and (HTML only) charts."""

    title: str
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)


def _no_lines(name: str) -> Callable[[dict[str, Any]], list[str]]:
    return lambda summary: [f"{name}: {summary}"]


@dataclass(frozen=True)
class Scorer:
    name: str
    title: str
    run: Callable[[Any, list[Any], int], list[dict[str, Any]]]
    """``(judge, units, workers) -> rows``; ``judge`` is ``None`` for a judge-free scorer"""
    summarise: Callable[[list[dict[str, Any]]], dict[str, Any]]
    needs: Needs = Needs()
    value_field: str | None = "score"
    """the row field holding the turn's value: the typed Score's value and meta-evaluation's default"""
    headlines: tuple[Headline, ...] = ()
    lines: Callable[[dict[str, Any]], list[str]] | None = None
    """what ``bench score`` prints for a summary"""
    sections: Callable[[dict[str, Any]], list[Section]] | None = None
    """the report's sections for a summary (default: a table of the headlines)"""
    compare_rows: Callable[[dict[str, Any]], list[tuple[str, Any]]] | None = None
    """``(label, value)`` rows for ``compare`` (default: the headlines)"""
    explain: Callable[[dict[str, Any]], str | None] | None = None
    """a row's explanation (default: the judge's replies found in it)"""
    applies: Callable[[list[Any]], bool] | None = None
    """whether the scorer has anything to score in these samples (default: yes)"""
    corpus_level: bool = False
    """its summary is not a function of per-turn rows alone: ``compare`` re-runs it on a subset"""
    paired: bool = False
    """``compare`` tests paired per-turn differences of ``value_field``"""
    validates_judge: bool = False
    """``bench validate-judge`` may score single answers with it"""

    @property
    def judge_free(self) -> bool:
        return self.needs.judge == "none"

    def console_lines(self, summary: dict[str, Any]) -> list[str]:
        return (self.lines or _no_lines(self.name))(summary)

    def report_sections(self, summary: dict[str, Any]) -> list[Section]:
        if self.sections is not None:
            return self.sections(summary)
        rows = [[h.label, value_at(summary, h.key)] for h in self.headlines]
        return [Section(self.title, [("", ["Metric", "Value"], rows)])] if rows else []

    def comparison(self, summary: dict[str, Any]) -> list[tuple[str, Any]]:
        if self.compare_rows is not None:
            return self.compare_rows(summary)
        return [(f"{self.name} {h.key}", value_at(summary, h.key)) for h in self.headlines]

    def applies_to(self, samples: list[Any]) -> bool:
        return self.applies is None or self.applies(samples)

    def score_of(self, row: dict[str, Any], answer: str | None = None) -> Score:
        """``row`` as a typed :class:`Score`; ``answer`` is the agent's answer the row scored."""
        value = row.get(self.value_field) if self.value_field else None
        explanation = self.explain(row) if self.explain is not None else judge_replies(row)
        if row.get("skipped"):
            explanation = explanation or f"not scored: {row['skipped']}"
        metadata = {k: v for k, v in row.items() if k not in UNIT_FIELDS}
        return Score(value=value if isinstance(value, int | float) else None, answer=answer, explanation=explanation, metadata=metadata)


def value_at(summary: dict[str, Any] | None, key: str) -> Any:
    """``summary["a"]["b"]`` for the key ``"a.b"``; ``None`` where a part is missing."""
    value: Any = summary
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def judge_replies(row: Any) -> str | None:
    """Every ``judge_reply`` in a row (nested in its verdicts too), one after another."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            reply = value.get("judge_reply")
            if isinstance(reply, str) and reply.strip():
                found.append(reply.strip())
            for key, item in value.items():
                if key != "judge_reply":
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(row)
    return "\n\n".join(found) or None
