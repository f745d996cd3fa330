"""VDEval and LAVE (seed 000): an LLM rates each answer 1-3 after the marker ``So rating=``; the score
of a turn is (rating - 1) / 2, reported in percent.

- **VDEval** is session-based: the prompt holds the video summary (for VDAct, the refined scenario
  summary), then the dialogue so far — each earlier question with its reference answer, the candidate's
  answer and the judge's own earlier output (rationale and rating) — then the turn to rate. Turns of a
  dialogue are therefore judged in order; dialogues run in parallel.
- **LAVE** is turn-based: question, reference and candidate answer only, with generic few-shot
  examples and no summary.

A failed judge call (no parsable rating after retries) is recorded with ``rating: null`` and counts as
the lowest score, 0%. A turn without an answer is not judged: its row is marked ``skipped``, it stays out
of the score and is counted (in VDEval's session it appears as unanswered).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...prompts import render
from ..charts import bar_chart
from ..judges.parsing import RATING_MARKER, parse_rating
from .common import Unit, judged, mean, pmap, score_summary, skipped_row
from .display import ci_cell, ci_suffix, fraction, pct, scored
from .scorer import Headline, Needs, Scorer, Section


def rating_score(rating: int | None) -> float:
    return 0.0 if rating is None else 100.0 * (rating - 1) / 2


def _summary_of(unit: Unit) -> str:
    return str(unit.sample.meta.get("summary") or unit.sample.scenario or "")


def _row(metric: str, unit: Unit, call: Any) -> dict[str, Any]:
    rating = call.value["rating"] if call.ok else None
    return {
        "metric": metric,
        **unit.describe(),
        "dial_id": unit.sample.sample_id,
        "rating": rating,
        "score": rating_score(rating),
        "failed": not call.ok,
        "error": call.error,
        "judge_reply": call.reply,
        "cached": call.cached,
    }


def score_vdeval(judge: Any, units: list[Unit], workers: int = 1, use_summary: bool = True) -> list[dict[str, Any]]:
    by_sample: dict[str, list[Unit]] = defaultdict(list)
    for unit in units:
        by_sample[unit.sample.sample_id].append(unit)

    def session(group: list[Unit]) -> list[dict[str, Any]]:
        group = sorted(group, key=lambda u: u.pair.index)
        previous: list[dict[str, str]] = []
        rows = []
        for unit in group:
            if unit.skip_reason:
                rows.append(skipped_row("vdeval", unit))
                missing = f"(no answer: {unit.skip_reason})"
                previous.append({"question": unit.question, "reference": unit.reference, "candidate": missing, "output": "(not rated)"})
                continue
            prompt = render(
                "bench_vdeval",
                summary=_summary_of(unit) if use_summary else "",
                previous=previous,
                question=unit.question,
                reference=unit.reference,
                candidate=unit.answer,
            )
            call = judge.ask(prompt, parse_rating)
            rows.append(_row("vdeval", unit, call))
            if call.ok:
                output = f"{call.value['rationale']} {RATING_MARKER}{call.value['rating']}".strip()
            else:
                output = "(no rating was given for this turn)"
            previous.append(
                {"question": unit.question, "reference": unit.reference, "candidate": unit.answer, "output": output}
            )
        return rows

    groups = list(by_sample.values())
    return [row for rows in pmap(session, groups, workers) for row in rows]


def score_lave(judge: Any, units: list[Unit], workers: int = 1) -> list[dict[str, Any]]:
    def one(unit: Unit) -> dict[str, Any]:
        if unit.skip_reason:
            return skipped_row("lave", unit)
        prompt = render("bench_lave", question=unit.question, reference=unit.reference, candidate=unit.answer)
        return _row("lave", unit, judge.ask(prompt, parse_rating))

    return pmap(one, units, workers)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    summary = score_summary(rows)
    rows, _ = judged(rows)
    return {
        **summary,
        "mean_rating": mean(r["rating"] for r in rows if r["rating"] is not None),
        "failed_calls": sum(1 for r in rows if r["failed"]),
        "ratings": {str(k): sum(1 for r in rows if r["rating"] == k) for k in (1, 2, 3)},
    }


def _console(name: str):
    def lines(s: dict[str, Any]) -> list[str]:
        return [
            f"{name} ({scored(s)}): score {pct(s['score'])}{ci_suffix(s.get('score_ci'))}, mean rating "
            f"{fraction(s['mean_rating'])} of 1-3; failed judge calls {s['failed_calls']}"
        ]

    return lines


def _sections(name: str, title: str):
    def sections(m: dict[str, Any]) -> list[Section]:
        ratings = "/".join(str(m["ratings"][k]) for k in ("1", "2", "3"))
        header = ["Turns", "Score (%)", "95% CI", "Mean rating (1-3)", "Ratings 1/2/3", "Failed calls", "Skipped"]
        row = [m["turns"], m["score"], ci_cell(m), m["mean_rating"], ratings, m["failed_calls"], m.get("skipped", 0)]
        charts = []
        if m.get("turns"):
            shares = [100 * m["ratings"][k] / m["turns"] for k in ("1", "2", "3")]
            charts.append(bar_chart(f"Share of ratings (%), {name.upper()}", ["1 wrong", "2 partly right", "3 right"], {name.upper(): shares}))
        return [Section(title, [("", header, [row])], charts=charts)]

    return sections


def _declare(name: str, label: str, title: str, run: Any) -> Scorer:
    return Scorer(
        name=name,
        title=title,
        run=run,
        summarise=summarise,
        needs=Needs(judge="llm"),
        headlines=(Headline(label, "score", "score_ci"),),
        lines=_console(name),
        sections=_sections(name, title),
        validates_judge=True,
    )


VDEVAL = _declare("vdeval", "VDEval", "VDEval (session-based, with summary)", lambda judge, units, workers: score_vdeval(judge, units, workers))
LAVE = _declare("lave", "LAVE", "LAVE (turn-based)", score_lave)
