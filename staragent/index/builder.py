"""Building a VideoIndex: validate the input, take the lock, run the stages that are not already
done for this exact input and configuration, record each one in the manifest as it finishes."""

from __future__ import annotations

import contextlib
import errno
import logging
import re
import shutil
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

from ..config import INDEX_LANES, Settings, load_settings
from ..errors import DiskFull, IndexBuildError, InputError, MediaError
from ..faults import marker
from ..fsutil import out_of_space, stable_hash
from ..limits import check_path
from ..media import no_audio_message, silent_note, validate_video
from .fingerprint import file_fingerprint
from .manifest import Manifest, StageRecord
from .progress import ProgressFactory, StageProgress
from .stages import (
    STAGES,
    BuildContext,
    Stage,
    finish_checkpoint,
    kept_subtitles,
    open_feeds,
    share_frame_pass,
    subtitle_source,
)
from .store import VideoIndex

log = logging.getLogger("staragent.index")
Reporter = Callable[[str], None]


def index_dir_for(video: Path, fingerprint: str, settings: Settings) -> Path:
    """Where the index of these bytes lives: the one already built for them under any file name
    (a copy or a renamed file reuses it), else a new directory named after this file."""
    key = fingerprint[:12]
    existing = sorted(d for d in settings.index_root.glob(f"*-{key}") if d.is_dir()) if settings.index_root.is_dir() else []
    if existing:
        return existing[0]
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", video.stem)[:48] or "video"
    return settings.index_root / f"{stem}-{key}"


def lock_path_for(fingerprint: str, settings: Settings) -> Path:
    """The build lock of these bytes: it belongs to the content, so two names for one file never
    build two indexes side by side."""
    locks = settings.index_root / ".locks"
    with contextlib.suppress(OSError):  # a read-only cache: taking the lock says so
        locks.mkdir(parents=True, exist_ok=True)
    return locks / f"{fingerprint[:12]}.lock"


def _fingerprints(ctx: BuildContext, video_fp: str) -> dict[str, str]:
    """Each stage's fingerprint; its parameters are kept in ``ctx.params`` for the manifest (working
    them out can read weight files to name their revision: once is enough)."""
    prints: dict[str, str] = {}
    for stage in STAGES:
        ctx.params[stage.name] = stage.params(ctx)
        prints[stage.name] = stable_hash(
            {"stage": stage.name, "version": stage.version, "params": ctx.params[stage.name], "deps": [prints[d] for d in stage.deps], "video": video_fp}
        )
    return prints


def _is_done(stage: Stage, manifest: Manifest, fingerprint: str, directory: Path) -> bool:
    record = manifest.stages.get(stage.name)
    return record is not None and record.fingerprint == fingerprint and all((directory / o).exists() for o in stage.outputs)


def build_index(
    video: str | Path,
    settings: Settings | None = None,
    pool=None,
    *,
    force: bool = False,
    report: Reporter | None = None,
) -> VideoIndex:
    """Index ``video`` (or find it already indexed) and return the VideoIndex."""
    from filelock import FileLock

    settings = settings or load_settings()
    report = report or log.info
    video = Path(check_path(video))
    info = validate_video(video, require_audio=False)
    subtitles = subtitle_source(video, info, settings.index.subtitles)
    video_fp = file_fingerprint(video)
    lock = FileLock(str(lock_path_for(video_fp, settings)))
    writable = _take(lock, report, video.name)
    try:
        directory = index_dir_for(video, video_fp, settings)
        existing = Manifest.load(directory) if directory.is_dir() else None
        if subtitles is None and settings.index.subtitles:
            subtitles = kept_subtitles(existing, directory)
        if not info.has_audio and settings.index.require_audio:
            raise MediaError(no_audio_message(video.name))
        if pool is None:
            from ..models.pool import ModelPool

            pool = ModelPool(settings)
        fresh = not directory.exists()
        if writable:
            directory.mkdir(exist_ok=True)
            for leftover in directory.glob(".*.tmp"):  # debris of a killed build
                shutil.rmtree(leftover, ignore_errors=True) if leftover.is_dir() else leftover.unlink()
        manifest = existing or Manifest()
        recorded = manifest.model_dump(mode="json")  # as saved: a probed tuple and its saved list compare equal
        if force:
            manifest.stages.clear()
        manifest.video = {"path": str(video.resolve()), "fingerprint": video_fp, "size": video.stat().st_size}
        manifest.media = info.to_dict()
        manifest.profile = settings.profile
        progress = ProgressFactory(settings.progress)
        kept = frozenset(r.params["backend"] for r in manifest.stages.values() if isinstance(r.params.get("backend"), str))
        ctx = BuildContext(video=video, info=info, settings=settings, pool=pool, dir=directory, subtitles=subtitles, progress=progress,
                           kept_backends=kept)
        ctx.fingerprints = _fingerprints(ctx, video_fp)
        todo = [s for s in STAGES if not _is_done(s, manifest, ctx.fingerprints[s.name], directory)]
        if todo and not writable:
            raise IndexBuildError(
                f"the index of {video.name} needs building ({', '.join(s.name for s in todo)}), but the cache "
                f"{settings.cache_dir} cannot be written; make it writable or pass --cache-dir with a writable folder"
            )
        if not todo:
            if writable and manifest.model_dump(mode="json") != recorded:
                manifest.save(directory)  # the file moved or is a copy: tools decode frames from the path given now
            report(f"index of {video.name} is up to date ({directory})" + ("" if writable else ", read-only"))
            built = VideoIndex(directory, settings.models.device)
            built.manifest.video = manifest.video  # read-only: the path given now, kept in memory
            return built
        if not info.has_audio:
            log.info(silent_note(video.name))
        share_frame_pass(ctx, (s.name for s in todo))
        open_feeds(ctx, todo)
        try:
            _run_stages(todo, ctx, manifest, report)
        except InputError:
            if fresh:  # the input itself is bad: leave nothing half-built behind
                shutil.rmtree(directory, ignore_errors=True)
            raise
        except (OSError, IndexBuildError) as exc:
            if out_of_space(exc, directory):
                raise DiskFull(
                    f"no space left on the disk holding the cache ({settings.cache_dir}): indexing {video.name} stopped. "
                    "Free some space there (or pass --cache-dir with a folder on a disk with room) and run it again: "
                    "the stages already finished are kept and the index resumes from them"
                ) from exc
            raise
        finally:
            if ctx.frame_pass is not None:
                ctx.frame_pass.close()
        return VideoIndex(directory, settings.models.device)
    finally:
        if writable:
            lock.release()  # the lock file stays (in .locks/): unlinking it would let two processes lock different files


def _take(lock, report: Reporter, name: str) -> bool:
    """Take the build lock, waiting for another builder; False when the cache cannot be written at
    all (a read-only copy): then an index that is already complete is still usable."""
    from filelock import Timeout

    try:
        try:
            lock.acquire(timeout=0)
        except Timeout:
            report(f"another process is building the index of {name}; waiting for it to finish")
            lock.acquire()
    except OSError as exc:
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOENT):  # ENOENT: .locks could not be made
            return False
        raise
    return True


def _run_stages(todo: list[Stage], ctx: BuildContext, manifest: Manifest, report: Reporter) -> None:
    started_all = time.perf_counter()
    report(StageProgress(f"indexing {ctx.video.name}: {len(todo)} stages to run", stage=None, done=0, total=len(todo)))
    # A worker per lane: the audio, video and on-screen text lanes overlap; speech and acoustics share the audio lane.
    # A stage reading another's feed has a worker of its own: it waits on the feed while the lanes work.
    with ThreadPoolExecutor(max_workers=INDEX_LANES + len(ctx.feeds), thread_name_prefix="stage") as executor:
        try:
            failure = _schedule(executor, todo, ctx, manifest, report)
        except BaseException:  # Ctrl-C while waiting: running stages stop at their next step
            ctx.progress.cancel.set()
            raise
    if failure is not None:
        from ..errors import StarAgentError

        if isinstance(failure, (StarAgentError, KeyboardInterrupt)):
            raise failure
        raise IndexBuildError(
            f"indexing {ctx.video.name} failed in a stage ({type(failure).__name__}: {failure}); "
            "finished stages are kept, run the command again to resume"
        ) from failure
    report(f"indexed {ctx.video.name} in {time.perf_counter() - started_all:.1f} s -> {ctx.dir}")


def _schedule(executor, todo: list[Stage], ctx: BuildContext, manifest: Manifest, report: Reporter) -> BaseException | None:
    """Start each stage once its inputs are done; on the first failure start nothing more, let the
    running stages stop, and return that failure."""
    done = {s.name for s in STAGES} - {s.name for s in todo}
    pending = {s.name: s for s in todo}
    running: dict = {}
    started: set[str] = set()
    failure: BaseException | None = None

    def run(stage: Stage) -> tuple[dict, float]:
        started = time.perf_counter()
        return stage.run(ctx), time.perf_counter() - started

    while (pending and failure is None) or running:
        if failure is None:
            for name, stage in list(pending.items()):
                if all(d in done or (d == stage.streams_from and d in ctx.feeds and d in started) for d in stage.deps):
                    running[executor.submit(run, stage)] = stage
                    started.add(name)
                    del pending[name]
        if not running:
            break
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            stage = running.pop(future)
            try:
                info, seconds = future.result()
            except BaseException as exc:  # noqa: BLE001 - returned to the caller, which re-raises it
                if failure is None:
                    failure = exc
                    ctx.progress.cancel.set()
                continue
            if stage.role in ctx.fallbacks:  # an expert that cannot run here was replaced: say which and why
                info = {**info, "fallback": ctx.fallbacks[stage.role]}
            manifest.stages[stage.name] = StageRecord(
                fingerprint=ctx.fingerprints[stage.name], params=ctx.params[stage.name], seconds=round(seconds, 3), info=info
            )
            if stage.role and info.get("model"):
                manifest.models[stage.role] = info["model"]
            elif stage.role:
                manifest.models.pop(stage.role, None)
            manifest.save(ctx.dir)
            finish_checkpoint(ctx, stage.name)
            marker(f"index.stage.{stage.name}")
            done.add(stage.name)
            finished = len(todo) - len(pending) - len(running)
            report(StageProgress(f"{stage.name:<9} {seconds:7.1f} s  {_brief(info)}", stage=stage.name, seconds=seconds, done=finished, total=len(todo)))
    return failure


def _brief(info: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in info.items())
