"""Run an agent over a benchmark, one turn at a time, appending each finished turn to
``RUN_DIR/trajectories.jsonl`` (fsync'd), so a killed run resumes where it stopped. The run
directory's files are :mod:`staragent.bench.rundir`'s.

Multi-turn samples use the paper's ideal trajectory: the history of turn k holds the questions and
REFERENCE answers of turns 0..k-1, never the agent's own answers. Turns are therefore independent and
run in parallel with ``workers`` threads. A sample whose ``meta["history"]`` is ``"live"`` (fact
questions asked as one conversation, where no reference answers exist) is the exception: its turns run
in order as one unit, each after the agent's own earlier answers, in one conversation thread
(``sample["bench"]["thread"]``); a resumed run asks such a sample again from its first turn.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import logging
import os
import platform
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..faults import marker
from ..fsutil import (
    append_jsonl,
    process_started,
    read_json,
    repair_jsonl,
    stable_hash,
    write_json,
    write_jsonl,
)
from .agents import BenchAgent
from .harness_errors import RunDirError
from .rundir import (
    RUN_FILE,
    SAMPLES_FILE,
    TRAJECTORIES_FILE,
    UNREADABLE_FILE,
    merge_samples,
    now_iso,
    read_records,
    run_lock,
    set_aside,
    unreadable_lines,
)
from .sample_records import VIDEO_SUFFIXES, Dataset, Sample, TurnRecord

log = logging.getLogger("staragent.bench")

PACKAGES = ("staragent", "langchain-core", "langgraph", "pydantic", "sacrebleu", "rouge-score", "nltk", "scipy", "numpy")


def git_revision(path: Path | None = None) -> dict[str, Any]:
    """The git commit of the staragent checkout (and whether it has uncommitted changes), if any."""
    cwd = str(path or Path(__file__).resolve().parent)
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5)
        if rev.returncode != 0:
            return {"revision": None}
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=cwd, capture_output=True, text=True, timeout=5)
        return {"revision": rev.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"revision": None}


def environment() -> dict[str, Any]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": versions,
        "git": git_revision(),
    }


@dataclass
class RunSummary:
    run_dir: Path
    total: int
    done_before: int
    new: int
    errors: int
    interrupted: bool = False
    unreadable: int = 0  # damaged lines of trajectories.jsonl set aside (their turns ran again)

    @property
    def done(self) -> int:
        return self.done_before + self.new


def _writer() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname(), "started": process_started(os.getpid())}


class _VideoIndex:
    def __init__(self, root: str | Path | None):
        self.root = Path(root) if root else None
        self._map: dict[str, Path] | None = None

    def find(self, sample: Sample, base: Path | None) -> Path | None:
        if sample.video_path:
            p = Path(sample.video_path)
            if not p.is_absolute() and base is not None:
                p = base / p
            return p if p.exists() else None
        if self.root is None or not sample.video_id:
            return None
        if self._map is None:
            self._map = {}
            for dirpath, _, files in os.walk(self.root):
                for f in files:
                    stem, suffix = os.path.splitext(f)
                    if suffix.lower() in VIDEO_SUFFIXES:
                        self._map.setdefault(stem, Path(dirpath) / f)
        return self._map.get(sample.video_id)


class RunInterrupted(KeyboardInterrupt):
    """Raised in the main thread when the process is asked to stop (SIGTERM), so a run ends like on Ctrl-C."""


@contextlib.contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into :class:`RunInterrupted` while a run is going (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise RunInterrupted(f"stopped by signal {signum}")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _environment_key(env: dict[str, Any]) -> Any:
    return (env.get("python"), env.get("packages"), (env.get("git") or {}).get("revision"), (env.get("git") or {}).get("dirty"))


def environment_history(old_meta: dict[str, Any] | None, current: dict[str, Any]) -> list[dict[str, Any]]:
    """Every environment the run has been resumed in, oldest first; a new entry only when the git revision,
    the package versions or Python differ from the last one."""
    old_meta = old_meta or {}
    history = list(old_meta.get("environment_history") or ([old_meta["environment"]] if old_meta.get("environment") else []))
    if not history or _environment_key(history[-1]) != _environment_key(current):
        history.append({**current, "since": now_iso()})
    return history


def _check_resume(run_dir: Path, old_meta: dict[str, Any], agent: BenchAgent, description: dict, simulated_tools: bool) -> None:
    old_agent = old_meta.get("agent", {})
    if old_agent.get("name") != agent.name or old_agent.get("config") != description:
        raise RunDirError(
            f"{run_dir} holds a run of agent {old_agent.get('name')!r} with another configuration; "
            "resume it with the same --agent, or use a new --out directory"
        )
    if old_meta.get("options", {}).get("simulated_tools") != simulated_tools:
        raise RunDirError(
            f"{run_dir} was run with simulated_tools={old_meta.get('options', {}).get('simulated_tools')}; "
            "resume with the same --simulated-tools setting, or use a new --out directory"
        )


class _Progress:
    """Keeps ``run.json``'s progress current: rewritten (atomically) at most every ``every_s`` seconds
    while turns finish, and once more at the end."""

    def __init__(self, path: Path, meta: dict[str, Any], records: list[TurnRecord], total: int, every_s: float):
        self.path, self.meta, self.total, self.every_s = path, meta, total, every_s
        self.done = {r.key for r in records}
        self.errors = {r.key for r in records if not r.ok}
        self.last_write = float("-inf")

    def add(self, record: TurnRecord) -> None:
        self.done.add(record.key)
        (self.errors.add if not record.ok else self.errors.discard)(record.key)
        if time.monotonic() - self.last_write >= self.every_s:
            self.write()

    def write(self, status: str | None = None) -> None:
        if status:
            self.meta["status"] = status
        self.meta["updated_at"] = now_iso()
        self.meta["progress"] = {"total": self.total, "done": len(self.done), "errors": len(self.errors)}
        write_json(self.path, self.meta)
        self.last_write = time.monotonic()


def is_live(sample: Sample) -> bool:
    """Whether the sample's turns form one conversation with the agent's own answers (see above)."""
    return sample.meta.get("history") == "live"


def _turn_record(
    agent: BenchAgent, sample: Sample, index: int, video: Path | None, sample_dict: dict, simulated_tools: bool,
    history: list[dict] | None = None,
) -> TurnRecord:
    """Ask the agent one turn; an exception becomes an ``ok: false`` record (scored as unanswered).
    ``history`` replaces the ideal trajectory (a live conversation's own earlier turns)."""
    question = sample.qa_turns()[index].question.content
    fields = {
        "sample_id": sample.sample_id,
        "turn": index,
        "video_id": sample.video_id,
        "video": str(video) if video else None,
        "question": question,
        "agent": agent.name,
        "simulated_tools": simulated_tools,
        "started_at": now_iso(),
    }
    t0 = time.perf_counter()
    try:
        history = sample.history_before(index) if history is None else history
        answer = agent.respond(video, history, question, sample=sample_dict, turn=index)
    except Exception as exc:  # recorded, never dropped
        error = f"{type(exc).__name__}: {exc}"
        return TurnRecord(**fields, latency_s=round(time.perf_counter() - t0, 4), ok=False, error=error, finished_at=now_iso())
    return TurnRecord(
        **fields,
        answer=answer.answer,
        evidence=answer.evidence,
        trajectory=answer.trajectory,
        tokens=answer.tokens,
        latency_s=round(time.perf_counter() - t0, 4),
        finished_at=now_iso(),
    )


def run_benchmark(
    dataset: Dataset,
    agent: BenchAgent,
    out: str | Path,
    *,
    workers: int = 1,
    simulated_tools: bool = False,
    video_root: str | Path | None = None,
    retry_errors: bool = False,
    dataset_spec: str | None = None,
    dataset_options: dict[str, Any] | None = None,
    agent_spec: str | None = None,
    progress: Callable[[TurnRecord], None] | None = None,
    progress_every_s: float = 5.0,
) -> RunSummary:
    """Run ``agent`` over every (sample, turn) of ``dataset`` not yet recorded in ``out``. The run directory
    is locked for the whole run; ``run.json`` shows the progress every ``progress_every_s`` seconds and
    ends ``complete``, ``partial`` or ``interrupted`` (Ctrl-C or SIGTERM)."""
    run_dir = Path(out)
    run_dir.mkdir(parents=True, exist_ok=True)
    with run_lock(run_dir), _stop_on_sigterm():
        given = {"spec": dataset_spec, "options": dataset_options}
        return _run_locked(
            dataset, agent, run_dir, workers, simulated_tools, video_root, retry_errors, given, agent_spec, progress,
            progress_every_s,
        )


def _run_locked(
    dataset: Dataset,
    agent: BenchAgent,
    run_dir: Path,
    workers: int,
    simulated_tools: bool,
    video_root: str | Path | None,
    retry_errors: bool,
    given: dict[str, Any],
    agent_spec: str | None,
    progress: Callable[[TurnRecord], None] | None,
    progress_every_s: float,
) -> RunSummary:
    meta_path = run_dir / RUN_FILE
    description = agent.describe()
    old_meta = read_json(meta_path) if meta_path.is_file() else None
    if old_meta is not None:
        _check_resume(run_dir, old_meta, agent, description, simulated_tools)

    samples = merge_samples(run_dir, dataset.samples)
    write_jsonl(run_dir / SAMPLES_FILE, [s.model_dump(mode="json") for s in samples])

    traj_path = run_dir / TRAJECTORIES_FILE
    repair_jsonl(traj_path)
    unreadable: list[int] = []
    existing = read_records(traj_path, unreadable)
    if unreadable:
        log.warning("%s: %s, moved to %s; their turns run again", traj_path, unreadable_lines(unreadable), UNREADABLE_FILE)
        set_aside(traj_path, unreadable)
    if retry_errors and any(not r.ok for r in existing):
        existing = [r for r in existing if r.ok]
        write_jsonl(traj_path, [r.model_dump(mode="json") for r in existing])
    done = {r.key for r in existing}

    selected_ids = {s.sample_id for s in dataset.samples}
    units: list[tuple[Sample, list[int]]] = []
    for sample in samples:
        missing = [p.index for p in sample.qa_turns() if (sample.sample_id, p.index) not in done]
        if sample.sample_id not in selected_ids or not missing:
            continue
        if is_live(sample):  # one conversation: all of it again, or the later turns would lose their context
            units.append((sample, [p.index for p in sample.qa_turns()]))
        else:
            units.extend((sample, [i]) for i in missing)
    total = sum(len(s.qa_turns()) for s in samples)
    current_env = environment()
    meta = {
        "schema_version": 1,
        "status": "running",
        "created_at": (old_meta or {}).get("created_at") or now_iso(),
        "updated_at": now_iso(),
        "dataset": {
            "spec": given["spec"] or dataset.source,
            "options": {k: str(v) for k, v in (given["options"] or {}).items()},
            "name": dataset.name,
            "kind": dataset.kind,
            "source": dataset.source,
            "fingerprint": stable_hash([s.model_dump(mode="json") for s in samples]),
            "samples": len(samples),
            "turns": total,
            **({"meta": dataset.meta} if dataset.meta else {}),
        },
        "agent": {"spec": agent_spec or agent.name, "name": agent.name, "config": description},
        "options": {
            "workers": workers,
            "simulated_tools": simulated_tools,
            "video_root": str(video_root) if video_root else None,
        },
        "environment": current_env,
        "environment_history": environment_history(old_meta, current_env),
        "writer": _writer(),
    }
    tracker = _Progress(meta_path, meta, existing, total, progress_every_s)
    tracker.write()

    base = Path(dataset.source).parent if Path(dataset.source).exists() else None
    videos = _VideoIndex(video_root)
    lock = threading.Lock()
    counts = {"new": 0, "errors": 0}

    def run_unit(sample: Sample, indices: list[int]) -> None:
        video = videos.find(sample, base)
        live = is_live(sample)
        thread = f"bench-{sample.sample_id}-{os.urandom(4).hex()}" if live else None
        conversation: list[dict] = []
        for index in indices:
            sample_dict = sample.model_dump(mode="json")
            # the answer key goes with every turn (the oracle follows it); agents under test read it only
            # as simulated tool responses, when simulated_tools is set
            expected = sample.qa_turns()[index].expected_tool_calls
            sample_dict["bench"] = {
                "simulated_tools": simulated_tools,
                "expected_tool_calls": [c.model_dump(mode="json") for c in expected],
                "turn": index,
                "dataset": dataset.name,
                **({"thread": thread} if thread else {}),
            }
            # a turn without expected calls has nothing to simulate: it ran on the video
            record = _turn_record(
                agent, sample, index, video, sample_dict, simulated_tools and bool(expected), list(conversation) if live else None
            )
            conversation += [{"role": "user", "content": record.question}, {"role": "assistant", "content": record.answer or ""}]
            with lock:
                append_jsonl(traj_path, record.model_dump(mode="json"))
                marker("bench.turn")
                counts["new"] += 1
                counts["errors"] += 0 if record.ok else 1
                tracker.add(record)
            if progress is not None:
                progress(record)

    interrupted = False
    try:
        if workers <= 1:
            for sample, indices in units:
                run_unit(sample, indices)
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                pending = {pool.submit(run_unit, s, i) for s, i in units}
                try:
                    while pending:
                        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            fut.result()
                except BaseException:
                    for fut in pending:
                        fut.cancel()
                    raise
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        final = read_records(traj_path)
        tracker.done, tracker.errors = {r.key for r in final}, {r.key for r in final if not r.ok}
        tracker.write("interrupted" if interrupted else ("complete" if len(final) >= total else "partial"))
    return RunSummary(run_dir, total, len(done), counts["new"], counts["errors"], interrupted, len(unreadable))
