"""Progress bars and cancellation for index builds.

Bars draw on a terminal (tqdm, to stderr) and stay silent elsewhere. Every bar update also checks
the build's cancel flag, so that a failure in one lane stops the other lane at its next step.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from ..errors import BuildCancelled


class StageProgress(str):
    """A line of a build's report that also says, for a reader other than a person, how far the
    build is: ``done`` of ``total`` stages to run, and ``stage`` (with its ``seconds``) the one that
    just finished (None in the line that opens the build)."""

    stage: str | None
    seconds: float
    done: int
    total: int

    def __new__(cls, text: str, *, stage: str | None, done: int, total: int, seconds: float = 0.0) -> StageProgress:
        line = super().__new__(cls, text)
        line.stage, line.done, line.total, line.seconds = stage, done, total, seconds
        return line


class _QuietBar:
    def __init__(self, total: int | None = None, initial: int = 0, **_: Any):
        self.total = total
        self.n = initial

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        pass


class ProgressFactory:
    def __init__(self, enabled: bool = True, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.cancel = threading.Event()
        self._position = 0
        self._lock = threading.Lock()

    def __call__(self, total: int | None = None, desc: str = "", unit: str = "it", initial: int = 0):
        return _Bar(self, total=total, desc=desc, unit=unit, initial=initial)

    def _make(self, **kwargs):
        if not self.enabled:
            return _QuietBar(**kwargs)
        from tqdm import tqdm

        with self._lock:
            position = self._position
            self._position += 1
        return tqdm(file=self.stream, position=position, leave=False, dynamic_ncols=True, **kwargs)


class _Bar:
    def __init__(self, factory: ProgressFactory, **kwargs):
        self._factory = factory
        self._bar = factory._make(**kwargs)

    @property
    def n(self) -> int:
        return self._bar.n

    def update(self, n: int = 1) -> None:
        if self._factory.cancel.is_set():
            raise BuildCancelled("the build was cancelled")
        if n:
            self._bar.update(n)

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc) -> None:
        self._bar.close()
