"""VideoAutoBench scoring (seed 003). The judge compares the answer under test (Model B) with a
human-selected answer and, separately, with a human-rejected answer (Model A in both).

- against the selected answer: win 1, tie 0.5, loss 0;
- against the rejected answer: only a win scores (1), a tie or a loss scores 0;
- the final score is the mean of the two; all in percent.

Released judgments (``GPT4o Judge response``) end in an ``[Overall Judge]`` block with a marker such as
``[[A>B]]``; :func:`staragent.bench.judges.parsing.parse_pairwise` reads it. A judgment with no
readable verdict scores 0 and is counted in ``unparsed``. A question the model under test did not
answer is not judged; it is counted in ``skipped`` and left out of ``n``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...fsutil import read_jsonl
from ...prompts import render
from ..harness_errors import DatasetError
from ..judges.parsing import parse_pairwise
from .common import Unit, interval, judged, pmap, skipped_row
from .display import ci_cell, ci_suffix, pct, scored
from .scorer import Headline, Needs, Scorer, Section

JUDGMENT_FIELDS = ("GPT4o Judge response", "judge_response", "judgment", "judge")


def outcome_for_b(verdict: str | None) -> str | None:
    if verdict is None:
        return None
    if verdict == "B":
        return "win"
    if verdict == "A":
        return "loss"
    return "tie"


def selected_points(outcome: str | None) -> float:
    return {"win": 1.0, "tie": 0.5}.get(outcome or "", 0.0)


def rejected_points(outcome: str | None) -> float:
    return 1.0 if outcome == "win" else 0.0


def judgment_text(row: dict[str, Any], field: str | None = None) -> str:
    for name in (field,) if field else JUDGMENT_FIELDS:
        if name and name in row:
            return str(row[name] or "")
    raise DatasetError(
        f"judgment row {row.get('qid', '?')} has none of the fields {', '.join(JUDGMENT_FIELDS)}; "
        "pass the field name holding the judge's text"
    )


def read_judgments(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"judgments file not found: {path}")
    try:
        return read_jsonl(path)
    except ValueError as exc:
        raise DatasetError(f"{path} is not a JSON-lines file of judgments ({exc}); fix or replace it") from None


def score_judgments(
    selected: list[dict[str, Any]], rejected: list[dict[str, Any]], field: str | None = None
) -> dict[str, Any]:
    """``{"n", "selected", "rejected", "score"}`` (percent) plus counts, over questions judged both ways."""

    def outcomes(rows: list[dict[str, Any]]) -> dict[str, str | None]:
        out = {}
        for i, row in enumerate(rows):
            key = str(row.get("qid") or row.get("id") or i)
            out[key] = outcome_for_b(parse_pairwise(judgment_text(row, field)))
        return out

    sel, rej = outcomes(selected), outcomes(rejected)
    common = [k for k in sel if k in rej]
    n = len(common)
    if n == 0:
        raise DatasetError("the selected and rejected judgments share no question id; pass files of the same model")
    s = 100 * sum(selected_points(sel[k]) for k in common) / n
    r = 100 * sum(rejected_points(rej[k]) for k in common) / n
    return {
        "n": n,
        "selected": s,
        "rejected": r,
        "score": (s + r) / 2,
        "unparsed": sum(1 for k in common if sel[k] is None) + sum(1 for k in common if rej[k] is None),
        "unmatched": len(set(sel) ^ set(rej)),
        "outcomes": {
            "selected": {o: sum(1 for k in common if sel[k] == o) for o in ("win", "tie", "loss")},
            "rejected": {o: sum(1 for k in common if rej[k] == o) for o in ("win", "tie", "loss")},
        },
    }


def score_videoautobench(judge: Any, units: list[Unit], workers: int = 1) -> list[dict[str, Any]]:
    """Judge each answer (Model B) against the selected and the rejected answer (Model A), one order,
    as the benchmark does."""

    def one(unit: Unit) -> dict[str, Any]:
        if unit.skip_reason:
            return skipped_row("videoautobench", unit)
        meta = unit.sample.meta
        result: dict[str, Any] = {"metric": "videoautobench", **unit.describe()}
        for which in ("selected", "rejected"):
            reference = str(meta.get(f"{which}_answer") or (unit.reference if which == "selected" else ""))
            prompt = render(
                "bench_pairwise", persona=meta.get("persona", ""), question=unit.question, context="",
                answer_a=reference, answer_b=unit.answer,
            )  # fmt: skip
            call = judge.ask(prompt, parse_pairwise)
            outcome = outcome_for_b(call.value if call.ok else None)
            result[which] = {"outcome": outcome, "failed": not call.ok, "judge_reply": call.reply, "cached": call.cached}
        result["selected_points"] = selected_points(result["selected"]["outcome"])
        result["rejected_points"] = rejected_points(result["rejected"]["outcome"])
        result["score"] = 50.0 * (result["selected_points"] + result["rejected_points"])
        return result

    return pmap(one, [u for u in units if u.sample.meta.get("selected_answer") is not None], workers)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    rows, skipped = judged(rows)
    n = len(rows)
    if not n:
        return {"n": 0, "skipped": skipped}
    s = 100 * sum(r["selected_points"] for r in rows) / n
    r = 100 * sum(r["rejected_points"] for r in rows) / n
    failed = sum(int(x["selected"]["failed"]) + int(x["rejected"]["failed"]) for x in rows)
    return {
        "n": n,
        "selected": s,
        "rejected": r,
        "score": (s + r) / 2,
        "score_ci": interval(rows, "score"),
        "failed_calls": failed,
        "skipped": skipped,
    }


def console_lines(s: dict[str, Any]) -> list[str]:
    return [
        f"videoautobench ({scored(s, 'answers')}): score {pct(s.get('score'))}{ci_suffix(s.get('score_ci'))} "
        f"(vs selected {pct(s.get('selected'))}, vs rejected {pct(s.get('rejected'))}); "
        f"failed judge calls {s.get('failed_calls', 0)}"
    ]


def sections(m: dict[str, Any]) -> list[Section]:
    header = ["N", "vs selected", "vs rejected", "Score", "95% CI", "Failed calls", "Skipped"]
    row = [m.get("n"), m.get("selected"), m.get("rejected"), m.get("score"), ci_cell(m), m.get("failed_calls"), m.get("skipped", 0)]
    return [Section("VideoAutoBench", [("", header, [row])])]


def explain(row: dict[str, Any]) -> str | None:
    parts = []
    for which in ("selected", "rejected"):
        verdict = row.get(which) or {}
        parts.append(f"against the {which} answer: {verdict.get('outcome') or 'no verdict'}")
        if verdict.get("judge_reply"):
            parts.append(verdict["judge_reply"])
    return "\n".join(parts)


SCORER = Scorer(
    name="videoautobench",
    title="VideoAutoBench",
    run=score_videoautobench,
    summarise=summarise,
    needs=Needs(judge="llm"),
    headlines=(Headline("VideoAutoBench", "score", "score_ci"),),
    lines=console_lines,
    sections=sections,
    explain=explain,
)
