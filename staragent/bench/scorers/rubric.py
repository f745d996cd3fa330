"""STARBench rubric scoring: one judge call per criterion, two aggregation conventions side by side.

Per turn, with verdicts met / not met:

- ``released`` reproduces the released scorer exactly. With each criterion's weight as the dataset gives
  it (sign included; else high 5, medium 3, low 1, penalty -5): obtained = sum of the weights of met
  non-penalty criteria; ``maximum_released`` = sum of every positive weight. So a penalty criterion
  that the dataset gives a positive weight counts toward the maximum and can never be obtained: it
  caps the turn below 100%, as it does in the release.
- ``paper`` (sec. 3.4 of the paper) uses magnitudes, w = |weight|: obtained = sum of w over met
  non-penalty criteria minus w for every violated (not met) penalty criterion, whatever its sign in the
  dataset; ``maximum`` = sum of w over non-penalty criteria.

For weights of the usual signs both conventions have the same maximum and the same positive part.

Aggregation (both conventions): per canonical task, pooled obtained / pooled maximum over its turns;
a category is the mean of its tasks present; overall is the mean of the categories present. Agentic
turns (with expected tool calls) are reported separately and stay out of the categories and overall,
as in Table 3. Breakdowns (duration bucket, modality set, single- vs multi-turn, difficulty) are pooled
ratios. A failed judge call counts as not met (for a penalty: violated) and is counted in ``failed``.
A turn without an answer (agent error, nothing to replay, blank answer) scores 0 without judge calls:
nothing asked for was stated, no penalty was earned; it is flagged ``skipped`` and counted in
``unanswered``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .. import tasks as tk
from . import rubric_view
from .bootstrap import percentile_interval, resample
from .common import Unit, mean, pmap, ratio
from .scorer import Headline, Needs, Scorer

CONVENTIONS = ("released", "paper")


def score_unit(judge: Any, unit: Unit) -> dict[str, Any]:
    criteria = unit.pair.answer.criteria
    history = unit.sample.history_before(unit.pair.index)
    verdicts = []
    skipped = unit.skip_reason
    for criterion in criteria:
        if skipped:
            met = criterion.is_penalty  # nothing said, nothing violated; nothing asked for was stated
            verdicts.append(
                {
                    "name": criterion.name,
                    "category": criterion.category,
                    "points": criterion.points,
                    "weight": criterion.released_weight,
                    "is_penalty": criterion.is_penalty,
                    "met": met,
                    "failed": False,
                    "skipped": skipped,
                    "explanation": skipped,
                    "judge_reply": "",
                    "cached": False,
                }
            )
            continue
        call = judge.check_criterion(
            question=unit.question, reference=unit.reference, answer=unit.answer, criterion=criterion, history=history
        )
        verdicts.append(
            {
                "name": criterion.name,
                "category": criterion.category,
                "points": criterion.points,
                "weight": criterion.released_weight,
                "is_penalty": criterion.is_penalty,
                "met": bool(call.value["criteria_met"]) if call.ok else False,
                "failed": not call.ok,
                "error": call.error,
                "explanation": (call.value or {}).get("explanation", "") if call.ok else "",
                "heuristic": bool((call.value or {}).get("heuristic", False)) if call.ok else False,
                "judge_reply": call.reply,
                "cached": call.cached,
                "attempts": call.attempts,
            }
        )
    positives = [v for v in verdicts if not v["is_penalty"]]
    maximum = sum(v["points"] for v in positives)
    maximum_released = sum(v["weight"] for v in verdicts if v["weight"] > 0)
    released = sum(v["weight"] for v in positives if v["met"])
    paper = sum(v["points"] for v in positives if v["met"]) - sum(
        abs(v["points"]) for v in verdicts if v["is_penalty"] and not v["met"]
    )
    return {
        "metric": "rubric",
        **unit.describe(),
        "criteria": verdicts,
        "maximum": maximum,
        "maximum_released": maximum_released,
        "released": released,
        "paper": paper,
        "score_released": 100 * ratio(released, maximum_released),
        "score_paper": 100 * ratio(paper, maximum),
        "failed_calls": sum(1 for v in verdicts if v["failed"]),
        "skipped": skipped,
    }


def score_rubric(judge: Any, units: list[Unit], workers: int = 1) -> list[dict[str, Any]]:
    return pmap(lambda u: score_unit(judge, u), [u for u in units if u.pair.answer.criteria], workers)


def maximum_of(row: dict[str, Any], convention: str) -> float:
    """A turn's maximum under ``convention`` (rows scored before ``maximum_released`` existed have one)."""
    return row.get("maximum_released", row["maximum"]) if convention == "released" else row["maximum"]


def _pool(rows: list[dict], convention: str) -> dict[str, Any]:
    obtained = sum(r[convention] for r in rows)
    maximum = sum(maximum_of(r, convention) for r in rows)
    return {"score": 100 * ratio(obtained, maximum), "obtained": obtained, "maximum": maximum, "n": len(rows)}


def _group(rows: list[dict], key: str, convention: str, order: tuple | None = None) -> dict[str, Any]:
    groups: dict[Any, list[dict]] = defaultdict(list)
    for row in rows:
        if row.get(key) is not None:
            groups[row[key]].append(row)
    keys = [k for k in order if k in groups] if order else sorted(groups, key=str)
    return {str(k): _pool(groups[k], convention) for k in keys}


def aggregate(rows: list[dict[str, Any]], convention: str = "released") -> dict[str, Any]:
    """Task, category and overall scores (in %) and the breakdowns, under one convention."""
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown convention {convention!r}")
    general = [r for r in rows if not r.get("agentic")]
    agentic = [r for r in rows if r.get("agentic")]
    by_task: dict[str, list[dict]] = defaultdict(list)
    unmapped: dict[str, list[dict]] = defaultdict(list)
    for row in general:
        if row.get("canonical_task"):
            by_task[row["canonical_task"]].append(row)
        else:
            unmapped[row.get("task") or "(none)"].append(row)
    tasks = {t: _pool(by_task[t], convention) for t in tk.CANONICAL_TASKS if t in by_task}
    categories = {}
    for cat, members in tk.CATEGORIES.items():
        present = [tasks[t]["score"] for t in members if t in tasks]
        if present:
            categories[cat] = {"score": mean(present), "tasks": len(present), "n": sum(tasks[t]["n"] for t in members if t in tasks)}
    overall = mean(c["score"] for c in categories.values())
    agentic_by_task: dict[str, list[dict]] = defaultdict(list)
    for row in agentic:
        agentic_by_task[row.get("canonical_task") or row.get("task") or "(none)"].append(row)
    return {
        "convention": convention,
        "overall": overall,
        "categories": categories,
        "tasks": tasks,
        "unmapped": {t: _pool(r, convention) for t, r in sorted(unmapped.items())},
        "agentic": _pool(agentic, convention) if agentic else None,
        "agentic_tasks": {t: _pool(r, convention) for t, r in sorted(agentic_by_task.items())},
        "by_duration": _group(general, "duration_bucket", convention, tuple(b[0] for b in tk.DURATION_BUCKETS)),
        "by_modality": _group(general, "modality_set", convention, tk.MODALITY_SETS),
        "by_turn_type": _group(general, "sample_type", convention, ("single_turn", "multi_turn")),
        "by_difficulty": _group(general, "difficulty", convention, (1, 2, 3, 4, 5)),
        "turns": len(rows),
        "failed_calls": sum(r.get("failed_calls", 0) for r in rows),
        "unanswered": sum(1 for r in rows if r.get("skipped")),
        "criteria": sum(len(r.get("criteria", ())) for r in rows),
    }


def bootstrap_overall(
    rows: list[dict[str, Any]], convention: str = "released", *, rounds: int = 200, seed: int = 0, confidence: float = 0.95
) -> dict[str, float] | None:
    """Percentile interval of the overall score, resampling whole videos (a cluster bootstrap)."""
    by_video: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if not row.get("agentic"):
            by_video[str(row.get("video_id") or row.get("sample_id"))].append(row)
    videos = [by_video[v] for v in sorted(by_video)]
    if len(videos) < 2:
        return None
    values = resample(
        len(videos), lambda draw: aggregate([r for i in draw for r in videos[i]], convention)["overall"],
        rounds=rounds, seed=seed,
    )  # fmt: skip
    if not values:
        return None
    lower, upper = percentile_interval(values, confidence)
    return {"lower": lower, "upper": upper, "rounds": len(values), "videos": len(videos)}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Both conventions' aggregates with the overall's video-bootstrap interval, and the mean per-turn
    released score (non-agentic turns) with its standard error clustered by video."""
    from .meta import clustered_se

    out: dict[str, Any] = {c: aggregate(rows, c) for c in CONVENTIONS}
    for c in CONVENTIONS:
        out[c]["overall_ci"] = bootstrap_overall(rows, c)
    general = [r for r in rows if not r.get("agentic")]
    per_turn = [r["score_released"] for r in general]
    videos = [r.get("video_id") or r["sample_id"] for r in general]
    out["per_turn_mean"] = clustered_se(per_turn, videos) if per_turn else None
    return out


def explain(row: dict[str, Any]) -> str | None:
    """Each criterion's verdict, one a line."""
    lines = []
    for v in row.get("criteria", ()):
        verdict = "failed call" if v.get("failed") else ("met" if v.get("met") else "not met")
        lines.append(f"{v['name']} ({v['category']}): {verdict}" + (f"; {v['explanation']}" if v.get("explanation") else ""))
    return "\n".join(lines) or None


SCORER = Scorer(
    name="rubric",
    title="Rubric (STARBench)",
    run=score_rubric,
    summarise=summarise,
    needs=Needs(judge="any", rubrics=True),
    value_field="score_released",
    headlines=(
        Headline("rubric overall (released)", "released.overall", "released.overall_ci"),
        Headline("rubric overall (paper)", "paper.overall", "paper.overall_ci"),
    ),
    lines=rubric_view.console_lines,
    sections=rubric_view.sections,
    compare_rows=rubric_view.compare_rows,
    explain=explain,
    paired=True,
    validates_judge=True,
)
