"""Reports of one run: a JSON summary, Markdown, and a self-contained HTML page (inline SVG charts, no
external assets). Comparing runs is :mod:`staragent.bench.compare`.

Each scorer's part (its sections, tables, charts and headline numbers) comes from its declaration
(:class:`~staragent.bench.scorers.scorer.Scorer`); this module only lays them out. Scores that are means
over turns carry a 95% interval from a bootstrap that resamples whole videos.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..fsutil import write_json, write_text
from .charts import html_tables, interval_chart, page
from .charts import markdown_table as _table
from .rundir import current_tag, load_run, read_scores
from .scorers.registry import all_scorers, find_scorer
from .scorers.scorer import Section, value_at


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
        declared = find_scorer(metric)
        if judge_tag and not (declared is not None and declared.judge_free):
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
    for metric, scorer in all_scorers().items():  # rows of a scorer no longer installed are left out
        if metric not in chosen:
            continue
        metric_rows = chosen[metric]
        metrics[metric] = scorer.summarise(metric_rows)
        judges[metric] = metric_rows[0].get("judge")
        metric_judge_tags[metric] = metric_rows[0].get("judge_tag", "none")
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
    }


def sections_of(metrics: dict[str, Any]) -> list[Section]:
    """Every scorer's report sections, in the registry's order."""
    return [section for name, scorer in all_scorers().items() if name in metrics for section in scorer.report_sections(metrics[name])]


def score_intervals(metrics: dict[str, Any]) -> list[tuple[str, float, float | None, float | None]]:
    """``(label, score, lower, upper)`` of every headline score a scorer charts (0-100)."""
    rows = []
    for name, scorer in all_scorers().items():
        for headline in scorer.headlines if name in metrics and metrics[name] else ():
            value = value_at(metrics[name], headline.key)
            if headline.chart and value is not None:
                ci = (value_at(metrics[name], headline.ci_key) if headline.ci_key else None) or {}
                rows.append((headline.label, value, ci.get("lower"), ci.get("upper")))
    return rows


# ---------------------------------------------------------------- Markdown


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
    for section in sections_of(summary["metrics"]):
        lines += ["", f"## {section.title}"]
        lines += [line for note in section.notes for line in ("", note)]
        for subtitle, header, rows in section.tables:
            lines += ["", *([f"### {subtitle}", ""] if subtitle else []), _table(header, rows)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- HTML


def to_html(summary: dict[str, Any], markdown: str) -> str:
    metrics = summary["metrics"]
    sections = sections_of(metrics)
    tables = ""
    for section in sections:
        notes = "".join(f"<p>{html.escape(note)}</p>" for note in section.notes)
        tables += f"<h2>{html.escape(section.title)}</h2>{notes}" + html_tables(section.tables)
    charts = [chart for section in sections for chart in section.charts]
    intervals = score_intervals(metrics)
    if intervals:
        charts.append(interval_chart("Scores (%) with 95% intervals (bootstrap over videos)", intervals, 0.0, 100.0))
    judges = "".join(f"<li><b>{html.escape(m)}</b>: {html.escape(judge_label(i))}</li>" for m, i in summary["judges"].items())
    turns = summary["turns"]
    body = (
        f"<p>Turns {turns['done']}/{turns['total']}, agent errors {turns['errors']}, "
        f"status {html.escape(str(summary.get('status')))}.</p>"
        f"<h2>Judges</h2><ul>{judges}</ul>"
        f'<div class="charts">{"".join(charts)}</div>'
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
