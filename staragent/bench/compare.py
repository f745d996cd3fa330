"""Comparing runs (``bench compare RUN_A RUN_B ...``): the metrics side by side (each scorer's
declared rows), paired differences of the per-turn scores of the scorers that declare them ``paired``
(the rubric) with permutation tests, and optionally pairwise judging with Bradley-Terry ratings.

Only like is compared with like: the comparison uses the turns that every run answered on the very
same sample (same id and same content, by hash). When the runs' dataset fingerprints differ, or the
runs cover different turns, the result carries a warning saying so, and every number — the
side-by-side metrics too — is computed over those common turns only.

Scores are compared only when one judge gave them: each run contributes, per metric, the scores of
``judge_tag`` (else its latest judge's), and when the runs' judges of a metric differ (heuristic in one
run, an LLM in the other) the comparison is refused unless ``allow_mixed_judges`` is set, in which case
it carries a warning. Every run's judge per metric is part of the result.
"""

from __future__ import annotations

import html
import random
from pathlib import Path
from typing import Any

from ..fsutil import stable_hash, write_json, write_text
from .charts import html_table, interval_chart, markdown_table, page
from .harness_errors import MixedJudgesError
from .report import build_summary, judge_label, latest_rows
from .rundir import load_run, read_scores
from .scorers.common import units_of
from .scorers.meta import clustered_se
from .scorers.registry import all_scorers

Key = tuple[str, int]


def paired_test(a: list[float], b: list[float], rounds: int = 5000, seed: int = 0) -> float:
    """Two-sided sign-flip permutation p-value for a mean difference of paired scores."""
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    if not diffs:
        return float("nan")
    observed = abs(sum(diffs))
    rng = random.Random(seed)
    hits = sum(
        abs(sum(d if rng.random() < 0.5 else -d for d in diffs)) >= observed - 1e-12 for _ in range(rounds)
    )
    return (hits + 1) / (rounds + 1)


def _answered_turns(run_dir: Path) -> dict[Key, str]:
    """Each recorded turn of a run with the hash of its sample's content."""
    _, samples, records = load_run(run_dir)
    hashes = {s.sample_id: stable_hash(s.model_dump(mode="json")) for s in samples}
    return {r.key: hashes[r.sample_id] for r in records if r.sample_id in hashes}


def common_turns(run_dirs: list[Path]) -> tuple[set[Key], list[int]]:
    """Turns recorded in every run on an identical sample, and how many turns each run recorded."""
    turns = [_answered_turns(r) for r in run_dirs]
    common = set(turns[0])
    for other in turns[1:]:
        common &= {k for k, h in other.items() if turns[0].get(k) == h}
    return common, [len(t) for t in turns]


def metrics_on(run_dir: Path, keys: set[Key], judge_tag: str | None) -> dict[str, Any]:
    """The run's metric summaries over the turns in ``keys`` only (a judge-free corpus-level scorer, such
    as the lexical one, is run again on those turns)."""
    chosen = latest_rows(read_scores(run_dir), judge_tag)
    out = {}
    for metric, scorer in all_scorers().items():
        rows = chosen.get(metric)
        if not rows:
            continue
        if scorer.corpus_level and scorer.judge_free:
            _, samples, records = load_run(run_dir)
            rows = scorer.run(None, [u for u in units_of(samples, records) if (u.sample.sample_id, u.pair.index) in keys], 1)
        else:
            rows = [r for r in rows if (r.get("sample_id"), r.get("turn")) in keys]
        if rows:
            out[metric] = scorer.summarise(rows)
    return out


def _turn_scores(run_dir: Path, judge_tag: str | None, keys: set[Key], metric: str, field: str) -> dict[Key, tuple[float, str]]:
    rows = latest_rows(read_scores(run_dir), judge_tag).get(metric, [])
    return {
        (r["sample_id"], r["turn"]): (r[field], r.get("video_id") or r["sample_id"])
        for r in rows
        if (r.get("sample_id"), r.get("turn")) in keys and isinstance(r.get(field), int | float)
    }


def _warnings(
    summaries: list[dict[str, Any]], names: list[str], common: int, recorded: list[int]
) -> list[str]:
    out = []
    fingerprints = [s["dataset"].get("fingerprint") for s in summaries]
    if len(set(fingerprints)) > 1:
        listed = ", ".join(
            f"{n}: {s['dataset'].get('spec')} ({f})"
            for n, s, f in zip(names, summaries, fingerprints, strict=True)
        )
        out.append(f"the runs used different datasets or samples ({listed})")
    if any(n != common for n in recorded):
        counts = ", ".join(f"{n}: {c}" for n, c in zip(names, recorded, strict=True))
        out.append(
            f"the runs cover different turns ({counts}); only the {common} turns common to all runs, "
            "on identical samples, are compared"
        )
    return out


def judge_differences(summaries: list[dict[str, Any]], names: list[str]) -> list[str]:
    """One line per judged metric whose scores come from different judges in different runs."""
    out = []
    for metric, scorer in all_scorers().items():
        if scorer.judge_free:
            continue
        scored = [(n, s) for n, s in zip(names, summaries, strict=True) if metric in s["metric_judge_tags"]]
        if len({s["metric_judge_tags"][metric] for _, s in scored}) > 1:
            listed = ", ".join(f"{n}: {judge_label(s['judges'].get(metric), short=True)}" for n, s in scored)
            out.append(f"the {metric} scores come from different judges ({listed})")
    return out


def _missing_tag(summaries: list[dict[str, Any]], names: list[str], judge_tag: str) -> list[str]:
    return [
        f"{n} has no scores by judge {judge_tag}; score it with that judge, or leave --judge-tag out"
        for n, s in zip(names, summaries, strict=True)
        if s["judge_tag"] not in s["judge_tags"]
    ]


def compare_runs(
    run_dirs: list[str | Path],
    judge: Any = None,
    judge_tag: str | None = None,
    workers: int = 4,
    bootstrap_rounds: int = 200,
    allow_mixed_judges: bool = False,
) -> dict[str, Any]:
    """Side-by-side metrics and paired tests on the common turns and, with a ``judge``, pairwise battles
    with Bradley-Terry ratings (bootstrap intervals) and a win-rate matrix. Raises
    :class:`MixedJudgesError` when the runs' scores of a metric come from different judges, unless
    ``allow_mixed_judges``."""
    run_dirs = [Path(r) for r in run_dirs]
    summaries = [build_summary(r, judge_tag) for r in run_dirs]
    names: list[str] = []
    for s, r in zip(summaries, run_dirs, strict=True):
        name = f"{s['agent'].get('name')}:{r.name}"
        names.append(name if name not in names else f"{name}#{len(names)}")
    mixed = judge_differences(summaries, names)
    if mixed and not allow_mixed_judges:
        raise MixedJudgesError(
            "; ".join(mixed) + ": their numbers are not comparable; pass --judge-tag TAG to compare one judge's "
            "scores (score every run with it first), or --allow-mixed-judges to compare them anyway"
        )
    common, recorded = common_turns(run_dirs)
    warnings = _warnings(summaries, names, len(common), recorded)
    same_turns = not warnings
    warnings += (_missing_tag(summaries, names, judge_tag) if judge_tag else []) + mixed
    result: dict[str, Any] = {
        "runs": names,
        "run_dirs": [str(r) for r in run_dirs],
        "fingerprints": [s["dataset"].get("fingerprint") for s in summaries],
        "common_turns": len(common),
        "turns": recorded,
        "judge_tag": judge_tag,
        "run_judges": [s["judges"] for s in summaries],
        "run_judge_tags": [s["metric_judge_tags"] for s in summaries],
        "mixed_judges": bool(mixed),
        "warnings": warnings,
        "metrics": [
            s["metrics"] if same_turns else metrics_on(r, common, judge_tag)
            for s, r in zip(summaries, run_dirs, strict=True)
        ],
        "summaries": summaries,
        "pairs": [],
    }
    for metric, scorer in all_scorers().items():
        if scorer.paired and scorer.value_field:
            result["pairs"] += paired_differences(result, run_dirs, judge_tag, common, metric, scorer.value_field)
    if judge is not None:
        judge_battles(result, judge, workers=workers, bootstrap_rounds=bootstrap_rounds)
    return result


def paired_differences(
    result: dict[str, Any], run_dirs: list[Path], judge_tag: str | None, common: set[Key], metric: str, field: str
) -> list[dict[str, Any]]:
    """Each later run against the first on ``metric``'s per-turn ``field``: the mean difference, its
    standard error clustered by video, and a sign-flip permutation p-value."""
    names = result["runs"]
    base = _turn_scores(run_dirs[0], judge_tag, common, metric, field)
    judges = [tags.get(metric) for tags in result["run_judge_tags"]]
    out = []
    for name, run, judge in zip(names[1:], run_dirs[1:], judges[1:], strict=True):
        other = _turn_scores(run, judge_tag, common, metric, field)
        keys = sorted(set(base) & set(other))
        a = [base[k][0] for k in keys]
        b = [other[k][0] for k in keys]
        se = clustered_se([y - x for x, y in zip(a, b, strict=True)], [base[k][1] for k in keys]) if keys else None
        out.append({
            "metric": metric, "field": field, "a": names[0], "b": name, "judges": [judges[0], judge],
            "common_turns": len(keys), "mean_difference": se["mean"] if se else None,
            "se_clustered": se["se_clustered"] if se else None, "p_permutation": paired_test(a, b) if keys else None,
        })  # fmt: skip
    return out


def judge_battles(result: dict[str, Any], judge: Any, *, workers: int = 4, bootstrap_rounds: int = 200) -> None:
    """Add pairwise battles of ``judge`` on the common turns of a :func:`compare_runs` result, with
    Bradley-Terry ratings (bootstrap intervals) and a win-rate matrix."""
    from .scorers import bradley_terry as bt
    from .scorers.common import pmap
    from .scorers.pairwise import judge_pair

    run_dirs, names = [Path(r) for r in result["run_dirs"]], result["runs"]
    common, _ = common_turns(run_dirs)
    loaded = [load_run(run) for run in run_dirs]
    records = [{r.key: r for r in recs if r.ok and r.key in common} for _, _, recs in loaded]
    sample_map = {s.sample_id: s for s in loaded[0][1]}
    jobs = [
        (i, j, key)
        for i in range(len(run_dirs))
        for j in range(i + 1, len(run_dirs))
        for key in sorted(set(records[i]) & set(records[j]))
    ]

    def battle(job: tuple[int, int, Key]) -> dict[str, Any]:
        i, j, key = job
        sample = sample_map.get(key[0])
        persona = str(sample.meta.get("persona", "")) if sample else ""
        out = judge_pair(judge, records[i][key].question, records[i][key].answer, records[j][key].answer, persona=persona)
        return {"a": names[i], "b": names[j], "sample_id": key[0], "turn": key[1], **out}

    battles = pmap(battle, jobs, workers)
    scored = [(b["a"], b["b"], b["score_x"]) for b in battles if b["score_x"] is not None]
    result["battles"] = battles
    result["judge"] = judge.identity.model_dump()
    result["ratings"] = bt.bootstrap(scored, rounds=bootstrap_rounds) if scored else {}
    result["win_rates"] = bt.win_rate_matrix(scored)
    result["failed_battles"] = sum(1 for b in battles if b["score_x"] is None)


def comparison_table(result: dict[str, Any]) -> list[list[Any]]:
    """One row per number a scorer declares for comparison, the runs side by side; a row no run has a
    value for is left out."""
    rows: list[list[Any]] = []
    metrics = result["metrics"]
    for metric, scorer in all_scorers().items():
        if not any(m.get(metric) for m in metrics):
            continue
        per_run = [dict(scorer.comparison(m[metric])) if m.get(metric) else {} for m in metrics]
        labels = list(dict.fromkeys(label for values in per_run for label in values))
        for label in labels:
            values = [values.get(label) for values in per_run]
            if any(v is not None for v in values):
                rows.append([label, *values])
    return rows


def judges_table(result: dict[str, Any]) -> list[list[Any]]:
    """One row per judged metric: who judged it in each run."""
    rows = []
    for metric, scorer in all_scorers().items():
        if not scorer.judge_free and any(metric in j for j in result["run_judges"]):
            rows.append([metric, *[judge_label(j[metric], short=True) if metric in j else "–" for j in result["run_judges"]]])
    return rows


PAIRS_HEADER = ["Per-turn score", "A", "B", "Turns", "Mean B-A", "SE (clustered by video)", "p (sign-flip permutation)"]


def _pair_rows(result: dict[str, Any]) -> list[list[Any]]:
    return [
        [f"{p['metric']} {p['field']}", p["a"], p["b"], p["common_turns"], p["mean_difference"], p["se_clustered"], p["p_permutation"]]
        for p in result["pairs"]
    ]


def _rating_rows(result: dict[str, Any]) -> list[list[Any]]:
    ranked = sorted(result["ratings"].items(), key=lambda kv: -kv[1]["rating"])
    return [[m, r["rating"], f"{r['lower']:.1f} – {r['upper']:.1f}"] for m, r in ranked]


def _win_rows(result: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    models = sorted(result["win_rates"])
    return ["", *models], [[a, *[result["win_rates"][a].get(b) for b in models]] for a in models]


BT_NOTE = "Both orders per pair; Bradley-Terry ratings (scale 400, base 10, initial 1000, ties half), 95% bootstrap intervals."


def compare_markdown(result: dict[str, Any]) -> str:
    names = result["runs"]
    lines = ["# Run comparison", ""]
    lines += [f"**Warning:** {w}." for w in result["warnings"]] + ([""] if result["warnings"] else [])
    lines.append(f"Compared on {result['common_turns']} common turns.")
    judged = judges_table(result)
    if judged:
        lines += ["", "## Judges", "", markdown_table(["Metric", *names], judged)]
    lines += ["", "## Metrics", "", markdown_table(["Metric", *names], comparison_table(result))]
    if result["pairs"]:
        lines += ["", "## Paired differences on common turns", ""]
        lines.append(markdown_table(PAIRS_HEADER, _pair_rows(result)))
    if result.get("ratings"):
        lines += ["", f"## Pairwise judging ({judge_label(result['judge'])})", "", BT_NOTE, ""]
        lines.append(markdown_table(["Model", "Rating", "95% CI"], _rating_rows(result)))
        header, rows = _win_rows(result)
        lines += ["", "Win rate of row against column:", "", markdown_table(header, rows)]
        lines.append(f"\nFailed battles (no verdict in either order): {result['failed_battles']}")
    return "\n".join(lines) + "\n"


def compare_html(result: dict[str, Any]) -> str:
    body = "".join(f'<p class="warning"><b>Warning:</b> {html.escape(w)}.</p>' for w in result["warnings"])
    body += f"<p>Compared on {result['common_turns']} common turns.</p>"
    judged = judges_table(result)
    if judged:
        body += "<h2>Judges</h2>" + html_table(["Metric", *result["runs"]], judged)
    body += "<h2>Metrics</h2>" + html_table(["Metric", *result["runs"]], comparison_table(result))
    if result["pairs"]:
        body += "<h2>Paired differences on common turns</h2>"
        body += html_table(PAIRS_HEADER, _pair_rows(result))
    if result.get("ratings"):
        ratings = result["ratings"]
        lo = min(r["lower"] for r in ratings.values()) - 50
        hi = max(r["upper"] for r in ratings.values()) + 50
        points = [
            (m, r["rating"], r["lower"], r["upper"])
            for m, r in sorted(ratings.items(), key=lambda kv: -kv[1]["rating"])
        ]
        body += f"<h2>Pairwise judging ({html.escape(judge_label(result['judge']))})</h2><p>{html.escape(BT_NOTE)}</p>"
        body += f'<div class="charts">{interval_chart("Bradley-Terry rating with 95% interval", points, round(lo, -1), round(hi, -1))}</div>'
        body += html_table(["Model", "Rating", "95% CI"], _rating_rows(result))
        header, rows = _win_rows(result)
        body += "<h3>Win rate of row against column</h3>" + html_table(header, rows)
        body += f"<p>Failed battles (no verdict in either order): {result['failed_battles']}</p>"
    return page("Run comparison", body)


def write_compare(result: dict[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """``compare.md``, ``compare.html`` and ``compare.json`` (everything, the battles included) in ``out_dir``."""
    out = Path(out_dir)
    paths = {"markdown": out / "compare.md", "html": out / "compare.html", "json": out / "compare.json"}
    write_text(paths["markdown"], compare_markdown(result))
    write_text(paths["html"], compare_html(result))
    write_json(paths["json"], result)
    return paths
