"""The ``factqa`` metric: fact questions about real videos, scored by the fact and the evidence behind
it (the dataset kind is :mod:`staragent.bench.kinds.factqa_task`).

A case is right when one of its ``any`` patterns is found in the answer (Python ``re.search``,
case-insensitive) and, where ``span`` is given, an evidence interval the answer cites overlaps it.
An answer that says it found nothing (the judge side's own detector, :mod:`~staragent.bench.judges.refusal`)
is wrong, except in the kinds that expect exactly that (``REFUSAL_KINDS``). Only the last question of a
``chat`` case is scored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..judges.refusal import declines
from .common import skipped_row
from .display import scored
from .scorer import Headline, Needs, Scorer, Section

REFUSAL_KINDS = frozenset({"absent", "visual-refusal"})


@dataclass(frozen=True)
class Verdict:
    right: bool
    matched: str | None
    """the pattern the answer matched (None: none did)"""
    cites_span: bool | None
    """whether cited evidence overlaps the expected span (None: the case has no span)"""
    refused: bool


def check_answer(answer: str, evidence: list[Any], patterns: list[str], span: list[float] | None, kind: str) -> Verdict:
    """Score one answer by the rule above. ``evidence`` items have ``start`` and
    ``end`` (seconds), as dicts or objects."""
    matched = next((p for p in patterns if re.search(p, answer, re.I)), None)
    cites = None
    if span is not None:
        lo, hi = span
        cites = any(_get(e, "start") < hi and _get(e, "end") > lo for e in evidence)
    refused = declines(answer)
    right = matched is not None and cites is not False and (kind in REFUSAL_KINDS or not refused)
    return Verdict(right, matched, cites, refused)


def _get(item: Any, key: str) -> float:
    return float(item[key] if isinstance(item, dict) else getattr(item, key))


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
