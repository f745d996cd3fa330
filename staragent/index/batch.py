"""Indexing many videos at once: one task per video through Ray (a local Ray instance by default, a
cluster when given its address), or one after another with a single worker. Each video is indexed
exactly as ``build_index`` does alone (cached, resumable, locked per content), so a batch that is
stopped and started again only does what is left; a bad video is reported and the rest go on."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

from ..config import Settings
from ..errors import InputError, StarAgentError

T = TypeVar("T")
VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".mov", ".avi", ".m4v", ".ts", ".mts", ".mpg", ".mpeg", ".flv", ".wmv", ".3gp")


@dataclass
class BatchItem:
    video: str
    ok: bool
    seconds: float
    directory: str | None = None
    segments: int = 0
    error: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def expand_videos(paths: Iterable[str | Path]) -> list[Path]:
    """The videos named: files as given, folders by the video files inside them (recursively)."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in VIDEO_SUFFIXES)
            if not inside:
                raise InputError(f"{path} holds no video files ({', '.join(VIDEO_SUFFIXES)})")
            found.extend(inside)
        else:
            found.append(path)
    return list(dict.fromkeys(found))


def index_one(video: str, settings_data: dict, force: bool = False) -> BatchItem:
    """Index one video with settings given as plain data (what a Ray worker receives)."""
    from .builder import build_index

    started = time.perf_counter()
    try:
        built = build_index(video, Settings(**settings_data), force=force)
    except StarAgentError as exc:
        return BatchItem(video=video, ok=False, seconds=round(time.perf_counter() - started, 2), error=str(exc))
    return BatchItem(video=video, ok=True, seconds=round(time.perf_counter() - started, 2), directory=str(built.dir), segments=len(built.segments))


def index_many(
    videos: list[Path],
    settings: Settings,
    *,
    workers: int = 1,
    address: str | None = None,
    force: bool = False,
    report: Callable[[BatchItem], None] | None = None,
) -> list[BatchItem]:
    """Index ``videos``; with ``workers`` > 1 or a Ray ``address``, through Ray. Results come in
    the order the videos finish; ``report`` is told of each as it does."""
    data = settings.model_dump(mode="json")
    data["progress"] = False  # many bars at once say nothing

    def crashed(job: tuple, exc: Exception) -> BatchItem:
        return BatchItem(video=job[0], ok=False, seconds=0.0, error=f"the worker indexing it failed: {exc}")

    jobs = [(str(v), data, force) for v in videos]
    return run_per_video(index_one, jobs, workers=workers, address=address, report=report, crashed=crashed)


def run_per_video(
    task: Callable[..., T],
    jobs: list[tuple],
    *,
    workers: int = 1,
    address: str | None = None,
    report: Callable[[T], None] | None = None,
    crashed: Callable[[tuple, Exception], T],
) -> list[T]:
    """``task(*job)`` for every job (one per video): here, one after another, with one worker and no
    Ray ``address``; else one Ray task per job, at most ``workers`` in flight. Results come in the order
    the jobs finish; ``report`` is told of each. A worker that dies (out of memory, killed) becomes
    ``crashed(job, exception)`` and the other jobs go on. Arguments must be plain data."""
    report = report or (lambda item: None)
    if workers <= 1 and address is None:
        items = []
        for job in jobs:
            items.append(task(*job))
            report(items[-1])
        return items
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        options = {"address": address} if address else {"num_cpus": workers}
        ray.init(**options, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        remote = ray.remote(num_cpus=1)(task)
        pending, items = {}, []
        queue = list(jobs)
        while queue or pending:
            while queue and len(pending) < max(1, workers):  # at most ``workers`` videos in flight
                job = queue.pop(0)
                pending[remote.remote(*job)] = job
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                job = pending.pop(ref)
                try:
                    item = ray.get(ref)
                except Exception as exc:  # a worker that died: the others go on
                    item = crashed(job, exc)
                items.append(item)
                report(item)
        return items
    finally:
        if started_here:
            ray.shutdown()
