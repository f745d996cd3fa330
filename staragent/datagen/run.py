"""A generation run over many videos: the writer model, the videos' ids, one job per video (here or
through Ray, as ``staragent index`` does), then the review export and the dataset file."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..bench.harness_errors import DatagenError
from ..fsutil import read_json, write_json
from .llm import Usage, Writer, writer_identity
from .pipeline import STAGE_NAMES, Options, VideoResult, generate_video

RUN_FILE = "datagen.json"
WRITER_ROLE = "dataset writer"
OFFLINE_HINT = "--model scripted (a deterministic stand-in for tests and demos)"


def make_writer(spec: str, settings: Any, out: Path, max_retries: int = 2) -> Writer:
    """The writer model named by ``spec`` (``scripted`` or a chat backend spec), with its reply cache
    under ``OUT/.cache/writer``."""
    check_spec(spec)
    if spec == "scripted":
        from .scripted import ScriptedWriter

        model = ScriptedWriter()
    else:
        from ..bench.chat import chat_model_from_spec

        model = chat_model_from_spec(spec, settings, error=DatagenError, role=WRITER_ROLE, offline=OFFLINE_HINT)
    return Writer(model, writer_identity(model, spec), out / ".cache" / "writer", max_retries=max_retries)


def check_spec(spec: str) -> None:
    """Refuse, before any work, a writer spec that cannot write (the offline rule planner)."""
    if spec.partition(":")[0] == "rules":
        raise DatagenError(
            "the offline profile has no language model to write a dataset with; pass --model openai[:MODEL] (an "
            "OpenAI-compatible server such as `staragent llm serve`, vLLM or Ollama, at STARAGENT_PLANNER__BASE_URL), "
            f"--model transformers[:MODEL], or {OFFLINE_HINT}"
        )


def default_model(settings: Any) -> str:
    """The profile's chat backend as a writer spec (``openai`` in the openai profile, ...)."""
    return settings.planner_backend


def video_ids(videos: list[Path], out: Path) -> dict[Path, str]:
    """A short, stable id per video: its file name's stem, with a piece of its content hash when another
    video of the run (now or before) already has that stem."""
    from ..index.fingerprint import file_fingerprint

    taken: dict[str, str] = {}  # id -> content fingerprint
    for manifest in (out / "videos").glob("*/manifest.json"):
        data = read_json(manifest)
        taken[data["video_id"]] = manifest.parent.name.rsplit("-", 1)[-1]
    ids: dict[Path, str] = {}
    for video in videos:
        fp = file_fingerprint(video)[:12] if video.is_file() else ""  # a missing file fails later, with a clear message
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", video.stem)[:48] or "video"
        mine = [i for i, f in taken.items() if f == fp]
        vid = mine[0] if mine else stem if stem not in taken else f"{stem}-{fp[:6]}"
        taken[vid] = fp
        ids[video] = vid
    return ids


def generate_one(video: str, video_id: str, out: str, options_data: dict, settings_data: dict) -> VideoResult:
    """One video, with everything given as plain data (what a Ray worker receives)."""
    from ..config import Settings
    from .llm import WriterError

    settings = Settings(**settings_data)
    options = Options(**options_data)
    try:
        writer = make_writer(options.model, settings, Path(out), options.max_retries)
        return generate_video(Path(video), video_id, Path(out), options, settings, writer, report=lambda m: None)
    except (DatagenError, WriterError) as exc:
        return VideoResult(video=video, video_id=video_id, ok=False, error=str(exc))


def generate(
    videos: list[Path],
    out: Path,
    options: Options,
    settings: Any,
    *,
    workers: int = 1,
    address: str | None = None,
    report: Callable[[str], None] = lambda m: None,
    done: Callable[[VideoResult], None] = lambda r: None,
) -> list[VideoResult]:
    """Generate samples for every video (see the package docstring)."""
    check_spec(options.model)
    if workers <= 1 and address is None:
        writer = make_writer(options.model, settings, out, options.max_retries)  # built once: a local model loads once
    out.mkdir(parents=True, exist_ok=True)
    ids = video_ids(videos, out)
    if workers <= 1 and address is None:
        results = []
        for video in videos:
            results.append(generate_video(video, ids[video], out, options, settings, writer, report))
            done(results[-1])
    else:
        from ..index.batch import run_per_video

        data = settings.model_dump(mode="json")
        data["progress"] = False  # many bars at once say nothing
        jobs = [(str(v), ids[v], str(out), options.model_dump(mode="json"), data) for v in videos]

        def crashed(job: tuple, exc: Exception) -> VideoResult:
            return VideoResult(video=job[0], video_id=job[1], ok=False, error=f"the worker generating it failed: {exc}")

        results = run_per_video(generate_one, jobs, workers=workers, address=address, report=done, crashed=crashed)
    record_run(out, options, results)
    return results


def total_usage(results: list[VideoResult]) -> dict[str, Usage]:
    """Usage per stage over the videos, and ``total``."""
    per_stage: dict[str, Usage] = {name: Usage() for name in STAGE_NAMES}
    for result in results:
        for name, usage in result.usage.items():
            per_stage[name] = per_stage[name].add(Usage(**usage))
    ran = {name for result in results for name in result.usage}
    per_stage = {name: usage for name, usage in per_stage.items() if name in ran}  # the stages of the strategy used
    total = Usage()
    for usage in per_stage.values():
        total = total.add(usage)
    return {**per_stage, "total": total}


def record_run(out: Path, options: Options, results: list[VideoResult]) -> None:
    path = out / RUN_FILE
    data = read_json(path) if path.is_file() else {"videos": {}}
    data["options"] = options.model_dump(mode="json")
    data["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    for r in results:
        data["videos"][r.video_id] = r.to_dict()
    data["usage"] = {k: v.model_dump() for k, v in total_usage(results).items()}
    write_json(path, data)
