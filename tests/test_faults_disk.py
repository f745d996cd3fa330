"""A disk that fills up: the cache on a small tmpfs (root mounts it; CI runs as root), filled in the
middle of an index and of a chat turn. Each must stop with one message that names the problem and
what to do, leave nothing half-written, and work again once there is room: the index resumes from
the stages it finished, and the conversation keeps its earlier turns."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path):
    """Mount a tmpfs of the given size at a fresh folder; ``small_disk.resize`` changes its size."""
    mounted: list[Path] = []

    class Disk:
        @staticmethod
        def mount(size: str) -> Path:
            where = tmp_path / f"disk{len(mounted)}"
            where.mkdir()
            done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True)
            if done.returncode != 0:
                pytest.skip(f"a tmpfs cannot be mounted here (needs root): {done.stderr.strip()}")
            mounted.append(where)
            return where

        @staticmethod
        def resize(where: Path, size: str) -> None:
            subprocess.run(["mount", "-o", f"remount,size={size}", str(where)], check=True)

    yield Disk
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk`` with one file (deleted again to give the room back)."""
    filler = disk / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def cli(*args, cache: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "staragent", "--quiet", "--cache-dir", str(cache), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)


def assert_clear_disk_message(text: str, cache: Path) -> None:
    assert "Traceback" not in text, text
    assert "space" in text.lower() and str(cache) in text, text  # the problem, and where
    assert "free" in text.lower() or "--cache-dir" in text, text  # and what to do


def assert_nothing_half_written(directory: Path) -> None:
    import json

    assert not [p for p in directory.rglob(".*.tmp")], "a temporary file was left behind"
    for path in directory.glob("*.jsonl"):  # each line whole (a partial file is cut back on resume)
        for line in path.read_text().splitlines():
            json.loads(line)


def test_an_index_that_fills_the_disk_stops_clearly_and_resumes_when_room_returns(small_disk, foreign, foreign_index):
    cache = small_disk.mount("512k")  # smaller than the index: it fills up partway
    stopped = cli("index", foreign.path, cache=cache)
    assert stopped.returncode == 2, stopped.stderr
    assert_clear_disk_message(stopped.stderr, cache)
    directory = cache / "index" / foreign_index.dir.name
    if directory.exists():
        assert_nothing_half_written(directory)

    small_disk.resize(cache, "64m")  # the room comes back
    resumed = cli("index", foreign.path, cache=cache)
    assert resumed.returncode == 0, resumed.stderr
    from staragent.index.manifest import Manifest

    manifest = Manifest.load(directory)
    assert {k: v.fingerprint for k, v in manifest.stages.items()} == {k: v.fingerprint for k, v in foreign_index.manifest.stages.items()}
    for name in ("segments.jsonl", "keyframes.jsonl", "ocr.jsonl", "speech.jsonl"):
        assert (directory / name).read_text() == (foreign_index.dir / name).read_text(), name


def test_a_chat_turn_on_a_full_disk_stops_clearly_and_the_thread_keeps_its_turns(small_disk, foreign, foreign_index):
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings
    from staragent.errors import DiskFull

    cache = small_disk.mount("16m")
    shutil.copytree(foreign_index.dir, cache / "index" / foreign_index.dir.name)
    settings = load_settings(cache_dir=cache, progress=False)
    first, lost, later = "What is the price of the coffee grinder?", "Who is the keynote speaker?", "What was said right after that?"
    with VideoAgent(settings) as agent:  # as a server holds it: one store, open across the fault
        agent.ask(foreign.path, first, thread_id="kept")
        filler = fill(cache)
        with pytest.raises(DiskFull) as full:
            agent.ask(foreign.path, lost, thread_id="kept")
        assert_clear_disk_message(str(full.value), cache)
        # a new process finds the disk full too: the same message, no traceback
        fresh = cli("ask", foreign.path, lost, "--thread", "kept", cache=cache)
        assert fresh.returncode == 2
        assert_clear_disk_message(fresh.stderr, cache)
        assert [q for q, _ in agent.turns(foreign.path, "kept")] == [first]

        filler.unlink()  # room again: the same agent goes on
        agent.ask(foreign.path, later, thread_id="kept")
        assert [q for q, _ in agent.turns(foreign.path, "kept")] == [first, later]
    with VideoAgent(settings) as restarted:
        assert [q for q, _ in restarted.turns(foreign.path, "kept")] == [first, later]
