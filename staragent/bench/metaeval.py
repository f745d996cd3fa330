"""Meta-evaluation of a scored run: does a metric agree with people, and does a judge tell right from
wrong? The statistics are in :mod:`staragent.bench.scorers.meta`; this module feeds them a run's
scores, a file of human scores, or a dataset.

**Human scores file** (``bench meta RUN_DIR --human FILE``): JSON (a list of rows), JSON lines or CSV
with a header; one row per judged turn:

- ``sample_id`` and ``turn`` (0-based index of the question in the sample; 0 when absent), or
  ``turn_id`` (the row ``id`` of a VDAct results file);
- ``score``: a number on any scale (``human``, ``human_score`` and ``rating`` are read too); an empty
  or null score leaves the row out (e.g. annotators who all disagreed).

**Per-item metric scores** (``--metric METRIC[:FIELD]``): by default the field each scorer declares
as its per-turn value (``Scorer.value_field``: rubric ``score_released``, lexical ``rouge_l``, giraffe
``avg``, most others ``score``); any other numeric field of its rows can be named (rubric
``score_paper``, lexical ``meteor``). Turns without an answer and failed judge calls are left out and
counted.

**Comparing two metrics** (``--compare A,B``): whether A agrees with the human scores better than B on
the turns both scored (Kendall tau-b, paired permutation test; :func:`scorers.meta.compare_correlations`).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .harness_errors import DatasetError, UnknownMetricError
from .scorers.meta import (
    METHODS,
    cluster_bootstrap_se,
    clustered_se,
    compare_correlations,
    correlations,
    paraphrase,
    validate_judge,
)
from .scorers.registry import all_scorers, get_scorer

HUMAN_FIELDS = ("score", "human", "human_score", "rating")


def _number(value: Any) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def read_human_scores(path: str | Path) -> list[dict[str, Any]]:
    """Rows ``{"sample_id", "turn", "turn_id", "score"}`` of a human scores file (format above)."""
    from .datasets import read_rows

    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"human scores file not found: {path}")
    if path.suffix.lower() == ".csv":
        with open(path, newline="", encoding="utf-8") as fh:
            rows: list[dict[str, Any]] = list(csv.DictReader(fh))
    else:
        rows = read_rows(path)
    out = []
    for number, row in enumerate(rows, start=1):
        field = next((f for f in HUMAN_FIELDS if f in row), None)
        has_key = row.get("turn_id") not in (None, "") or row.get("sample_id") not in (None, "")
        if field is None or not has_key:
            raise DatasetError(
                f"{path}: row {number} needs sample_id (and turn) or turn_id, and a score; "
                "see `staragent bench meta --help` for the format"
            )
        value = row[field]
        score = _number(value)
        if score is None and value not in (None, ""):
            raise DatasetError(f"{path}: row {number} has score {value!r}, which is not a number")
        turn = _number(row.get("turn"))
        out.append(
            {
                "sample_id": str(row["sample_id"]) if row.get("sample_id") not in (None, "") else None,
                "turn": int(turn) if turn is not None else 0,
                "turn_id": str(row["turn_id"]) if row.get("turn_id") not in (None, "") else None,
                "score": score,
            }
        )
    return out


def parse_metric_fields(spec: str | Sequence[str] | None, available: Sequence[str]) -> list[tuple[str, str]]:
    """``"vdeval,lexical:meteor"`` -> ``[("vdeval", "score"), ("lexical", "meteor")]``; ``None``: every
    metric in ``available`` with its default field."""
    items = [spec] if isinstance(spec, str) else list(spec or [])
    names = [n.strip() for item in items for n in item.split(",") if n.strip()]
    if not names:
        return [(m, s.value_field) for m, s in all_scorers().items() if m in available and s.value_field]
    out = []
    for name in names:
        metric, _, field = name.partition(":")
        field = field or get_scorer(metric).value_field or ""
        if not field:
            raise UnknownMetricError(f"{metric} has no per-turn score; name a field of its rows, {metric}:FIELD")
        out.append((metric, field))
    return out


def item_score(row: dict[str, Any], metric: str, field: str) -> float | None:
    """The per-item value of a score row, or ``None`` when the row holds no judgement."""
    if row.get("skipped") or row.get("failed") or row.get("level") == "corpus":
        return None
    if field not in row:
        raise UnknownMetricError(
            f"{metric} rows have no field {field!r}; e.g. {metric}:{get_scorer(metric).value_field}"
        )
    return _number(row[field])


def _turn_ids(samples: list[Any]) -> dict[str, tuple[str, int]]:
    """VDAct row id -> (sample_id, turn), from the ``turn_id`` the loader keeps on each answer."""
    out = {}
    for sample in samples:
        for pair in sample.qa_turns():
            turn_id = getattr(pair.answer, "turn_id", None) or (pair.answer.model_extra or {}).get("turn_id")
            if turn_id:
                out[str(turn_id)] = (sample.sample_id, pair.index)
    return out


def _paired_items(
    rows: list[dict[str, Any]], metric: str, field: str, human: dict[tuple[str, int], float]
) -> tuple[dict[tuple[str, int], tuple[float, str]], int]:
    """``{turn: (metric score, video)}`` for the turns with a human score, and how many were left out
    (no answer, failed judge call)."""
    items, excluded = {}, 0
    for row in rows:
        key = (row.get("sample_id"), row.get("turn"))
        if row.get("level") == "corpus" or key not in human:
            continue
        value = item_score(row, metric, field)
        if value is None:
            excluded += 1
            continue
        items[key] = (value, row.get("video_id") or row.get("sample_id"))
    return items, excluded


def meta_evaluate(
    run_dir: str | Path,
    human_file: str | Path,
    metrics: str | Sequence[str] | None = None,
    *,
    judge_tag: str | None = None,
    permutations: int = 10000,
    bootstrap_rounds: int = 200,
    seed: int = 0,
    compare: str | Sequence[str] | None = None,
) -> dict[str, Any]:
    """Agreement of each metric's per-item scores in ``run_dir`` with the human scores in ``human_file``;
    with ``compare`` (two ``METRIC[:FIELD]``), also whether the first agrees better than the second."""
    from .report import latest_rows
    from .rundir import load_run, read_scores

    _, samples, _ = load_run(run_dir)
    by_metric = latest_rows(read_scores(run_dir), judge_tag)
    if not by_metric:
        raise DatasetError(f"{run_dir} has no scores yet; run `bench score {run_dir} --judge ...` first")
    ids = _turn_ids(samples)
    human: dict[tuple[str, int], float] = {}
    unmatched = 0
    for row in read_human_scores(human_file):
        key = ids.get(row["turn_id"]) if row["turn_id"] else (row["sample_id"], row["turn"])
        if key is None:
            unmatched += 1
        elif row["score"] is not None:
            human[key] = row["score"]
    out: dict[str, Any] = {
        "run_dir": str(run_dir),
        "human_file": str(human_file),
        "human_items": len(human),
        "human_rows_not_in_run": unmatched,
        "permutations": permutations,
        "metrics": {},
    }

    def scored(metric: str, field: str) -> tuple[dict[tuple[str, int], tuple[float, str]], int]:
        rows = by_metric.get(metric)
        if not rows:
            raise DatasetError(f"{run_dir} has no {metric} scores; score it with --metrics {metric} first")
        return _paired_items(rows, metric, field, human)

    for metric, field in parse_metric_fields(metrics, list(by_metric)):
        items, excluded = scored(metric, field)
        name = f"{metric}:{field}"
        if len(items) < 3:
            out["metrics"][name] = {"n": len(items), "excluded": excluded, "note": "fewer than 3 items with both scores"}
            continue
        keys = list(items)  # in score-row order
        xs, ys, videos = [items[k][0] for k in keys], [human[k] for k in keys], [items[k][1] for k in keys]
        result = correlations(xs, ys, permutations=permutations, seed=seed)
        se = cluster_bootstrap_se(xs, ys, videos, rounds=bootstrap_rounds, seed=seed)
        for method in METHODS:
            result[method]["se_clustered"] = se[method]
        result["excluded"] = excluded
        result["judge"] = by_metric[metric][0].get("judge")
        result["metric_mean"] = clustered_se(xs, videos)
        result["human_mean"] = clustered_se(ys, videos)
        out["metrics"][name] = result
    if compare:
        pair = parse_metric_fields(compare, list(by_metric))
        if len(pair) != 2:
            raise UnknownMetricError("--compare takes two metrics, METRIC[:FIELD],METRIC[:FIELD]")
        (a_items, _), (b_items, _) = (scored(m, f) for m, f in pair)
        keys = [k for k in a_items if k in b_items]
        names = [f"{m}:{f}" for m, f in pair]
        if len(keys) < 3:
            out["comparison"] = {"metric_a": names[0], "metric_b": names[1], "n": len(keys),
                                 "note": "fewer than 3 items scored by both"}  # fmt: skip
        else:
            result = compare_correlations(
                [human[k] for k in keys], [a_items[k][0] for k in keys], [b_items[k][0] for k in keys],
                permutations=permutations, seed=seed,
            )  # fmt: skip
            out["comparison"] = {"metric_a": names[0], "metric_b": names[1], "n": len(keys), **result}
    return out


def validate_judge_on_dataset(
    dataset: Any,
    judge: Any,
    paraphraser: Any,
    *,
    metric: str,
    limit: int | None = None,
    seed: int = 0,
    workers: int = 4,
) -> dict[str, Any]:
    """Score each turn of ``dataset`` (its reference answer, a paraphrase of it by ``paraphraser``, and
    the reference of another turn drawn by a seeded random derangement) with ``metric`` (a scorer that
    declares ``validates_judge``) under ``judge``."""
    from .sample_records import TurnRecord
    from .scorers.common import Unit, pmap

    scorer = get_scorer(metric)
    if not scorer.validates_judge:
        usable = ", ".join(name for name, s in all_scorers().items() if s.validates_judge)
        raise UnknownMetricError(f"judge validation runs with {usable}, not {metric!r}")
    turns = [(s, p) for s in dataset.samples for p in s.qa_turns() if p.answer.content.strip()]
    if scorer.needs.rubrics:
        turns = [(s, p) for s, p in turns if p.answer.criteria]
    turns = turns[:limit] if limit else turns
    if len(turns) < 2:
        raise DatasetError(
            f"{dataset.name} has fewer than two turns with a reference answer{' and a rubric' if scorer.needs.rubrics else ''}"
        )
    items = [
        {"question": p.question.content, "reference": p.answer.content, "index": i}
        for i, (_, p) in enumerate(turns)
    ]
    paraphrases = pmap(
        lambda item: paraphrase(paraphraser, item["question"], item["reference"]), items, workers
    )
    field = scorer.value_field

    def score(item: dict[str, Any], candidate: str) -> float:
        sample, pair = turns[item["index"]]
        record = TurnRecord(
            sample_id=sample.sample_id, turn=pair.index, question=pair.question.content, answer=candidate
        )
        return float(scorer.run(judge, [Unit(sample, pair, record)], 1)[0][field])

    result = validate_judge(items, score, paraphrases, seed=seed, workers=workers)
    kept = result["items"]
    videos = [turns[i][0].video_id or turns[i][0].sample_id for i in kept]
    for kind in ("reference", "paraphrase", "random"):
        result[kind]["se_clustered"] = clustered_se(result[kind]["scores"], videos)["se_clustered"]
    result.update(
        {
            "metric": metric,
            "field": field,
            "judge": judge.identity.model_dump(),
            "seed": seed,
            "paraphraser": paraphraser.identity.model_dump(),
        }
    )
    return result
