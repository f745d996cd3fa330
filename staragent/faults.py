"""Named points for fault-injection tests: off (one environment lookup) unless asked for.

- ``STARAGENT_FAULT_MARKERS=PATH``: each point reached appends the line ``<pid> <name>`` to PATH
  (flushed before going on), so a test can follow a process and act at a known point.
- ``STARAGENT_FAULT_KILL=NAME[@N][:SIGNAL]``: the process sends itself SIGKILL (or SIGNAL, e.g.
  ``TERM``) the first (or N-th) time it reaches the point NAME, right after writing its line: a
  ``kill -9`` landing exactly there, with no timing involved.
- ``STARAGENT_FAULT_PAUSE=NAME[@N]:SECONDS``: the thread that reaches NAME (the N-th time, else
  every time) sleeps SECONDS there, so that a test can act while, say, a turn is in flight.

The points (see where ``marker`` is called): ``index.item.<stage>`` (one unit of a resumable stage
saved), ``index.stage.<stage>`` (a stage recorded in the manifest), ``bench.turn`` (a turn appended
to trajectories.jsonl), ``turn.start`` (a question reaches the agent), ``tool.<tool>`` (a tool is
about to run), ``turn.saved`` (a chat turn is in the store), ``turn.done`` (the thread's older
checkpoints are pruned), ``sandbox.started`` (the sandbox's launcher is running).
"""

from __future__ import annotations

import os
import signal
import threading
import time

MARKERS = "STARAGENT_FAULT_MARKERS"
KILL = "STARAGENT_FAULT_KILL"
PAUSE = "STARAGENT_FAULT_PAUSE"
_reached: dict[str, int] = {}
_counting = threading.Lock()


def marker(name: str) -> None:
    path = os.environ.get(MARKERS)
    kill = os.environ.get(KILL)
    pause = os.environ.get(PAUSE)
    if not path and not kill and not pause:
        return
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {name}\n")
    count = _count(name) if (kill or pause) else 0
    if kill:
        point, _, sent = kill.partition(":")
        target, _, nth = point.partition("@")
        if target == name and count == int(nth or 1):
            os.kill(os.getpid(), getattr(signal, f"SIG{sent or 'KILL'}"))
    if pause:
        point, _, seconds = pause.partition(":")
        target, _, nth = point.partition("@")
        if target == name and (not nth or count == int(nth)):
            time.sleep(float(seconds or 1))


def _count(name: str) -> int:
    with _counting:  # a server reaches the same point from several threads
        _reached[name] = _reached.get(name, 0) + 1
        return _reached[name]
