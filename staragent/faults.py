"""Named points for fault-injection tests: off (one environment lookup) unless asked for.

- ``STARAGENT_FAULT_MARKERS=PATH``: each point reached appends the line ``<pid> <name>`` to PATH
  (flushed before going on), so a test can follow a process and act at a known point.
- ``STARAGENT_FAULT_KILL=NAME[@N][:SIGNAL]``: the process sends itself SIGKILL (or SIGNAL, e.g.
  ``TERM``) the first (or N-th) time it reaches the point NAME, right after writing its line: a
  ``kill -9`` landing exactly there, with no timing involved.

The points (see where ``marker`` is called): ``index.item.<stage>`` (one unit of a resumable stage
saved), ``index.stage.<stage>`` (a stage recorded in the manifest), ``bench.turn`` (a turn appended
to trajectories.jsonl), ``turn.start`` (a question reaches the agent), ``tool.<tool>`` (a tool is
about to run), ``turn.saved`` (a chat turn is in the store), ``turn.done`` (the thread's older
checkpoints are pruned), ``sandbox.started`` (the sandbox's launcher is running).
"""

from __future__ import annotations

import os
import signal

MARKERS = "STARAGENT_FAULT_MARKERS"
KILL = "STARAGENT_FAULT_KILL"
_reached: dict[str, int] = {}


def marker(name: str) -> None:
    path = os.environ.get(MARKERS)
    kill = os.environ.get(KILL)
    if not path and not kill:
        return
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {name}\n")
    if kill:
        point, _, sent = kill.partition(":")
        target, _, nth = point.partition("@")
        if target == name:
            _reached[name] = _reached.get(name, 0) + 1
            if _reached[name] == int(nth or 1):
                os.kill(os.getpid(), getattr(signal, f"SIG{sent or 'KILL'}"))
