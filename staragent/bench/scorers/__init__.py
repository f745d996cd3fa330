"""Scorers. Each turns (sample, turn, record) units into score rows; ``summarise_metric`` turns rows
into the numbers a report shows. See :mod:`staragent.bench.scoring` for the ``score`` step."""

from __future__ import annotations

from typing import Any

from . import consensus, factqa, giraffe, lexical, rubric, trajectory, vdeval, videoautobench
from .common import Unit, interval, judged, score_summary, units_of

METRICS = ("rubric", "trajectory", "vdeval", "lave", "lexical", "consensus", "videoautobench", "giraffe", "factqa")
LLM_METRICS = frozenset({"vdeval", "lave", "videoautobench", "giraffe"})
JUDGE_FREE_METRICS = frozenset({"lexical", "consensus", "factqa"})

__all__ = ["METRICS", "LLM_METRICS", "JUDGE_FREE_METRICS", "Unit", "units_of", "run_metric", "summarise_metric"]


def run_metric(metric: str, judge: Any, units: list[Unit], workers: int = 1) -> list[dict[str, Any]]:
    if metric == "rubric":
        return rubric.score_rubric(judge, units, workers)
    if metric == "trajectory":
        return trajectory.score_trajectory(judge, units, workers)
    if metric == "vdeval":
        return vdeval.score_vdeval(judge, units, workers)
    if metric == "lave":
        return vdeval.score_lave(judge, units, workers)
    if metric == "lexical":
        return lexical.score_lexical(units)
    if metric == "consensus":
        return consensus.score_consensus(units)
    if metric == "videoautobench":
        return videoautobench.score_videoautobench(judge, units, workers)
    if metric == "giraffe":
        return giraffe.score_giraffe(judge, units, workers)
    if metric == "factqa":
        return factqa.score_factqa(units)
    raise ValueError(metric)


def summarise_metric(metric: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    if metric == "rubric":
        out = {c: rubric.aggregate(rows, c) for c in rubric.CONVENTIONS}
        for c in rubric.CONVENTIONS:
            out[c]["overall_ci"] = rubric.bootstrap_overall(rows, c)
        return out
    if metric == "trajectory":
        return trajectory.summarise(rows)
    if metric in ("vdeval", "lave"):
        return vdeval.summarise(rows)
    if metric == "lexical":
        corpus = [r for r in rows if r.get("level") == "corpus"]
        keys = ("n", "bleu", "rouge_l", "meteor", "meteor_variant", "skipped")
        if not corpus:
            return {}
        turns, _ = judged([r for r in rows if r.get("level") == "turn"])
        return {
            **{k: v for k, v in corpus[-1].items() if k in keys},
            "rouge_l_ci": interval(turns, "rouge_l"),
            "meteor_ci": interval(turns, "meteor"),
        }
    if metric == "consensus":
        scored, _ = judged(rows)
        return {**score_summary(rows), "metric": scored[0]["consensus_metric"] if scored else None}
    if metric == "videoautobench":
        return videoautobench.summarise(rows)
    if metric == "giraffe":
        return giraffe.summarise(rows)
    if metric == "factqa":
        return factqa.summarise(rows)
    raise ValueError(metric)
