"""The ``score`` step: judge a finished (or partial) run without re-running the agent.

Rows go to ``RUN_DIR/scores.jsonl``. Each row names its metric and carries the pinned identity of its
judge (``judge``: kind, model id, revision, decoding; ``judge_tag``). Scoring again replaces only the
rows of the same metric and the same judge, so a run can hold the verdicts of several judges side by
side; ``RUN_DIR/scoring.jsonl`` logs every scoring session (judge, metrics, call statistics).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .harness_errors import RunDirError, UnknownMetricError
from .judges import require_llm
from .rundir import load_run, log_scoring, now_iso, read_scores, write_scores
from .scorers import units_of
from .scorers.registry import get_scorer, scorer_names


def parse_metrics(spec: str | Iterable[str] | None) -> list[str] | None:
    """``"rubric,lexical"`` or ``["rubric", "lexical"]`` -> validated list; ``None``/empty -> ``None``."""
    if spec is None:
        return None
    items = [spec] if isinstance(spec, str) else list(spec)
    names = [n.strip().lower() for item in items for n in str(item).replace(" ", ",").split(",") if n.strip()]
    if not names:
        return None
    known = scorer_names()
    if names == ["all"]:
        return known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UnknownMetricError(
            f"unknown metric {', '.join(unknown)}; choose from {', '.join(known)} (comma-separated)"
        )
    return list(dict.fromkeys(names))


def default_metrics(kind: str, samples: list[Any]) -> list[str]:
    """The scorers the dataset kind's task names that have something to score in ``samples``."""
    from .kinds import task_or_default

    return [name for name in task_or_default(kind).scorers if get_scorer(name).applies_to(samples)]


def judge_tag_of(metric: str, judge: Any) -> str:
    return "none" if get_scorer(metric).judge_free else judge.identity.tag


def score_run(
    run_dir: str | Path, judge: Any, metrics: Iterable[str] | str | None = None, *, workers: int = 4
) -> dict[str, Any]:
    """Score a run with ``judge``; returns ``{metric: summary}`` (``None`` for a metric that applies to
    no turn of the run's dataset) and writes ``scores.jsonl``."""
    run_dir = Path(run_dir)
    meta, samples, records = load_run(run_dir)
    chosen = parse_metrics(metrics) or default_metrics(meta.get("dataset", {}).get("kind", ""), samples)
    for metric in chosen:
        if get_scorer(metric).needs.judge == "llm":
            require_llm(judge, metric)
    units = units_of(samples, records)
    if not units:
        raise RunDirError(f"{run_dir} has no finished turns to score; run `bench run` (or let it finish) first")
    stamp = now_iso()
    new_rows: list[dict[str, Any]] = []
    summaries: dict[str, Any] = {}
    for metric in chosen:
        scorer = get_scorer(metric)
        rows = scorer.run(None if scorer.judge_free else judge, units, workers)
        tag = judge_tag_of(metric, judge)
        identity = None if scorer.judge_free else judge.identity.model_dump()
        for row in rows:
            row["judge"] = identity
            row["judge_tag"] = tag
            row["scored_at"] = stamp
        new_rows.extend(rows)
        summaries[metric] = scorer.summarise(rows) if rows else None  # None: nothing here to score
    replaced = {(r["metric"], r["judge_tag"]) for r in new_rows} | {(m, judge_tag_of(m, judge)) for m in chosen}
    kept = [r for r in read_scores(run_dir) if (r.get("metric"), r.get("judge_tag")) not in replaced]
    write_scores(run_dir, kept + new_rows)
    log_scoring(
        run_dir,
        {
            "scored_at": stamp,
            "judge": judge.identity.model_dump() if judge is not None else None,  # None: every metric judge-free
            "metrics": chosen,
            "rows": len(new_rows),
            "turns": len(units),
            "turns_in_run": sum(len(s.qa_turns()) for s in samples),
            "stats": dict(getattr(judge, "stats", {})),
        },
    )
    return summaries
