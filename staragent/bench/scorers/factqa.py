"""The ``factqa`` metric: fact questions scored by pattern and cited span (see ``bench.factqa``)."""

from __future__ import annotations

from typing import Any

from ..factqa import check_answer
from .base import Headline, Needs, Scorer, Section
from .common import skipped_row
from .display import scored


def score_factqa(units: list) -> list[dict[str, Any]]:
    """One row per scored turn (the last question of each case)."""
    rows = []
    for unit in units:
        meta = unit.sample.meta
        if "any" not in meta or unit.pair.index != meta.get("scored_turn", 0):
            continue
        if unit.skip_reason:
            rows.append({**skipped_row("factqa", unit), "kind": meta.get("kind", "")})
            continue
        verdict = check_answer(unit.answer, unit.record.evidence, meta["any"], meta.get("span"), meta.get("kind", ""))
        rows.append({
            "metric": "factqa", **unit.describe(), "kind": meta.get("kind", ""), "right": verdict.right, "score": float(verdict.right),
            "matched": verdict.matched, "cites_span": verdict.cites_span, "refused": verdict.refused,
            "tool_calls": len(unit.record.trajectory), "latency_s": unit.record.latency_s,
        })
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy overall, by kind and by video; a turn without an answer counts as wrong."""
    def tally(group: list[dict]) -> dict[str, Any]:
        right = sum(1 for r in group if r.get("right"))
        return {"n": len(group), "right": right, "accuracy": round(100.0 * right / len(group), 1) if group else None}

    by = {key: {} for key in ("kind", "video_id")}
    for key, table in by.items():
        for value in sorted({str(r.get(key, "")) for r in rows}):
            table[value] = tally([r for r in rows if str(r.get(key, "")) == value])
    return {**tally(rows), "turns": len(rows), "skipped": sum(1 for r in rows if r.get("skipped")), "by_kind": by["kind"], "by_video": by["video_id"]}


def console_lines(s: dict[str, Any]) -> list[str]:
    kinds = ", ".join(f"{kind} {m['right']}/{m['n']}" for kind, m in s["by_kind"].items())
    videos = ", ".join(f"{video} {m['right']}/{m['n']}" for video, m in s["by_video"].items())
    return [f"factqa ({scored(s, 'questions')}): {s['right']}/{s['n']} right ({s['accuracy']}%); by kind: {kinds}; by video: {videos}"]


def sections(m: dict[str, Any]) -> list[Section]:
    tables = [("", ["Questions", "Right", "Accuracy (%)", "Without an answer"], [[m["n"], m["right"], m["accuracy"], m.get("skipped", 0)]])]
    for key, title in (("by_kind", "Kind"), ("by_video", "Video")):
        rows = [[k, v["n"], v["right"], v["accuracy"]] for k, v in m[key].items()]
        tables.append((f"By {title.lower()}", [title, "Questions", "Right", "Accuracy (%)"], rows))
    return [Section("Fact questions (answer pattern and cited span)", tables)]


def explain(row: dict[str, Any]) -> str | None:
    if row.get("skipped"):
        return None
    said = f"matched {row['matched']!r}" if row.get("matched") else "matched no pattern"
    span = {None: "", True: "; cites the expected span", False: "; cites no evidence in the expected span"}[row.get("cites_span")]
    return said + span + ("; says nothing was found" if row.get("refused") else "")


SCORER = Scorer(
    name="factqa",
    title="Fact questions",
    run=lambda judge, units, workers: score_factqa(units),
    summarise=summarise,
    needs=Needs(judge="none", references=False),
    headlines=(Headline("factqa accuracy", "accuracy", chart=False),),
    lines=console_lines,
    sections=sections,
    explain=explain,
)
