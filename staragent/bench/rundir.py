"""The files of a run directory, and the one place that reads and writes them.

Layout::

    RUN_DIR/
      run.json            what ran: dataset, agent config and versions, options, environment, progress
      samples.jsonl       the samples of the run, as loaded (scoring reads these, never the dataset again)
      trajectories.jsonl  one TurnRecord per (sample_id, turn), appended as each turn finishes
      trajectories.unreadable.jsonl  lines of trajectories.jsonl that could not be read (damaged), set
                          aside by the next run, whose turns then run again
      scores.jsonl        one row per scorer, turn and judge
      scoring.jsonl       one line per scoring session
      .run.lock           held by the run that is writing the directory (one writer at a time)

``run.json`` names the process writing the run; a reader that finds it ``running`` while that
process is gone (killed) reports the run as ``interrupted``. The runner writes runs, scoring adds
scores, reports read both: each goes through this module, so none of them needs another.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from ..fsutil import append_jsonl, atomic_path, process_alive, read_json, read_jsonl, stable_hash, write_jsonl
from .harness_errors import RunDirError
from .judges.client import JudgeIdentity
from .sample_records import Sample, TurnRecord

RUN_FILE = "run.json"
SAMPLES_FILE = "samples.jsonl"
TRAJECTORIES_FILE = "trajectories.jsonl"
UNREADABLE_FILE = "trajectories.unreadable.jsonl"
SCORES_FILE = "scores.jsonl"
SCORING_LOG = "scoring.jsonl"
LOCK_FILE = ".run.lock"

log = logging.getLogger("staragent.bench")


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def load_run(run_dir: str | Path) -> tuple[dict[str, Any], list[Sample], list[TurnRecord]]:
    """``run.json``, the samples and the turn records of a run directory (last record per turn wins).
    A run marked running whose writer is gone has the status ``interrupted``."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunDirError(f"run directory not found: {run_dir} (run `bench run DATASET --out {run_dir}` first)")
    meta_path = run_dir / RUN_FILE
    if not meta_path.is_file():
        raise RunDirError(f"{run_dir} has no {RUN_FILE}; it is not a benchmark run directory (create one with `bench run`)")
    meta = read_json(meta_path)
    meta["status"] = run_status(meta)
    samples_path = run_dir / SAMPLES_FILE
    if not samples_path.is_file():
        raise RunDirError(f"{run_dir} has no {SAMPLES_FILE}; the run was never started properly; run `bench run` again")
    samples = [Sample.model_validate(r) for r in read_jsonl(samples_path)]
    unreadable: list[int] = []
    records = read_records(run_dir / TRAJECTORIES_FILE, unreadable)
    if unreadable:
        log.warning("%s: %s; the next `bench run` sets them aside and runs their turns again",
                    run_dir / TRAJECTORIES_FILE, unreadable_lines(unreadable))
    return meta, samples, records


def read_records(path: Path, unreadable: list[int] | None = None) -> list[TurnRecord]:
    """The turn records of ``trajectories.jsonl``, the last one per turn. A torn last line (a writer
    killed mid-append, or appending right now) is left out; any other line that is not a turn record
    (damaged) is skipped and its number added to ``unreadable``: its turn counts as not run."""
    if not path.is_file():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")
    latest: dict[tuple[str, int], TurnRecord] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = TurnRecord.model_validate_json(line)
        except ValueError:  # pydantic's ValidationError, for broken JSON as for a wrong shape
            if number < len(lines) and unreadable is not None:  # the last piece has no newline: torn
                unreadable.append(number)
            continue
        latest[rec.key] = rec
    return list(latest.values())


def unreadable_lines(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:5])) + (", ..." if len(numbers) > 5 else "")
    return f"{len(numbers)} unreadable line{'s' if len(numbers) != 1 else ''} ({shown})"


def set_aside(path: Path, numbers: list[int]) -> None:
    """Move the unreadable lines of ``path`` to UNREADABLE_FILE beside it (kept, not destroyed) and
    rewrite ``path`` without them, byte for byte otherwise."""
    lines = path.read_bytes().split(b"\n")
    bad = set(numbers)
    with open(path.with_name(UNREADABLE_FILE), "ab") as aside:
        aside.write(b"".join(lines[n - 1] + b"\n" for n in sorted(bad)))
        aside.flush()
        os.fsync(aside.fileno())
    with atomic_path(path) as tmp:
        tmp.write_bytes(b"\n".join(line for n, line in enumerate(lines, start=1) if n not in bad))


def run_status(meta: dict[str, Any]) -> str | None:
    """``run.json``'s status, except that a run marked ``running`` whose writer, on this machine,
    no longer exists (killed; the same number taken by a newer process does not count) is ``interrupted``."""
    status, writer = meta.get("status"), meta.get("writer") or {}
    if status != "running" or writer.get("host") != socket.gethostname() or not writer.get("pid"):
        return status
    alive = process_alive(writer["pid"], writer.get("started"))
    return status if alive else "interrupted"


def merge_samples(run_dir: Path, selected: list[Sample]) -> list[Sample]:
    """The run's sample snapshot: earlier samples kept, new ones added, a changed sample refused."""
    path = run_dir / SAMPLES_FILE
    existing = {s.sample_id: s for s in (Sample.model_validate(r) for r in read_jsonl(path))} if path.is_file() else {}
    merged = dict(existing)
    for sample in selected:
        old = existing.get(sample.sample_id)
        if old is not None and stable_hash(old.model_dump(mode="json")) != stable_hash(sample.model_dump(mode="json")):
            raise RunDirError(
                f"{run_dir} already holds a different version of sample {sample.sample_id}; "
                "the dataset changed since the run started: use a new --out directory"
            )
        merged.setdefault(sample.sample_id, sample)
    return list(merged.values())


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """One writer per run directory: a second ``bench run --out`` on it fails at once."""
    lock = FileLock(str(run_dir / LOCK_FILE))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RunDirError(
            f"another run is writing {run_dir}; wait for it to finish (or stop it), or use another --out directory"
        ) from None
    try:
        yield
    finally:
        lock.release()  # the lock file stays: unlinking it would let two processes lock different files


def read_scores(run_dir: str | Path) -> list[dict[str, Any]]:
    """The score rows of a run, each ``judge_tag`` as its judge identity names it today; a row written
    under another spelling of the tag (an older version's) keeps that one in ``judge_tag_written``."""
    path = Path(run_dir) / SCORES_FILE
    rows = read_jsonl(path) if path.is_file() else []
    for row in rows:
        if isinstance(row.get("judge"), dict) and row.get("judge_tag"):
            tag = JudgeIdentity.model_validate(row["judge"]).tag
            if tag != row["judge_tag"]:
                row["judge_tag_written"] = row.get("judge_tag_written") or row["judge_tag"]
                row["judge_tag"] = tag
    return rows


def current_tag(rows: list[dict[str, Any]], judge_tag: str | None) -> str | None:
    """``judge_tag`` as today's tag, when rows were written under it as an older spelling."""
    written = {r["judge_tag_written"]: r["judge_tag"] for r in rows if r.get("judge_tag_written")}
    return written.get(judge_tag, judge_tag) if judge_tag else judge_tag


def write_scores(run_dir: str | Path, rows: list[dict[str, Any]]) -> None:
    write_jsonl(Path(run_dir) / SCORES_FILE, rows)


def log_scoring(run_dir: str | Path, entry: dict[str, Any]) -> None:
    append_jsonl(Path(run_dir) / SCORING_LOG, entry)
