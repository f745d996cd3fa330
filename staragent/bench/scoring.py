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

from ..fsutil import append_jsonl, read_jsonl, write_jsonl
from .errors import RunDirError, UnknownMetricError
from .judges import JudgeIdentity, require_llm
from .runner import SCORES_FILE, load_run, now_iso
from .scorers import JUDGE_FREE_METRICS, LLM_METRICS, METRICS, run_metric, summarise_metric, units_of

SCORING_LOG = "scoring.jsonl"


def parse_metrics(spec: str | Iterable[str] | None) -> list[str] | None:
    """``"rubric,lexical"`` or ``["rubric", "lexical"]`` -> validated list; ``None``/empty -> ``None``."""
    if spec is None:
        return None
    items = [spec] if isinstance(spec, str) else list(spec)
    names = [n.strip().lower() for item in items for n in str(item).replace(" ", ",").split(",") if n.strip()]
    if not names:
        return None
    if names == ["all"]:
        return list(METRICS)
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise UnknownMetricError(
            f"unknown metric {', '.join(unknown)}; choose from {', '.join(METRICS)} (comma-separated)"
        )
    return list(dict.fromkeys(names))


def default_metrics(kind: str, samples: list[Any]) -> list[str]:
    if kind == "vdact":
        return ["vdeval", "lave", "lexical", "consensus"]
    if kind == "videoautobench":
        return ["videoautobench"]
    if kind == "giraffe":
        return ["giraffe"]
    if kind == "factqa":
        return ["factqa"]
    metrics = ["rubric"]
    if any(s.is_agentic for s in samples):
        metrics.append("trajectory")
    metrics.append("lexical")
    return metrics


def judge_tag_of(metric: str, judge: Any) -> str:
    return "none" if metric in JUDGE_FREE_METRICS else judge.identity.tag


def read_scores(run_dir: str | Path) -> list[dict[str, Any]]:
    """The score rows of a run, each ``judge_tag`` as its judge identity names it today; a row written
    under another spelling of the tag (an older version's) keeps that one in ``judge_tag_written``."""
    path = Path(run_dir) / SCORES_FILE
    rows = read_jsonl(path) if path.is_file() else []
    for row in rows:
        if isinstance(row.get("judge"), dict) and row.get("judge_tag"):
            tag = JudgeIdentity.model_validate(row["judge"]).tag
            if tag != row["judge_tag"]:
                row["judge_tag_written"] = row.get("judge_tag_written") or row["judge_tag"]
                row["judge_tag"] = tag
    return rows


def current_tag(rows: list[dict[str, Any]], judge_tag: str | None) -> str | None:
    """``judge_tag`` as today's tag, when rows were written under it as an older spelling."""
    written = {r["judge_tag_written"]: r["judge_tag"] for r in rows if r.get("judge_tag_written")}
    return written.get(judge_tag, judge_tag) if judge_tag else judge_tag


def score_run(
    run_dir: str | Path, judge: Any, metrics: Iterable[str] | str | None = None, *, workers: int = 4
) -> dict[str, Any]:
    """Score a run with ``judge``; returns ``{metric: summary}`` (``None`` for a metric that applies to
    no turn of the run's dataset) and writes ``scores.jsonl``."""
    run_dir = Path(run_dir)
    meta, samples, records = load_run(run_dir)
    chosen = parse_metrics(metrics) or default_metrics(meta.get("dataset", {}).get("kind", ""), samples)
    for metric in chosen:
        if metric in LLM_METRICS:
            require_llm(judge, metric)
    units = units_of(samples, records)
    if not units:
        raise RunDirError(f"{run_dir} has no finished turns to score; run `bench run` (or let it finish) first")
    stamp = now_iso()
    new_rows: list[dict[str, Any]] = []
    summaries: dict[str, Any] = {}
    for metric in chosen:
        rows = run_metric(metric, judge, units, workers)
        tag = judge_tag_of(metric, judge)
        identity = None if metric in JUDGE_FREE_METRICS else judge.identity.model_dump()
        for row in rows:
            row["judge"] = identity
            row["judge_tag"] = tag
            row["scored_at"] = stamp
        new_rows.extend(rows)
        summaries[metric] = summarise_metric(metric, rows) if rows else None  # None: nothing here to score
    replaced = {(r["metric"], r["judge_tag"]) for r in new_rows} | {(m, judge_tag_of(m, judge)) for m in chosen}
    kept = [r for r in read_scores(run_dir) if (r.get("metric"), r.get("judge_tag")) not in replaced]
    write_jsonl(run_dir / SCORES_FILE, kept + new_rows)
    append_jsonl(
        run_dir / SCORING_LOG,
        {
            "scored_at": stamp,
            "judge": judge.identity.model_dump(),
            "metrics": chosen,
            "rows": len(new_rows),
            "turns": len(units),
            "turns_in_run": sum(len(s.qa_turns()) for s in samples),
            "stats": dict(getattr(judge, "stats", {})),
        },
    )
    return summaries
