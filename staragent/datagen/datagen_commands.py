"""``staragent datagen``: build a STARBench-style dataset from videos, review it, finalise it.

    staragent datagen VIDEO|FOLDER ... --out DIR [--per-video N] [--tasks T,...] [--model SPEC] [--workers N]
    staragent datagen review DIR                 # write the review page and CSV again
    staragent datagen import DIR decisions.csv   # a reviewer's decisions and edits
    staragent datagen finalize DIR [--reviewed-only]

The first form is the default: ``datagen VIDEO --out DIR`` runs ``datagen generate``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

SUBCOMMANDS = ("generate", "review", "import", "finalize")


class _DatagenGroup(click.Group):
    """``datagen VIDEO ...`` means ``datagen generate VIDEO ...``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["generate", *args]
        return super().parse_args(ctx, args)


def _settings(ctx: click.Context) -> Any:
    from ..config import load_settings

    root = ctx.find_root().obj or {}
    return load_settings(**{k: v for k, v in root.items() if k in ("profile", "cache_dir", "progress") and v is not None})


def _quiet(ctx: click.Context) -> bool:
    return bool(ctx.find_root().meta.get("quiet"))


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


@click.group(name="datagen", cls=_DatagenGroup)
def datagen() -> None:
    """Build STARBench-style datasets from videos: descriptions, scenarios, questions (single-turn,
    multi-turn, agentic), grounded answers, rubrics, checks, human review, the dataset file.
    `staragent datagen VIDEO|FOLDER ... --out DIR` runs the `generate` command."""


@datagen.command("generate")
@click.argument("videos", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="run directory (resumable)")
@click.option("--per-video", type=click.IntRange(min=1), default=12, show_default=True, help="samples planned per video")
@click.option("--tasks", multiple=True, help="tasks, categories (core_perception, reasoning, information, multimodal, agentic) or agentic_<tool>; comma-separated (default: all the video supports)")
@click.option("--kinds", multiple=True, help="single, multi, agentic; comma-separated (default: all)")
@click.option("--strategy", type=click.Choice(["facts", "windows"]), default="facts", show_default=True,
              help="facts: one question per distinct fact of the index, across the video (evidence first); windows: the paper's scenario pipeline")
@click.option("--max-repairs", type=click.IntRange(min=0), default=3, show_default=True, help="facts: times a sample moves on to the next fact when a turn cannot be used")
@click.option("--model", "model", default=None, help="writer model: openai[:MODEL], transformers[:MODEL] or scripted (default: the profile's chat backend)")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="videos at once (through Ray when more than 1)")
@click.option("--ray-address", default=None, help="run on this Ray cluster instead of a local Ray instance")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True, help="writer calls in flight per video (for a server)")
@click.option("--max-scenarios", type=click.IntRange(1, 5), default=3, show_default=True)
@click.option("--window-chars", type=click.IntRange(min=500), default=3000, show_default=True, help="characters of spans shown in one prompt")
@click.option("--max-retries", type=click.IntRange(min=0), default=2, show_default=True, help="times an unusable reply is sent back with its problem")
@click.option("--min-support", type=click.FloatRange(0, 1), default=0.5, show_default=True, help="share of an answer's content words its cited spans must hold")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--retry-failed", is_flag=True, help="ask the writer again for the items it failed on in an earlier run")
@click.option("--json", "as_json", is_flag=True, help="print the results as JSON")
@click.pass_context
def generate_cmd(ctx: click.Context, videos: tuple[Path, ...], out: Path, per_video: int, tasks: tuple[str, ...], kinds: tuple[str, ...],
                 strategy: str, max_repairs: int, model: str | None, workers: int, ray_address: str | None, concurrency: int, max_scenarios: int, window_chars: int,
                 max_retries: int, min_support: float, seed: int, retry_failed: bool, as_json: bool) -> None:  # fmt: skip
    """Generate samples for VIDEOS (files or folders), then write OUT/dataset.json and the review files."""
    from ..bench.harness_errors import DatagenError
    from ..index.batch import expand_videos
    from .pipeline import Options
    from .run import default_model, generate
    from .taxonomy import KINDS, resolve_tasks

    settings = _settings(ctx)
    chosen_kinds = _split(kinds) or list(KINDS)
    if bad := [k for k in chosen_kinds if k not in KINDS]:
        raise DatagenError(f"--kinds: unknown kind {', '.join(bad)}; use {', '.join(KINDS)}")
    resolve_tasks(_split(tasks))  # a misspelt task fails before any work
    options = Options(
        model=model or default_model(settings), strategy=strategy, max_repairs=max_repairs, per_video=per_video, tasks=_split(tasks), kinds=chosen_kinds,
        max_scenarios=max_scenarios, window_chars=window_chars, seed=seed, concurrency=concurrency, max_retries=max_retries,
        min_support=min_support, retry_failed=retry_failed,
    )  # fmt: skip
    found = expand_videos(videos)
    quiet = _quiet(ctx) or as_json

    def report(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    def done(result: Any) -> None:
        if not quiet:
            status = ", ".join(f"{n} {s}" for s, n in sorted(result.status.items()))
            line = f"ok      {result.seconds:7.1f} s  {result.samples} samples ({status})" if result.ok else f"FAILED  {result.error}"
            click.echo(f"{line}  {result.video}", err=not result.ok)

    results = generate(found, out, options, settings, workers=workers, address=ray_address, report=report, done=done)
    from .finalize import finalize, video_dirs

    if not video_dirs(out):
        raise DatagenError(f"no video could be used ({'; '.join(r.error or '' for r in results)})")
    summary = finalize(out, min_support=min_support, review=True)
    if as_json:
        from .run import total_usage

        click.echo(json.dumps({"videos": [r.to_dict() for r in results], "usage": {k: v.model_dump() for k, v in total_usage(results).items()}, **summary}, indent=2))
    else:
        _print_usage(results)
        _print_summary(summary)
    if any(not r.ok for r in results):
        ctx.exit(2)


def _print_usage(results: list[Any]) -> None:
    from .run import total_usage

    usage = total_usage(results)
    videos = max(1, sum(1 for r in results if r.ok))
    click.echo(f"{'stage':<15}{'calls':>7}{'cached':>8}{'retries':>9}{'failed':>8}{'tokens in':>11}{'tokens out':>12}{'seconds':>9}")
    for name, u in usage.items():
        click.echo(f"{name:<15}{u.calls:>7}{u.cached:>8}{u.retries:>9}{u.failures:>8}{u.input_tokens:>11,}{u.output_tokens:>12,}{u.seconds:>9.1f}")
    total = usage["total"]
    note = " (token counts estimated: the writer reports none)" if total.estimated_tokens else ""
    click.echo(f"per video: {total.input_tokens / videos:,.0f} tokens in, {total.output_tokens / videos:,.0f} out, "
               f"{total.seconds / videos:.1f} s of stage time{note}")  # fmt: skip


def _print_summary(summary: dict[str, Any]) -> None:
    status = ", ".join(f"{n} {s}" for s, n in sorted(summary["status"].items()))
    click.echo(f"{summary['generated']} samples generated ({status}); {summary['samples']} samples, {summary['turns']} questions "
               f"from {summary['videos']} videos in {summary['dataset']}")  # fmt: skip
    made = summary["yield"]
    click.echo(f"yield: {made['passed']} of {made['generated']} passed the checks ({made['passed_share']:.0%}); "
               f"{made['agentic']} agentic, {made['multi_turn']} multi-turn among them")  # fmt: skip
    if summary["errors"]:
        click.echo("left out by the checks: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["errors"].items())))
    click.echo(f"review: {summary['review']['html']} (or {summary['review']['csv']}), then `staragent datagen import`")
    click.echo(f"run it: staragent bench run {summary['dataset']} --agent profile:offline --out RUN_DIR")


@datagen.command("review")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--min-support", type=click.FloatRange(0, 1), default=0.5, show_default=True)
def review_cmd(out: Path, min_support: float) -> None:
    """Write OUT/review/review.html and review.csv again (checks re-run, imported decisions applied)."""
    from .finalize import checked_samples
    from .review import export_review

    paths = export_review(out, checked_samples(out, min_support=min_support))
    for kind, path in paths.items():
        click.echo(f"{kind}: {path}")


@datagen.command("import")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def import_cmd(out: Path, file: Path) -> None:
    """Read a reviewer's decisions (review.csv, or decisions.csv from the review page) into OUT."""
    from .finalize import collect
    from .review import import_decisions

    known = {s.sample_id: s for s, _ in collect(out)}
    counts = import_decisions(out, file, known)
    click.echo(f"{counts['rows']} rows: {counts['accepted']} samples accepted, {counts['rejected']} rejected, {counts['edited']} edited; "
               f"now run `staragent datagen finalize {out}`")  # fmt: skip


@datagen.command("finalize")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--reviewed-only", is_flag=True, help="only samples a reviewer accepted")
@click.option("--dataset", type=click.Path(dir_okay=False, path_type=Path), default=None, help="where to write (default OUT/dataset.json)")
@click.option("--min-support", type=click.FloatRange(0, 1), default=0.5, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def finalize_cmd(out: Path, reviewed_only: bool, dataset: Path | None, min_support: float, as_json: bool) -> None:
    """Write the STARBench JSON file: accepted samples, and undecided ones that passed the checks."""
    from .finalize import finalize

    summary = finalize(out, reviewed_only=reviewed_only, min_support=min_support, dataset=dataset)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(f"{summary['samples']} of {summary['generated']} samples ({summary['turns']} questions) in {summary['dataset']}; "
               f"decisions: {', '.join(f'{n} {d}' for d, n in sorted(summary['decisions'].items()))}")  # fmt: skip


__all__ = ["datagen"]
