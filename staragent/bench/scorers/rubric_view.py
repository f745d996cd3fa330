"""How the rubric scorer reads: its console line, its report section with the STARBench paper's
reference rows (Tables 3-6) beside the run's numbers, its charts and its rows in ``compare``.

The reference rows are comparable only for the STARBench data judged by an LLM; on the synthetic
offline benchmark or with the heuristic judge they are context, not a target.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from .. import tasks as tk
from ..charts import Table, bar_chart
from ..charts import fmt as _fmt
from .display import ci_suffix, pct
from .scorer import Section

REFERENCE_MODELS = ("Gemini-2.5-Flash", "STARAgent")


@functools.lru_cache(maxsize=1)
def paper_reference() -> dict[str, Any]:
    return json.loads((Path(__file__).parent.parent / "data" / "paper_reference.json").read_text(encoding="utf-8"))


def _ref(section: str, key: str) -> list[Any]:
    ref = paper_reference()
    table = {
        "task": ref["table3"]["tasks"],
        "category": ref["table3"]["categories"],
        "duration": ref["table4_duration"],
        "modality": ref["table5_modality"],
        "turn_type": ref["table6_turn_type"],
    }[section]
    row = table.get(key, {})
    return [row.get(m) for m in REFERENCE_MODELS]


def console_lines(s: dict[str, Any]) -> list[str]:
    rel, pap = s["released"], s["paper"]
    agentic = rel["agentic"]
    line = (
        f"rubric ({rel['turns']} turns): overall released {pct(rel['overall'])}{ci_suffix(rel.get('overall_ci'))}, "
        f"paper {pct(pap['overall'])}"
    )
    line += f"; agentic {pct(agentic['score'])} ({agentic['n']} turns)" if agentic else ""
    return [line + f"; unanswered {rel['unanswered']}; failed judge calls {rel['failed_calls']}"]


def tables(rub: dict[str, Any]) -> list[Table]:
    rel, pap = rub["released"], rub["paper"]
    ref_head = [f"{m} (paper)" for m in REFERENCE_MODELS]
    out = []
    rows = []
    for cat, members in tk.CATEGORIES.items():
        for task in members:
            if task in rel["tasks"]:
                rows.append([tk.TASK_NAMES[task], rel["tasks"][task]["n"], rel["tasks"][task]["score"], pap["tasks"][task]["score"], *_ref("task", task)])
        if cat in rel["categories"]:
            rows.append([f"**{tk.CATEGORY_NAMES[cat]} avg.**", rel["categories"][cat]["n"], rel["categories"][cat]["score"], pap["categories"][cat]["score"], *_ref("category", cat)])
    ref = paper_reference()["table3"]
    rows.append(["**Overall**", sum(t["n"] for t in rel["tasks"].values()), rel["overall"], pap["overall"], *[ref["overall"][m] for m in REFERENCE_MODELS]])
    if rel["agentic"]:
        rows.append(["**Agentic tasks**", rel["agentic"]["n"], rel["agentic"]["score"], pap["agentic"]["score"], *[ref["agentic"][m] for m in REFERENCE_MODELS]])
    for task, v in rel["unmapped"].items():
        rows.append([f"(unmapped) {task}", v["n"], v["score"], pap["unmapped"][task]["score"], None, None])
    out.append(("Rubric scores by task (%)", ["Task", "Turns", "released", "paper", *ref_head], rows))
    for key, title, section in (
        ("by_duration", "By video duration (%)", "duration"),
        ("by_modality", "By modality set of the question (%)", "modality"),
        ("by_turn_type", "Single- vs multi-turn (%)", "turn_type"),
        ("by_difficulty", "By difficulty (%)", None),
    ):
        rows = [
            [k, v["n"], v["score"], pap[key][k]["score"], *(_ref(section, k) if section else [None, None])]
            for k, v in rel[key].items()
        ]
        if rows:
            out.append((title, ["Group", "Turns", "released", "paper", *ref_head], rows))
    return out


def notes(rub: dict[str, Any]) -> list[str]:
    lines = [
        "`released`: per task, pooled obtained/maximum over positive weights, penalties ignored; `paper`: "
        "violated penalties subtract. Category = mean of its tasks, overall = mean of the categories; "
        "agentic turns are reported apart. Failed judge calls count as not met: "
        f"{rub['released']['failed_calls']} of {rub['released']['criteria']} criterion checks failed; "
        f"{rub['released'].get('unanswered', 0)} turns had no answer and score 0."
    ]
    for convention in ("released", "paper"):
        ci = rub[convention].get("overall_ci")
        if ci:
            lines.append(
                f"Overall ({convention}) 95% interval, bootstrap over {ci['videos']} videos: "
                f"{ci['lower']:.2f} – {ci['upper']:.2f}."
            )
    pt = rub.get("per_turn_mean")
    if pt:
        lines.append(
            f"Mean per-turn released score {pt['mean']:.2f}% ± {_fmt(pt['se_clustered'])} "
            f"(standard error clustered by video, {pt['clusters']} videos; unclustered ± {_fmt(pt['se'])})."
        )
    return lines


def charts(rub: dict[str, Any]) -> list[str]:
    rel, pap = rub["released"], rub["paper"]
    out = []
    present = [t for t in tk.CANONICAL_TASKS if t in rel["tasks"]]
    if present:
        series = {"this run (released)": [rel["tasks"][t]["score"] for t in present],
                  "this run (paper)": [pap["tasks"][t]["score"] for t in present]}  # fmt: skip
        for k, m in enumerate(REFERENCE_MODELS):
            series[f"{m} (paper, Table 3)"] = [_ref("task", t)[k] for t in present]
        out.append(bar_chart("Rubric score per task (%)", [tk.TASK_NAMES[t] for t in present], series))
    for key, section, title in (("by_duration", "duration", "By video duration (%)"), ("by_modality", "modality", "By modality set (%)")):
        groups = list(rel[key])
        if groups:
            series = {"this run (released)": [rel[key][g]["score"] for g in groups]}
            for k, m in enumerate(REFERENCE_MODELS):
                series[f"{m} (paper)"] = [_ref(section, g)[k] for g in groups]
            out.append(bar_chart(title, groups, series))
    return out


def sections(rub: dict[str, Any]) -> list[Section]:
    source = paper_reference()["source"]
    return [Section("Rubric (STARBench)", tables(rub), [*notes(rub), f"_Reference columns: {source}._"], charts(rub))]


def compare_rows(r: dict[str, Any]) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = [("Overall (released)", r["released"]["overall"]), ("Overall (paper)", r["paper"]["overall"])]
    for cat in tk.CATEGORIES:
        rows.append((tk.CATEGORY_NAMES[cat], r["released"]["categories"].get(cat, {}).get("score")))
    for task in tk.CANONICAL_TASKS:
        rows.append((tk.TASK_NAMES[task], r["released"]["tasks"].get(task, {}).get("score")))
    rows.append(("Agentic", (r["released"]["agentic"] or {}).get("score")))
    return rows
