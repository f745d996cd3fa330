"""Reports: a JSON summary, Markdown, and a self-contained HTML page (inline SVG charts, no external
assets) for one run; and the comparison of several runs (score deltas, paired tests, and optionally
pairwise judging with Bradley-Terry ratings).

The paper's reference rows (Tables 3-6 of the STARBench paper) are printed beside the run's numbers.
They are comparable only for the STARBench data judged by an LLM; on the synthetic offline benchmark
or with the heuristic judge they are context, not a target.
"""

from __future__ import annotations

import functools
import html
import json
import math
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..fsutil import write_json, write_text
from . import tasks as tk
from .runner import load_run
from .scorers import JUDGE_FREE_METRICS, METRICS, summarise_metric
from .scorers.meta import clustered_se
from .scoring import read_scores

REFERENCE_MODELS = ("Gemini-2.5-Flash", "STARAgent")
PALETTE = ("#3b6fb6", "#e08a2c", "#7a7a7a", "#5aa469", "#b5485d", "#8e6cbf")


@functools.lru_cache(maxsize=1)
def paper_reference() -> dict[str, Any]:
    return json.loads((Path(__file__).parent / "data" / "paper_reference.json").read_text(encoding="utf-8"))


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def judge_label(identity: dict[str, Any] | None) -> str:
    if not identity:
        return "no judge (reference-based metric)"
    kind = identity.get("kind")
    name = f"{identity.get('model_id')}" + (f" @ {identity['revision']}" if identity.get("revision") else "")
    if kind == "heuristic":
        return f"HEURISTIC key-fact matcher ({name}); not an LLM verdict"
    if kind == "scripted":
        return f"SCRIPTED stand-in judge ({name}); deterministic test double, not an LLM verdict"
    decoding = ", ".join(f"{k}={v}" for k, v in sorted((identity.get("decoding") or {}).items()))
    return f"LLM judge {name}" + (f" ({decoding})" if decoding else "")


def latest_rows(rows: list[dict[str, Any]], judge_tag: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """For each metric, the rows of one judge: ``judge_tag`` if given, else the most recently scored."""
    by_metric: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_metric[row["metric"]][row.get("judge_tag", "none")].append(row)
    out = {}
    for metric, by_tag in by_metric.items():
        if judge_tag and metric not in JUDGE_FREE_METRICS:
            if judge_tag in by_tag:
                out[metric] = by_tag[judge_tag]
            continue
        tag = max(by_tag, key=lambda t: max(r.get("scored_at", "") for r in by_tag[t]))
        out[metric] = by_tag[tag]
    return out


def build_summary(run_dir: str | Path, judge_tag: str | None = None) -> dict[str, Any]:
    meta, samples, records = load_run(run_dir)
    rows = read_scores(run_dir)
    chosen = latest_rows(rows, judge_tag)
    metrics: dict[str, Any] = {}
    judges: dict[str, Any] = {}
    for metric in METRICS:
        if metric not in chosen:
            continue
        metric_rows = chosen[metric]
        metrics[metric] = summarise_metric(metric, metric_rows)
        judges[metric] = metric_rows[0].get("judge")
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
        "judge_tags": sorted({r.get("judge_tag", "none") for r in rows}),
        "metrics": metrics,
        "reference": {"models": list(REFERENCE_MODELS), "source": paper_reference()["source"]},
    }


# ---------------------------------------------------------------- Markdown


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


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
            f"{rub['released']['failed_calls']} of {rub['released']['criteria']} criterion checks failed.",
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
    if "trajectory" in metrics:
        t = metrics["trajectory"]
        lines += ["", "## Tool-use trajectories (agentic turns)", ""]
        keys = ["turns", "score", "pooled_score", "tool_precision", "tool_recall", "tool_f1", "arg_accuracy",
                "order_agreement", "final_answer_accuracy", "redundant_calls", "failed_calls", "extra_calls",
                "wrong_tool_calls", "steps", "latency_s", "tokens_in", "tokens_out", "failed_judge_calls"]  # fmt: skip
        lines.append(_table(["Metric", "Value"], [[k, t.get(k)] for k in keys]))
        if t.get("per_argument"):
            lines += ["", _table(["Argument", "Accuracy"], [[k, v] for k, v in t["per_argument"].items()])]
    for metric, title in (("vdeval", "VDEval (session-based, with summary)"), ("lave", "LAVE (turn-based)")):
        if metric in metrics:
            m = metrics[metric]
            lines += ["", f"## {title}", "", _table(
                ["Turns", "Score (%)", "Mean rating (1-3)", "Ratings 1/2/3", "Failed calls"],
                [[m["turns"], m["score"], m["mean_rating"], "/".join(str(m["ratings"][k]) for k in ("1", "2", "3")), m["failed_calls"]]],
            )]  # fmt: skip
    if "lexical" in metrics:
        m = metrics["lexical"]
        lines += ["", "## Lexical", "", _table(["N", "BLEU-4", "ROUGE-L", "METEOR", "METEOR variant"],
                                                [[m.get("n"), m.get("bleu"), m.get("rouge_l"), m.get("meteor"), m.get("meteor_variant")]])]  # fmt: skip
    if "consensus" in metrics:
        m = metrics["consensus"]
        lines += ["", "## Consensus (pseudo-references from the pool of human answers)", "",
                  _table(["Turns", "Metric", "Score"], [[m["turns"], m["metric"], m["score"]]])]  # fmt: skip
    if "videoautobench" in metrics:
        m = metrics["videoautobench"]
        lines += ["", "## VideoAutoBench", "", _table(["N", "vs selected", "vs rejected", "Score", "Failed calls"],
                                                      [[m.get("n"), m.get("selected"), m.get("rejected"), m.get("score"), m.get("failed_calls")]])]  # fmt: skip
    if "giraffe" in metrics:
        lines += ["", "## Giraffe-Bench evaluators (0-100)", ""]
        for evaluator, m in metrics["giraffe"].items():
            dims = [k for k in m if k not in ("n", "avg", "failed_calls")]
            lines += [f"### {evaluator.upper()}", "", _table(["N", *dims, "avg", "failed"], [[m["n"], *[m[d] for d in dims], m["avg"], m["failed_calls"]]]), ""]  # fmt: skip
    lines += ["", f"_Reference columns: {summary['reference']['source']}._", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- HTML + SVG


def bar_chart(title: str, labels: list[str], series: dict[str, list[float | None]], maximum: float = 100.0) -> str:
    """Horizontal grouped bars as an inline SVG."""
    names = list(series)
    bar_h, gap, label_w, plot_w = 11, 8, 210, 420
    group_h = bar_h * len(names) + gap
    height = 40 + group_h * len(labels) + 20 * math.ceil(len(names) / 3)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + plot_w + 60}" height="{height}" '
        f'role="img" aria-label="{html.escape(title)}">',
        f'<text x="4" y="16" font-size="13" font-weight="bold">{html.escape(title)}</text>',
    ]
    for i, label in enumerate(labels):
        y0 = 30 + i * group_h
        parts.append(f'<text x="{label_w - 6}" y="{y0 + group_h / 2}" font-size="11" text-anchor="end">{html.escape(label)}</text>')
        for j, name in enumerate(names):
            value = series[name][i]
            if value is None:
                continue
            w = max(0.0, min(1.0, value / maximum)) * plot_w
            y = y0 + j * bar_h
            parts.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{PALETTE[j % len(PALETTE)]}"/>')
            parts.append(f'<text x="{label_w + w + 3:.1f}" y="{y + bar_h - 3}" font-size="9">{value:.1f}</text>')
    ly = 30 + len(labels) * group_h + 8
    for j, name in enumerate(names):
        x = 4 + (j % 3) * 210
        y = ly + (j // 3) * 18
        parts.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{PALETTE[j % len(PALETTE)]}"/>')
        parts.append(f'<text x="{x + 14}" y="{y + 9}" font-size="11">{html.escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _md_table_to_html(header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(c)).replace('**', '')}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def to_html(summary: dict[str, Any], markdown: str) -> str:
    metrics = summary["metrics"]
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
    if "trajectory" in metrics and metrics["trajectory"].get("turns"):
        t = metrics["trajectory"]
        keys = ["tool_precision", "tool_recall", "tool_f1", "arg_accuracy", "order_agreement", "final_answer_accuracy"]
        charts.append(bar_chart("Trajectory metrics (%)", keys, {"this run": [None if t.get(k) is None else 100 * t[k] for k in keys]}))
    tables = []
    if "rubric" in metrics:
        for title, header, rows in rubric_tables(summary):
            tables.append(f"<h3>{html.escape(title)}</h3>" + _md_table_to_html(header, rows))
    judges = "".join(f"<li><b>{html.escape(m)}</b>: {html.escape(judge_label(i))}</li>" for m, i in summary["judges"].items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Benchmark report: {html.escape(str(summary['dataset'].get('name')))}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }}
table {{ border-collapse: collapse; margin: .5em 0 1.5em; font-size: 13px; }}
th, td {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
pre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 12px; }}
.charts svg {{ display: block; margin: 1em 0; }}
</style></head><body>
<h1>Benchmark report: {html.escape(str(summary['dataset'].get('name')))} with {html.escape(str(summary['agent'].get('name')))}</h1>
<p>Turns {summary['turns']['done']}/{summary['turns']['total']}, agent errors {summary['turns']['errors']}, status {html.escape(str(summary.get('status')))}.</p>
<h2>Judges</h2><ul>{judges}</ul>
<div class="charts">{''.join(charts)}</div>
{''.join(tables)}
<h2>Full report (Markdown)</h2>
<pre>{html.escape(markdown)}</pre>
<h2>Summary (JSON)</h2>
<pre>{html.escape(json.dumps(summary, indent=1, default=str))}</pre>
</body></html>
"""


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


# ---------------------------------------------------------------- compare


def _rubric_turn_scores(run_dir: Path, judge_tag: str | None) -> dict[tuple[str, int], tuple[float, str]]:
    rows = latest_rows(read_scores(run_dir), judge_tag).get("rubric", [])
    return {(r["sample_id"], r["turn"]): (r["score_released"], r.get("video_id") or r["sample_id"]) for r in rows}


def paired_test(a: list[float], b: list[float], rounds: int = 5000, seed: int = 0) -> float:
    """Two-sided sign-flip permutation p-value for a mean difference of paired scores."""
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    if not diffs:
        return float("nan")
    observed = abs(sum(diffs))
    rng = random.Random(seed)
    hits = sum(abs(sum(d if rng.random() < 0.5 else -d for d in diffs)) >= observed - 1e-12 for _ in range(rounds))
    return (hits + 1) / (rounds + 1)


def compare_runs(run_dirs: list[str | Path], judge: Any = None, judge_tag: str | None = None, workers: int = 4,
                 bootstrap_rounds: int = 200) -> dict[str, Any]:  # fmt: skip
    """Side-by-side summaries, paired tests on common turns and, with a ``judge``, pairwise battles with
    Bradley-Terry ratings (bootstrap intervals) and a win-rate matrix."""
    from .scorers import bradley_terry as bt
    from .scorers.common import pmap
    from .scorers.pairwise import judge_pair

    run_dirs = [Path(r) for r in run_dirs]
    summaries = [build_summary(r, judge_tag) for r in run_dirs]
    names = []
    for s, r in zip(summaries, run_dirs, strict=True):
        name = f"{s['agent'].get('name')}:{r.name}"
        names.append(name if name not in names else f"{name}#{len(names)}")
    result: dict[str, Any] = {"runs": names, "summaries": summaries, "pairs": []}
    base = _rubric_turn_scores(run_dirs[0], judge_tag)
    for name, run in zip(names[1:], run_dirs[1:], strict=True):
        other = _rubric_turn_scores(run, judge_tag)
        common = sorted(set(base) & set(other))
        a = [base[k][0] for k in common]
        b = [other[k][0] for k in common]
        diff = [y - x for x, y in zip(a, b, strict=True)]
        se = clustered_se(diff, [base[k][1] for k in common]) if common else None
        result["pairs"].append({
            "a": names[0], "b": name, "common_turns": len(common),
            "mean_difference": se["mean"] if se else None,
            "se_clustered": se["se_clustered"] if se else None,
            "p_permutation": paired_test(a, b) if common else None,
        })  # fmt: skip
    if judge is not None:
        records = []
        for run in run_dirs:
            _, samples, recs = load_run(run)
            records.append({r.key: r for r in recs if r.ok})
        sample_map = {s.sample_id: s for s in load_run(run_dirs[0])[1]}
        jobs = []
        for i in range(len(run_dirs)):
            for j in range(i + 1, len(run_dirs)):
                for key in sorted(set(records[i]) & set(records[j])):
                    jobs.append((i, j, key))

        def battle(job: tuple[int, int, tuple[str, int]]) -> dict[str, Any]:
            i, j, key = job
            sample = sample_map.get(key[0])
            question = records[i][key].question
            persona = str(sample.meta.get("persona", "")) if sample else ""
            out = judge_pair(judge, question, records[i][key].answer, records[j][key].answer, persona=persona)
            return {"a": names[i], "b": names[j], "sample_id": key[0], "turn": key[1], **out}

        battles = pmap(battle, jobs, workers)
        scored = [(b["a"], b["b"], b["score_x"]) for b in battles if b["score_x"] is not None]
        result["battles"] = battles
        result["judge"] = judge.identity.model_dump()
        result["ratings"] = bt.bootstrap(scored, rounds=bootstrap_rounds) if scored else {}
        result["win_rates"] = bt.win_rate_matrix(scored)
        result["failed_battles"] = sum(1 for b in battles if b["score_x"] is None)
    return result


def compare_markdown(result: dict[str, Any]) -> str:
    names = result["runs"]
    lines = ["# Run comparison", ""]
    rows = []
    rubrics = [s["metrics"].get("rubric") for s in result["summaries"]]
    if all(rubrics):
        rows.append(["Overall (released)", *[r["released"]["overall"] for r in rubrics]])
        rows.append(["Overall (paper)", *[r["paper"]["overall"] for r in rubrics]])
        for cat in tk.CATEGORIES:
            rows.append([tk.CATEGORY_NAMES[cat], *[r["released"]["categories"].get(cat, {}).get("score") for r in rubrics]])
        for task in tk.CANONICAL_TASKS:
            values = [r["released"]["tasks"].get(task, {}).get("score") for r in rubrics]
            if any(v is not None for v in values):
                rows.append([tk.TASK_NAMES[task], *values])
        rows.append(["Agentic", *[(r["released"]["agentic"] or {}).get("score") for r in rubrics]])
    for metric, key in (("trajectory", "score"), ("vdeval", "score"), ("lave", "score"), ("lexical", "bleu"),
                        ("lexical", "rouge_l"), ("lexical", "meteor"), ("consensus", "score"), ("videoautobench", "score")):  # fmt: skip
        values = [s["metrics"].get(metric, {}).get(key) for s in result["summaries"]]
        if any(v is not None for v in values):
            rows.append([f"{metric} {key}", *values])
    lines.append(_table(["Metric", *names], rows))
    if result["pairs"]:
        lines += ["", "## Paired differences on common turns (rubric, released, per turn)", ""]
        lines.append(_table(["A", "B", "Turns", "Mean B-A", "SE (clustered by video)", "p (sign-flip permutation)"],
                            [[p["a"], p["b"], p["common_turns"], p["mean_difference"], p["se_clustered"], p["p_permutation"]] for p in result["pairs"]]))  # fmt: skip
    if result.get("ratings"):
        lines += ["", f"## Pairwise judging ({judge_label(result['judge'])})", "",
                  "Both orders per pair; Bradley-Terry ratings (scale 400, base 10, initial 1000, ties half), 95% bootstrap intervals.", ""]  # fmt: skip
        ranked = sorted(result["ratings"].items(), key=lambda kv: -kv[1]["rating"])
        lines.append(_table(["Model", "Rating", "95% CI"], [[m, r["rating"], f"{r['lower']:.1f} – {r['upper']:.1f}"] for m, r in ranked]))
        models = sorted(result["win_rates"])
        lines += ["", "Win rate of row against column:", "",
                  _table(["", *models], [[a, *[result["win_rates"][a].get(b) for b in models]] for a in models])]  # fmt: skip
        lines.append(f"\nFailed battles (no verdict in either order): {result['failed_battles']}")
    return "\n".join(lines) + "\n"
