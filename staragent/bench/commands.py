"""``bench``: the benchmark harness's click group (mounted by the main CLI as ``staragent bench``).

Errors the user can cause (missing run directory, unknown metric, malformed dataset row, ...) are
printed as one line on stderr and exit with code 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import StarAgentError


class _BenchGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except StarAgentError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)


def _settings() -> Any:
    from ..config import load_settings

    return load_settings()


def _ids(value: str | None) -> list[str] | None:
    if not value:
        return None
    if value.startswith("@"):
        path = Path(value[1:])
        if not path.is_file():
            from .harness_errors import DatasetError

            raise DatasetError(f"--samples file not found: {path}")
        return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [v.strip() for v in value.split(",") if v.strip()]


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def judge_pinning(command: Any) -> Any:
    """``--cache-dir`` and ``--judge-revision``: the options of every command that builds a judge."""
    command = click.option("--judge-revision", default=None,
                           help="pin the judge's revision (part of the cache key); a local snapshot must match it")(command)  # fmt: skip
    return click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="judge cache (default: <cache_dir>/judge)")(command)  # fmt: skip


def _judge(spec: str, settings: Any, cache_dir: Path | None, revision: str | None, workers: int) -> Any:
    from .judges import make_judge

    cache = cache_dir or Path(settings.cache_dir) / "judge"
    return make_judge(spec, settings, cache_dir=cache, revision=revision, max_concurrency=workers)


@click.group(name="bench", cls=_BenchGroup)
def bench() -> None:
    """Run agents over benchmarks, score answers and tool use, and report (STARBench and friends)."""


@bench.command("run")
@click.argument("dataset")
@click.option(
    "--agent",
    "agent_spec",
    default=None,
    help="scripted | echo | replay | profile:NAME[,key=value...] | baseline:CHAT_SPEC[,context_chars=N] "
    "(default: the dataset kind's agent)",
)
@click.option(
    "--dataset-option",
    "dataset_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="loader option, repeatable: responses=FILE (videoautobench), summaries=DIR (vdact), name=NAME",
)
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path), help="run directory")
@click.option("--limit", type=int, default=None, help="run only the first N samples")
@click.option("--samples", "samples", default=None, help="sample ids, comma-separated, or @FILE with one id per line")
@click.option("--workers", type=int, default=1, show_default=True, help="turns answered in parallel")
@click.option("--simulated-tools", is_flag=True, help="feed the expected tool responses instead of running tools")
@click.option("--video-root", type=click.Path(file_okay=False, path_type=Path), default=None, help="where videos are found by id")
@click.option("--retry-errors", is_flag=True, help="on resume, run again the turns that ended in an agent error")
def run_cmd(
    dataset: str,
    agent_spec: str | None,
    dataset_options: tuple[str, ...],
    out: Path,
    limit: int | None,
    samples: str | None,
    workers: int,
    simulated_tools: bool,
    video_root: Path | None,
    retry_errors: bool,
) -> None:
    """Run an agent over DATASET, appending each finished turn to OUT/trajectories.jsonl (resumable)."""
    from .agents import make_agent, needs_settings
    from .execution import run_benchmark
    from .kinds import get_task, load_dataset, parse_dataset_options

    options = parse_dataset_options(dataset_options)
    data = load_dataset(dataset, **options).select(_ids(samples), limit)
    if agent_spec is None:
        defaults = get_task(data.kind).agent
        if defaults is None:
            raise click.UsageError(f"{data.kind} datasets have no default agent; pass --agent")
        agent_spec, simulated_tools = defaults.spec, simulated_tools or defaults.simulated_tools
        click.echo(f"agent: {agent_spec} (the default for {data.kind} datasets)", err=True)
    agent = make_agent(agent_spec, _settings() if needs_settings(agent_spec) else None)
    tty = sys.stderr.isatty()
    done = [0]

    def progress(record: Any) -> None:
        done[0] += 1
        if tty:
            click.echo(f"\r{done[0]} turns done", err=True, nl=False)

    try:
        summary = run_benchmark(
            data,
            agent,
            out,
            workers=workers,
            simulated_tools=simulated_tools,
            video_root=video_root,
            retry_errors=retry_errors,
            dataset_spec=dataset,
            dataset_options=options,
            agent_spec=agent_spec,
            progress=progress,
        )
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted; {out}/run.json says so, and the same command resumes where it stopped", err=True)
        sys.exit(130)
    if tty:
        click.echo("", err=True)
    click.echo(
        f"{summary.done}/{summary.total} turns in {out} ({summary.new} new, {summary.done_before} resumed, "
        f"{summary.errors} agent errors this session)"
    )


@bench.command("score")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--judge", "judge_spec", default=None,
              help="heuristic | scripted | a chat backend spec (not needed when every metric is judge-free, e.g. factqa)")
@click.option("--metrics", default=None, help="comma-separated scorer names, or all: rubric,trajectory,vdeval,lave,lexical,consensus,videoautobench,giraffe,factqa and any plug-in (default: the dataset kind's)")
@click.option("--workers", type=int, default=4, show_default=True, help="judge calls in flight")
@judge_pinning
@click.option("--json", "as_json", is_flag=True, help="print the summaries as JSON")
def score_cmd(run_dir: Path, judge_spec: str, metrics: str | None, workers: int, cache_dir: Path | None,
              judge_revision: str | None, as_json: bool) -> None:  # fmt: skip
    """Score RUN_DIR with a judge; write RUN_DIR/scores.jsonl (never re-runs the agent)."""
    from .console import score_lines
    from .rundir import load_run
    from .scorers.registry import get_scorer
    from .scoring import default_metrics, parse_metrics, score_run

    chosen = parse_metrics(metrics)
    meta, samples, _ = load_run(run_dir)  # a clear error for a wrong directory before any judge is built
    judge_needed = judge_spec is not None
    if judge_spec is None:
        needed = [m for m in chosen or default_metrics(meta.get("dataset", {}).get("kind", ""), samples) if not get_scorer(m).judge_free]
        if needed:
            raise click.UsageError(f"{', '.join(needed)} needs a judge: pass --judge (heuristic, scripted, openai[:MODEL] or transformers[:MODEL])")
    judge = _judge(judge_spec, _settings(), cache_dir, judge_revision, workers) if judge_needed else None
    summaries = score_run(run_dir, judge, chosen, workers=workers)
    if as_json:
        _print_json({"judge": judge.identity.model_dump() if judge else None, "metrics": summaries})
        return
    click.echo(f"judge: {judge.identity.tag if judge else 'none (every metric here is judge-free)'}")
    for line in score_lines(summaries):
        click.echo(line)
    click.echo(f"scores written to {run_dir / 'scores.jsonl'}")


@bench.command("report")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="where to write (default RUN_DIR)")
@click.option("--judge-tag", default=None, help="report this judge's scores (default: the latest per metric)")
@click.option("--json", "as_json", is_flag=True, help="print the JSON summary")
def report_cmd(run_dir: Path, out: Path | None, judge_tag: str | None, as_json: bool) -> None:
    """Write summary.json, report.md and a self-contained report.html for RUN_DIR."""
    from .report import build_summary, write_report

    paths = write_report(run_dir, out, judge_tag)
    if as_json:
        _print_json(build_summary(run_dir, judge_tag))
        return
    for kind, path in paths.items():
        click.echo(f"{kind}: {path}")


@bench.command("export")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["inspect"]), default="inspect", show_default=True,
              help="inspect: an inspect_ai eval log (JSON), which `inspect view` opens")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="a .json file, or a folder (default RUN_DIR/inspect)")
@click.option("--judge-tag", default=None, help="export this judge's scores (default: the latest per metric)")
def export_cmd(run_dir: Path, fmt: str, out: Path | None, judge_tag: str | None) -> None:
    """Write RUN_DIR (samples, answers, tool calls, scores with explanations) in another tool's log format."""
    from .inspect_log import write_eval_log

    path = write_eval_log(run_dir, out, judge_tag)
    click.echo(f"{fmt}: {path}" + (f" (open with: inspect view --log-dir {path.parent})" if fmt == "inspect" else ""))


@bench.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--judge-tag", default=None, help="compare this judge's scores in every run (default: each run's latest)")
@click.option("--allow-mixed-judges", is_flag=True, help="compare even when the runs' scores come from different judges")
@click.option("--judge", "judge_spec", default=None, help="also judge the runs' answers pairwise (both orders)")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="write compare.md, compare.html and compare.json here")
@click.option("--workers", type=int, default=4, show_default=True, help="judge calls in flight")
@judge_pinning
@click.option("--json", "as_json", is_flag=True, help="print the comparison as JSON")
def compare_cmd(runs: tuple[Path, ...], judge_tag: str | None, allow_mixed_judges: bool, judge_spec: str | None,
                out: Path | None, workers: int, cache_dir: Path | None, judge_revision: str | None, as_json: bool) -> None:  # fmt: skip
    """Compare two or more runs of the same dataset (RUN_A RUN_B ...)."""
    from .compare import compare_markdown, compare_runs, judge_battles, write_compare
    from .harness_errors import RunDirError

    if len(runs) < 2:
        raise RunDirError("compare needs at least two run directories: bench compare RUN_A RUN_B")
    result = compare_runs(list(runs), judge_tag=judge_tag, allow_mixed_judges=allow_mixed_judges)
    if judge_spec:  # built after the runs passed their checks: a local judge takes a while to load
        from .judges import require_llm

        judge = require_llm(_judge(judge_spec, _settings(), cache_dir, judge_revision, workers), "pairwise")
        judge_battles(result, judge, workers=workers)
    for warning in result["warnings"]:
        click.echo(f"warning: {warning}", err=True)
    text = compare_markdown(result)
    if out:
        write_compare(result, out)
    if as_json:
        _print_json({k: v for k, v in result.items() if k != "battles"})
    else:
        click.echo(text)


@bench.command("metrics")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["vdact"]), default="vdact", show_default=True,
              help="vdact: a list of {question, ref_answer, gen_answer} records")  # fmt: skip
@click.option("--meteor-convention", type=click.Choice(["standard", "vdact-paper"]), default="standard", show_default=True,
              help="vdact-paper: the tokens and argument order behind the VDAct paper's METEOR column (see docs/bench.md)")
@click.option("--json", "as_json", is_flag=True, help='print {"n", "bleu", "rouge_l", "meteor"}')
def metrics_cmd(file: Path, fmt: str, meteor_convention: str, as_json: bool) -> None:
    """Lexical metrics (BLEU-4, ROUGE-L, METEOR; 0-100) of a predictions FILE."""
    from .datasets import dedupe_vdact_rows, read_rows
    from .harness_errors import DatasetError
    from .scorers.lexical import METEOR_FULL, lexical_scores

    if not file.is_file():
        raise DatasetError(f"predictions file not found: {file}")
    rows = read_rows(file)
    if rows and all(isinstance(r, dict) and "dial_id" in r and "turn_num" in r for r in rows):
        rows, dropped = dedupe_vdact_rows(rows, file)
        if dropped["identical"] or dropped["conflicting"]:
            twice = dropped["identical"] + dropped["conflicting"]
            note = f"{twice} turns twice ({dropped['conflicting']} with another answer); scored the first row of each"
            click.echo(f"note: {file.name} lists {note}", err=True)
    hyps, refs = [], []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or "ref_answer" not in row or "gen_answer" not in row:
            raise DatasetError(f"{file}: row {number} lacks ref_answer or gen_answer; a vdact file holds "
                               "{question, ref_answer, gen_answer} records")  # fmt: skip
        hyps.append(str(row["gen_answer"] or ""))
        refs.append(str(row["ref_answer"] or ""))
    scores = lexical_scores(hyps, refs, meteor_convention=meteor_convention)
    if scores["meteor_variant"] != METEOR_FULL:
        click.echo(f"note: METEOR computed as {scores['meteor_variant']}", err=True)
    if as_json:
        _print_json({k: scores[k] for k in ("n", "bleu", "rouge_l", "meteor")})
    else:
        meteor = f"METEOR {scores['meteor']:.2f} ({scores['meteor_variant']}, {meteor_convention})"
        click.echo(f"n={scores['n']}  BLEU-4 {scores['bleu']:.2f}  ROUGE-L {scores['rouge_l']:.2f}  {meteor}")


@bench.command("videoautobench")
@click.option("--selected", required=True, type=click.Path(path_type=Path), help="judgments against the human-selected answers")
@click.option("--rejected", required=True, type=click.Path(path_type=Path), help="judgments against the human-rejected answers")
@click.option("--field", default=None, help="field holding the judge's text (default: GPT4o Judge response, judge_response, ...)")
@click.option("--json", "as_json", is_flag=True, help='print {"n", "selected", "rejected", "score"} in %')
def videoautobench_cmd(selected: Path, rejected: Path, field: str | None, as_json: bool) -> None:
    """Score VideoAutoBench judgments (the answer under test is model B)."""
    from .scorers.videoautobench import read_judgments, score_judgments

    result = score_judgments(read_judgments(selected), read_judgments(rejected), field)
    if result["unparsed"]:
        click.echo(f"note: {result['unparsed']} judgments had no readable verdict and score 0", err=True)
    if as_json:
        _print_json({k: result[k] for k in ("n", "selected", "rejected", "score")})
    else:
        click.echo(f"n={result['n']}  vs selected {result['selected']:.2f}%  vs rejected {result['rejected']:.2f}%  "
                   f"score {result['score']:.2f}%  outcomes {json.dumps(result['outcomes'])}")  # fmt: skip


@bench.command("meta")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--human", "human_file", required=True, type=click.Path(path_type=Path),
              help="human scores: JSON, JSONL or CSV rows of sample_id, turn (0-based) or turn_id, and score")
@click.option("--metric", "metrics", default=None, help="METRIC[:FIELD], comma-separated (default: every metric scored)")
@click.option("--judge-tag", default=None, help="use this judge's scores (default: the latest per metric)")
@click.option("--permutations", type=int, default=10000, show_default=True, help="shuffles for the permutation p-values")
@click.option("--compare", "compare", default=None, metavar="METRIC[:FIELD],METRIC[:FIELD]",
              help="also test whether the first metric agrees with the human scores better than the second (Kendall tau-b)")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def meta_cmd(run_dir: Path, human_file: Path, metrics: str | None, judge_tag: str | None, permutations: int,
             compare: str | None, as_json: bool) -> None:  # fmt: skip
    """Agreement of a scored run's per-item metric scores with human scores: Pearson, Spearman and Kendall
    tau-b with permutation p-values and standard errors clustered by video."""
    from .metaeval import meta_evaluate

    result = meta_evaluate(run_dir, human_file, metrics, judge_tag=judge_tag, permutations=permutations, compare=compare)
    if as_json:
        _print_json(result)
        return
    click.echo(f"{result['human_items']} human scores ({result['human_rows_not_in_run']} rows not in the run)")
    for name, m in result["metrics"].items():
        if "kendall" not in m:
            click.echo(f"{name}: n={m['n']} ({m['note']})")
            continue
        parts = [f"{k} {_fmt_r(m[k])}" for k in ("pearson", "spearman", "kendall")]
        click.echo(f"{name}: n={m['n']} (excluded {m['excluded']})  " + "  ".join(parts))
    c = result.get("comparison")
    if c:
        head = f"{c['metric_a']} vs {c['metric_b']} on {c['n']} items"
        if c.get("difference") is None:
            click.echo(f"{head}: {c.get('note') or 'no comparison (constant scores)'}")
        else:
            click.echo(f"{head}: Kendall tau-b {c['r_a']:.3f} vs {c['r_b']:.3f}, difference {c['difference']:.3f} "
                       f"(one-sided p={c['p_permutation']:.4f} that the first agrees better)")  # fmt: skip


def _fmt_r(stat: dict[str, Any]) -> str:
    if stat["r"] is None:
        return "– (constant scores)"
    se = f" ± {stat['se_clustered']:.3f}" if stat.get("se_clustered") is not None else ""
    return f"{stat['r']:.3f}{se} (p={stat['p_permutation']:.4f})"


@bench.command("validate-judge")
@click.argument("dataset")
@click.option("--judge", "judge_spec", required=True, help="the judge to validate: scripted or a chat backend spec (heuristic for rubric)")
@click.option("--metric", default=None,
              help="how the judge scores an answer (default: lave; rubric for the heuristic judge)")
@click.option("--paraphraser", default=None, help="chat spec that rewrites references (default: the judge)")
@click.option("--dataset-option", "dataset_options", multiple=True, metavar="KEY=VALUE", help="loader option, repeatable")
@click.option("--limit", type=int, default=None, help="use only the first N turns")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the random pairing of answers")
@click.option("--workers", type=int, default=4, show_default=True, help="judge calls in flight")
@judge_pinning
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="also write the result as JSON here")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def validate_judge_cmd(dataset: str, judge_spec: str, metric: str | None, paraphraser: str | None,
                       dataset_options: tuple[str, ...], limit: int | None, seed: int, workers: int,
                       cache_dir: Path | None, judge_revision: str | None, out: Path | None, as_json: bool) -> None:
    """Does a judge tell right from wrong? It scores each turn's reference answer, a paraphrase of it, and
    the reference of another turn (a seeded random pairing); a good judge scores paraphrases close to the
    references and far above the random answers."""
    from ..fsutil import write_json
    from .harness_errors import JudgeSpecError
    from .judges import require_llm
    from .kinds import load_dataset, parse_dataset_options
    from .metaeval import validate_judge_on_dataset
    from .scorers.registry import get_scorer

    data = load_dataset(dataset, **parse_dataset_options(dataset_options))
    settings = _settings()
    judge = _judge(judge_spec, settings, cache_dir, judge_revision, workers)
    metric = metric or ("lave" if getattr(judge, "is_llm", False) else "rubric")
    if get_scorer(metric).needs.judge == "llm":
        require_llm(judge, metric)
    rewriter = _judge(paraphraser, settings, cache_dir, None, workers) if paraphraser else judge
    if not getattr(rewriter, "is_llm", False):
        raise JudgeSpecError("paraphrasing the references needs a language model, and the heuristic judge cannot "
                             "write; pass --paraphraser scripted or a chat backend spec")
    result = validate_judge_on_dataset(data, judge, rewriter, metric=metric, limit=limit, seed=seed, workers=workers)
    if out:
        write_json(out, result)
    if as_json:
        _print_json(result)
        return
    click.echo(f"judge {judge.identity.tag}, metric {metric}, {result['n']} turns ({result['skipped']} without a paraphrase)")
    for kind in ("reference", "paraphrase", "random"):
        k = result[kind]
        click.echo(f"  {kind:<10} mean {k['mean']:.2f} ± {_fmt_se(k['se_clustered'])}")
    click.echo(f"  paraphrase - random {result['gap']:.2f} (AUC {result['auc']:.3f}); "
               f"reference - random {result['gap_reference']:.2f} (AUC {result['auc_reference']:.3f})")


def _fmt_se(value: float | None) -> str:
    return "–" if value is None or value != value else f"{value:.2f}"


@bench.command("build")
@click.option("--script", "script", type=click.Path(path_type=Path), default=None, help="a <stem>.facts.json sample-video script")
@click.option("--minutes", type=float, default=None, help="build the script with staragent.samples instead")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="dataset JSON to write")
def build_cmd(script: Path | None, minutes: float | None, seed: int, out: Path) -> None:
    """Build the offline benchmark (STARBench JSON) from the synthetic video's script."""
    from ..datagen.synthetic import build_dataset, load_synthetic, write_dataset
    from .harness_errors import DatasetError

    if script is not None:
        if not script.is_file():
            raise DatasetError(f"script not found: {script} (the sample-video generator writes <stem>.facts.json)")
        dataset = load_synthetic(script)
    elif minutes is not None:
        try:
            from ..samples import build_script  # type: ignore[attr-defined]
        except ImportError:
            raise DatasetError("staragent.samples.build_script is not available in this install; pass --script FILE") from None
        dataset = build_dataset(build_script(minutes, seed), name=f"synthetic-{minutes:g}m-s{seed}")
    else:
        raise DatasetError("give --script FILE.facts.json or --minutes M (with --seed)")
    write_dataset(dataset, out)
    click.echo(f"{len(dataset.samples)} samples written to {out}")


__all__ = ["bench"]
