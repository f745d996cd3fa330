"""Reports of one run: a JSON summary, Markdown, and a self-contained HTML page (inline SVG charts, no
external assets). Comparing runs is :mod:`staragent.bench.compare`.

The paper's reference rows (Tables 3-6 of the STARBench paper) are printed beside the run's numbers.
They are comparable only for the STARBench data judged by an LLM; on the synthetic offline benchmark
or with the heuristic judge they are context, not a target. Scores that are means over turns carry a
95% interval from a bootstrap that resamples whole videos.
"""

from __future__ import annotations

import functools
import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..fsutil import write_json, write_text
from . import tasks as tk
from .charts import Table, bar_chart, html_tables, interval_chart, page
from .charts import fmt as _fmt
from .charts import markdown_table as _table
from .runner import load_run
from .scorers import JUDGE_FREE_METRICS, METRICS, summarise_metric
from .scorers.meta import clustered_se
from .scoring import current_tag, read_scores

REFERENCE_MODELS = ("Gemini-2.5-Flash", "STARAgent")
TRAJECTORY_ROWS = (
    "turns", "unanswered", "score", "pooled_score", "tool_precision", "tool_recall", "tool_f1", "arg_accuracy",
    "order_agreement", "final_answer_accuracy", "redundant_calls", "failed_calls", "extra_calls", "wrong_tool_calls",
    "steps", "latency_s", "tokens_in", "tokens_out", "failed_judge_calls",
)


@functools.lru_cache(maxsize=1)
def paper_reference() -> dict[str, Any]:
    return json.loads((Path(__file__).parent / "data" / "paper_reference.json").read_text(encoding="utf-8"))


def judge_label(identity: dict[str, Any] | None, *, short: bool = False) -> str:
    """Who judged, in words; ``short`` for tables: ``HEURISTIC ...``, ``SCRIPTED ...`` or ``LLM <model>``."""
    if not identity:
        return "no judge" if short else "no judge (reference-based metric)"
    kind = identity.get("kind")
    name = f"{identity.get('model_id')}" + (f" @ {identity['revision']}" if identity.get("revision") else "")
    name += f" at {identity['endpoint']}" if identity.get("endpoint") else ""
    if short:
        return f"{str(kind).upper()} {name}"
    if kind == "heuristic":
        return f"HEURISTIC key-fact matcher ({name}); not an LLM verdict"
    if kind == "scripted":
        return f"SCRIPTED stand-in judge ({name}); deterministic test double, not an LLM verdict"
    decoding = ", ".join(f"{k}={v}" for k, v in sorted((identity.get("decoding") or {}).items()))
    served = ", ".join(identity.get("served_models") or [])
    fingerprints = ", ".join(identity.get("system_fingerprints") or [])
    return (
        f"LLM judge {name}"
        + (f" ({decoding})" if decoding else "")
        + (f"; the server reported model {served}" if served else "")
        + (f", system fingerprint {fingerprints}" if fingerprints else "")
    )


def latest_rows(rows: list[dict[str, Any]], judge_tag: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """For each metric, the rows of one judge: ``judge_tag`` if given (today's tag or the one the rows
    were written under), else the most recently scored (timestamps have whole seconds: within one
    second, the rows written last)."""
    judge_tag = current_tag(rows, judge_tag)
    by_metric: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    written: dict[tuple[str, str], tuple[str, int]] = {}
    for position, row in enumerate(rows):
        tag = row.get("judge_tag", "none")
        by_metric[row["metric"]][tag].append(row)
        written[(row["metric"], tag)] = max(written.get((row["metric"], tag), ("", -1)), (row.get("scored_at", ""), position))
    out = {}
    for metric, by_tag in by_metric.items():
        if judge_tag and metric not in JUDGE_FREE_METRICS:
            if judge_tag in by_tag:
                out[metric] = by_tag[judge_tag]
            continue
        tag = max(by_tag, key=lambda t, m=metric: written[(m, t)])
        out[metric] = by_tag[tag]
    return out


def build_summary(run_dir: str | Path, judge_tag: str | None = None) -> dict[str, Any]:
    meta, samples, records = load_run(run_dir)
    rows = read_scores(run_dir)
    chosen = latest_rows(rows, judge_tag)
    metrics: dict[str, Any] = {}
    judges: dict[str, Any] = {}
    metric_judge_tags: dict[str, str] = {}
    for metric in METRICS:
        if metric not in chosen:
            continue
        metric_rows = chosen[metric]
        metrics[metric] = summarise_metric(metric, metric_rows)
        judges[metric] = metric_rows[0].get("judge")
        metric_judge_tags[metric] = metric_rows[0].get("judge_tag", "none")
        if metric == "rubric":
            per_turn = [r["score_released"] for r in metric_rows if not r.get("agentic")]
            videos = [r.get("video_id") or r["sample_id"] for r in metric_rows if not r.get("agentic")]
            metrics[metric]["per_turn_mean"] = clustered_se(per_turn, videos) if per_turn else None
    total = sum(len(s.qa_turns()) for s in samples)
    return {
        "run_dir": str(run_dir),
        "dataset": meta.get("dataset", {}),
        "agent": meta.get("agent", {}),
        "status": meta.get("status"),
        "options": meta.get("options", {}),
        "git": meta.get("environment", {}).get("git", {}),
        "turns": {"total": total, "done": len(records), "errors": sum(1 for r in records if not r.ok)},
        "judges": judges,
        "judge_tag": current_tag(rows, judge_tag),
        "metric_judge_tags": metric_judge_tags,
        "judge_tags": sorted({r.get("judge_tag", "none") for r in rows}),
        "metrics": metrics,
        "reference": {"models": list(REFERENCE_MODELS), "source": paper_reference()["source"]},
    }


# ---------------------------------------------------------------- Markdown


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


def rubric_tables(summary: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    rub = summary["metrics"]["rubric"]
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


def _ci(summary: dict[str, Any] | None, key: str = "score_ci") -> str:
    ci = (summary or {}).get(key)
    return f"{ci['lower']:.2f} – {ci['upper']:.2f}" if ci else "–"


def metric_sections(metrics: dict[str, Any]) -> list[tuple[str, list[Table]]]:
    """``(section title, tables)`` for every metric but the rubric (see :func:`rubric_tables`)."""
    out: list[tuple[str, list[Table]]] = []
    if "trajectory" in metrics:
        t = metrics["trajectory"]
        tables: list[Table] = [("", ["Metric", "Value"], [[k, t.get(k)] for k in TRAJECTORY_ROWS])]
        if t.get("per_argument"):
            tables.append(("Arguments", ["Argument", "Accuracy"], [[k, v] for k, v in t["per_argument"].items()]))
        out.append(("Tool-use trajectories (agentic turns)", tables))
    for metric, title in (("vdeval", "VDEval (session-based, with summary)"), ("lave", "LAVE (turn-based)")):
        if metric in metrics:
            m = metrics[metric]
            ratings = "/".join(str(m["ratings"][k]) for k in ("1", "2", "3"))
            header = ["Turns", "Score (%)", "95% CI", "Mean rating (1-3)", "Ratings 1/2/3", "Failed calls", "Skipped"]
            row = [m["turns"], m["score"], _ci(m), m["mean_rating"], ratings, m["failed_calls"], m.get("skipped", 0)]
            out.append((title, [("", header, [row])]))
    if "lexical" in metrics:
        m = metrics["lexical"]
        header = ["N", "BLEU-4", "ROUGE-L", "ROUGE-L 95% CI", "METEOR", "METEOR 95% CI", "METEOR variant", "Skipped"]
        row = [
            m.get("n"), m.get("bleu"), m.get("rouge_l"), _ci(m, "rouge_l_ci"), m.get("meteor"), _ci(m, "meteor_ci"),
            m.get("meteor_variant"), m.get("skipped", 0),
        ]
        out.append(("Lexical", [("", header, [row])]))
    if "consensus" in metrics:
        m = metrics["consensus"]
        row = [m["turns"], m["metric"], m["score"], _ci(m), m.get("skipped", 0)]
        table = ("", ["Turns", "Metric", "Score", "95% CI", "Skipped"], [row])
        out.append(("Consensus (pseudo-references from the pool of human answers)", [table]))
    if "videoautobench" in metrics:
        m = metrics["videoautobench"]
        header = ["N", "vs selected", "vs rejected", "Score", "95% CI", "Failed calls", "Skipped"]
        row = [
            m.get("n"), m.get("selected"), m.get("rejected"), m.get("score"), _ci(m), m.get("failed_calls"),
            m.get("skipped", 0),
        ]
        out.append(("VideoAutoBench", [("", header, [row])]))
    if "giraffe" in metrics:
        tables = []
        for evaluator, m in metrics["giraffe"].items():
            dims = [k for k in m if k not in ("n", "avg", "failed_calls", "skipped")]
            row = [m["n"], *[m[d] for d in dims], m["avg"], m["failed_calls"], m.get("skipped", 0)]
            tables.append((evaluator.upper(), ["N", *dims, "avg", "failed", "skipped"], [row]))
        out.append(("Giraffe-Bench evaluators (0-100)", tables))
    if "factqa" in metrics:
        m = metrics["factqa"]
        tables = [("", ["Questions", "Right", "Accuracy (%)", "Without an answer"], [[m["n"], m["right"], m["accuracy"], m.get("skipped", 0)]])]
        for key, title in (("by_kind", "Kind"), ("by_video", "Video")):
            tables.append((f"By {title.lower()}", [title, "Questions", "Right", "Accuracy (%)"], [[k, v["n"], v["right"], v["accuracy"]] for k, v in m[key].items()]))
        out.append(("Fact questions (answer pattern and cited span)", tables))
    return out


def to_markdown(summary: dict[str, Any]) -> str:
    ds, agent, turns = summary["dataset"], summary["agent"], summary["turns"]
    lines = [
        f"# Benchmark report: {ds.get('name', '?')} with agent {agent.get('name', '?')}",
        "",
        f"- run: `{summary['run_dir']}` ({summary.get('status')}); turns {turns['done']}/{turns['total']}, "
        f"agent errors {turns['errors']}",
        f"- dataset: {ds.get('kind')} `{ds.get('spec')}` (fingerprint {ds.get('fingerprint')})",
        f"- agent config: `{json.dumps(agent.get('config', {}), sort_keys=True)}`",
        f"- simulated tools: {summary['options'].get('simulated_tools')}; git revision "
        f"{summary['git'].get('revision') or 'unknown'}{' (dirty)' if summary['git'].get('dirty') else ''}",
        "",
        "## Judges",
        "",
    ]
    for metric, identity in summary["judges"].items():
        lines.append(f"- {metric}: {judge_label(identity)}")
    metrics = summary["metrics"]
    if "rubric" in metrics:
        rub = metrics["rubric"]
        lines += [
            "",
            "## Rubric (STARBench)",
            "",
            "`released`: per task, pooled obtained/maximum over positive weights, penalties ignored; `paper`: "
            "violated penalties subtract. Category = mean of its tasks, overall = mean of the categories; "
            "agentic turns are reported apart. Failed judge calls count as not met: "
            f"{rub['released']['failed_calls']} of {rub['released']['criteria']} criterion checks failed; "
            f"{rub['released'].get('unanswered', 0)} turns had no answer and score 0.",
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
        for title, header, rows in rubric_tables(summary):
            lines += ["", f"### {title}", "", _table(header, rows)]
    for title, tables in metric_sections(metrics):
        lines += ["", f"## {title}"]
        for subtitle, header, rows in tables:
            lines += ["", *([f"### {subtitle}", ""] if subtitle else []), _table(header, rows)]
    if "rubric" in metrics:  # only the rubric tables carry the paper's reference columns
        lines += ["", f"_Reference columns: {summary['reference']['source']}._"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- HTML


def score_intervals(metrics: dict[str, Any]) -> list[tuple[str, float, float | None, float | None]]:
    """``(label, score, lower, upper)`` of every mean-over-turns score with a video-bootstrap interval."""
    rows = []
    if "rubric" in metrics:
        for convention in ("released", "paper"):
            r = metrics["rubric"][convention]
            if r.get("overall") is not None:
                ci = r.get("overall_ci") or {}
                rows.append((f"rubric overall ({convention})", r["overall"], ci.get("lower"), ci.get("upper")))
    for metric, key, ci_key, label in (
        ("vdeval", "score", "score_ci", "VDEval"),
        ("lave", "score", "score_ci", "LAVE"),
        ("videoautobench", "score", "score_ci", "VideoAutoBench"),
        ("consensus", "score", "score_ci", "consensus"),
        ("lexical", "rouge_l", "rouge_l_ci", "ROUGE-L"),
        ("lexical", "meteor", "meteor_ci", "METEOR"),
        ("lexical", "bleu", "", "BLEU-4 (corpus, no interval)"),
    ):
        m = metrics.get(metric) or {}
        if m.get(key) is not None:
            ci = m.get(ci_key) or {}
            rows.append((label, m[key], ci.get("lower"), ci.get("upper")))
    return rows


def charts_of(metrics: dict[str, Any]) -> list[str]:
    charts = []
    if "rubric" in metrics:
        rel, pap = metrics["rubric"]["released"], metrics["rubric"]["paper"]
        present = [t for t in tk.CANONICAL_TASKS if t in rel["tasks"]]
        if present:
            series = {"this run (released)": [rel["tasks"][t]["score"] for t in present],
                      "this run (paper)": [pap["tasks"][t]["score"] for t in present]}  # fmt: skip
            for k, m in enumerate(REFERENCE_MODELS):
                series[f"{m} (paper, Table 3)"] = [_ref("task", t)[k] for t in present]
            charts.append(bar_chart("Rubric score per task (%)", [tk.TASK_NAMES[t] for t in present], series))
        for key, section, title in (("by_duration", "duration", "By video duration (%)"), ("by_modality", "modality", "By modality set (%)")):
            groups = list(rel[key])
            if groups:
                series = {"this run (released)": [rel[key][g]["score"] for g in groups]}
                for k, m in enumerate(REFERENCE_MODELS):
                    series[f"{m} (paper)"] = [_ref(section, g)[k] for g in groups]
                charts.append(bar_chart(title, groups, series))
    intervals = score_intervals(metrics)
    if intervals:
        charts.append(interval_chart("Scores (%) with 95% intervals (bootstrap over videos)", intervals, 0.0, 100.0))
    rated = [m for m in ("vdeval", "lave") if metrics.get(m, {}).get("turns")]
    if rated:
        series = {m.upper(): [100 * metrics[m]["ratings"][k] / metrics[m]["turns"] for k in ("1", "2", "3")] for m in rated}
        charts.append(bar_chart("Share of ratings (%)", ["1 wrong", "2 partly right", "3 right"], series))
    if "trajectory" in metrics and metrics["trajectory"].get("turns"):
        t = metrics["trajectory"]
        keys = ["tool_precision", "tool_recall", "tool_f1", "arg_accuracy", "order_agreement", "final_answer_accuracy"]
        charts.append(bar_chart("Trajectory metrics (%)", keys, {"this run": [None if t.get(k) is None else 100 * t[k] for k in keys]}))
    return charts


def to_html(summary: dict[str, Any], markdown: str) -> str:
    metrics = summary["metrics"]
    tables = html_tables(rubric_tables(summary)) if "rubric" in metrics else ""
    for title, section_tables in metric_sections(metrics):
        tables += f"<h2>{html.escape(title)}</h2>" + html_tables(section_tables)
    judges = "".join(f"<li><b>{html.escape(m)}</b>: {html.escape(judge_label(i))}</li>" for m, i in summary["judges"].items())
    turns = summary["turns"]
    body = (
        f"<p>Turns {turns['done']}/{turns['total']}, agent errors {turns['errors']}, "
        f"status {html.escape(str(summary.get('status')))}.</p>"
        f"<h2>Judges</h2><ul>{judges}</ul>"
        f'<div class="charts">{"".join(charts_of(metrics))}</div>'
        f"{tables}"
        f"<h2>Full report (Markdown)</h2><pre>{html.escape(markdown)}</pre>"
        f"<h2>Summary (JSON)</h2><pre>{html.escape(json.dumps(summary, indent=1, default=str))}</pre>"
    )
    return page(f"Benchmark report: {summary['dataset'].get('name')} with {summary['agent'].get('name')}", body)


def write_report(run_dir: str | Path, out_dir: str | Path | None = None, judge_tag: str | None = None) -> dict[str, Path]:
    """Write ``summary.json``, ``report.md`` and ``report.html`` (into ``out_dir`` or the run dir)."""
    summary = build_summary(run_dir, judge_tag)
    out = Path(out_dir) if out_dir else Path(run_dir)
    markdown = to_markdown(summary)
    paths = {"json": out / "summary.json", "markdown": out / "report.md", "html": out / "report.html"}
    write_json(paths["json"], summary)
    write_text(paths["markdown"], markdown)
    write_text(paths["html"], to_html(summary, markdown))
    return paths
