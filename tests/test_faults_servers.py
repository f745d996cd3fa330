"""Faults of the servers: SIGTERM to `staragent ui` and `staragent mcp --http` while a turn is in
flight. The turn is held at a named point (STARAGENT_FAULT_PAUSE, see staragent.faults), so the
signal lands in the middle of it without timing. The server must be gone within 5 s, and the thread,
read as a restarted server reads it, must hold its earlier turns whole and take the next question."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "perf"))

pytestmark = pytest.mark.slow
EXIT_WITHIN_S = 5.0


def cache_with_index(index, into: Path) -> Path:
    """A cache of the test's own holding a copy of a built index (the chats it gets are its own)."""
    shutil.copytree(index.dir, into / "index" / index.dir.name)
    return into


def wait_for_marker(markers: Path, name: str, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = markers.read_text().splitlines() if markers.exists() else []
        if sum(1 for line in lines if line.split(" ", 1)[1] == name) >= count:
            return
        time.sleep(0.05)
    raise TimeoutError(f"the server never reached {name} ({count}×)")


@pytest.mark.parametrize("kind", ["mcp", "page"])
def test_sigterm_with_a_turn_in_flight_exits_quickly_and_the_thread_stays_whole(kind, foreign, foreign_index, tmp_path):
    from load import running_server
    from load_clients import open_client, stored_questions

    cache, markers = cache_with_index(foreign_index, tmp_path / "cache"), tmp_path / "markers"
    first, held, after = "What is the price of the coffee grinder?", "Who is the keynote speaker?", "What was said right after that?"
    # the second turn's first tool call waits there long after the signal: only a server that stops
    # without waiting for it exits in time
    env = {"STARAGENT_FAULT_MARKERS": str(markers), "STARAGENT_FAULT_PAUSE": "tool.cross_modal_search@2:60"}
    packs = Path(os.environ["STARAGENT_MODELS__PACK_CACHE"])
    with running_server(kind, foreign.path.parent, cache, packs, tmp_path / "server", extra_env=env) as (target, process):
        client = open_client(target, foreign.path, "kept")
        client.ask(first)
        thread = client.thread
        outcome: list = []
        in_flight = threading.Thread(target=lambda: outcome.append(_try(client.ask, held)), daemon=True)
        in_flight.start()
        wait_for_marker(markers, "tool.cross_modal_search", 2)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        took = time.monotonic() - signalled
        assert process.poll() is not None and took < EXIT_WITHIN_S, f"{kind} server still running {took:.1f} s after SIGTERM"
        in_flight.join(30)
        assert outcome and outcome[0] is not None, "the question in flight came back as if answered"
    # a restarted server sees the thread: the turn before the signal whole, the one cut short not at all
    assert stored_questions(cache, foreign.path, thread) == [first]
    with running_server(kind, foreign.path.parent, cache, packs, tmp_path / "again") as (target, _):
        client = open_client(target, foreign.path, "kept")
        if kind == "page":  # the page resumes the thread the person picks
            client.resume(thread)
        client.ask(after)
        client.close()
    assert stored_questions(cache, foreign.path, thread) == [first, after]


def _try(ask, question: str) -> Exception | None:
    try:
        ask(question)
    except Exception as exc:
        return exc
    return None

