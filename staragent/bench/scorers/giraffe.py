"""Giraffe-Bench's evaluators (seed 004), reported on a 0-100 scale.

- **SGAE** (single gold answer; abstract patterns): Accuracy, Logical Consistency, Specificity, each 0-5.
- **PPE** (probabilistic prediction; human activities, no gold answer): Plausibility, Diversity,
  Specificity, each 0-5.
- **MGAE** (multiple gold answers; physical interactions): Logical Consistency and Specificity 0-5, and a
  binary Accuracy: 1 when ANY of the predicted outcomes means the same as the true one.

A 0-5 dimension is reported x20, the binary accuracy x100; each dataset score is the mean over samples
(the paper's Eq. 8), and ``avg`` is the mean of the dimensions. A failed judge call scores 0 on every
dimension and is counted; a sample without a prediction is not judged and is counted as skipped.
"""

from __future__ import annotations

from typing import Any

from ...prompts import render
from ..judges.parsing import parse_dimension_scores
from .common import Unit, judged, mean, pmap, skipped_row
from .display import scored
from .scorer import Needs, Scorer, Section

DIMENSIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "sgae": {
        "accuracy": ("Accuracy",),
        "logical_consistency": ("LogicalConsistency", "Logical Consistency"),
        "specificity": ("Specificity",),
    },
    "ppe": {
        "plausibility": ("Plausibility",),
        "diversity": ("Diversity",),
        "specificity": ("Specificity",),
    },
    "mgae": {
        "accuracy": ("Accuracy",),
        "logical_consistency": ("LogicalConsistency", "Logical Consistency"),
        "specificity": ("Specificity",),
    },
}
BINARY = {("mgae", "accuracy")}


def scales(evaluator: str) -> dict[str, tuple[float, float]]:
    return {d: ((0.0, 1.0) if (evaluator, d) in BINARY else (0.0, 5.0)) for d in DIMENSIONS[evaluator]}


def to_percent(evaluator: str, raw: dict[str, float]) -> dict[str, float]:
    return {d: v * (100.0 if (evaluator, d) in BINARY else 20.0) for d, v in raw.items()}


def score_prediction(
    judge: Any, evaluator: str, *, context: str, prediction: str, ground_truth: str = ""
) -> dict[str, Any]:
    prompt = render(f"bench_giraffe_{evaluator}", context=context, prediction=prediction, ground_truth=ground_truth)
    call = judge.ask(prompt, lambda text: parse_dimension_scores(text, DIMENSIONS[evaluator], scales(evaluator)))
    raw = call.value if call.ok else {d: 0.0 for d in DIMENSIONS[evaluator]}
    pct = to_percent(evaluator, raw)
    return {
        "evaluator": evaluator,
        "raw": raw,
        "scores": pct,
        "avg": sum(pct.values()) / len(pct),
        "failed": not call.ok,
        "judge_reply": call.reply,
        "cached": call.cached,
    }


def score_giraffe(judge: Any, units: list[Unit], workers: int = 1) -> list[dict[str, Any]]:
    def one(unit: Unit) -> dict[str, Any]:
        if unit.skip_reason:
            return {**skipped_row("giraffe", unit), "evaluator": unit.sample.meta["evaluator"]}
        meta = unit.sample.meta
        result = score_prediction(
            judge,
            meta["evaluator"],
            context=str(meta.get("context", "")),
            prediction=unit.answer,
            ground_truth=unit.reference,
        )
        return {"metric": "giraffe", **unit.describe(), **result}

    return pmap(one, [u for u in units if u.sample.meta.get("evaluator") in DIMENSIONS], workers)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for evaluator in DIMENSIONS:
        group, skipped = judged([r for r in rows if r["evaluator"] == evaluator])
        if not group:
            continue
        dims = {d: mean(r["scores"][d] for r in group) for d in DIMENSIONS[evaluator]}
        out[evaluator] = {
            "n": len(group),
            **dims,
            "avg": mean(dims.values()),
            "failed_calls": sum(1 for r in group if r["failed"]),
            "skipped": skipped,
        }
    return out


SUMMARY_COUNTS = ("n", "avg", "failed_calls", "skipped")


def console_lines(s: dict[str, Any]) -> list[str]:
    lines = []
    for evaluator, m in s.items():
        dims = ", ".join(f"{k} {v:.1f}" for k, v in m.items() if k not in SUMMARY_COUNTS)
        lines.append(f"giraffe {evaluator.upper()} ({scored(m, 'samples')}): avg {m['avg']:.1f} of 100 ({dims}); "
                     f"failed judge calls {m['failed_calls']}")  # fmt: skip
    return lines


def sections(s: dict[str, Any]) -> list[Section]:
    tables = []
    for evaluator, m in s.items():
        dims = [k for k in m if k not in SUMMARY_COUNTS]
        row = [m["n"], *[m[d] for d in dims], m["avg"], m["failed_calls"], m.get("skipped", 0)]
        tables.append((evaluator.upper(), ["N", *dims, "avg", "failed", "skipped"], [row]))
    return [Section("Giraffe-Bench evaluators (0-100)", tables)]


def compare_rows(s: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(f"giraffe {evaluator.upper()} avg", m.get("avg")) for evaluator, m in s.items()]


SCORER = Scorer(
    name="giraffe",
    title="Giraffe-Bench evaluators",
    run=score_giraffe,
    summarise=summarise,
    needs=Needs(judge="llm"),
    value_field="avg",
    lines=console_lines,
    sections=sections,
    compare_rows=compare_rows,
)
