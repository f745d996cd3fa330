"""One decoding pass over a video, shared by the lanes that read its frames.

The video lane (scene cuts, keyframes) and the on-screen text lane each sample the frames at a rate
and size of their own. Decoding every frame is most of what a pass costs, so when both lanes run in
one build they subscribe to one ``FramePass``: a thread decodes the video once and hands each lane
exactly the frames a pass of its own would have given it (``media.scan_samplings``). A lane runs at
most ``depth`` frames behind the decoder, so a fast lane waits for a slow one instead of the
decoded frames piling up in memory.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path

from .. import media


class FramePass:
    """Frames of ``video`` for the named lanes, each sampled at its ``(fps, width)``; the pass starts
    (at ``start`` seconds) when a lane first asks for its frames. Every lane must either read its
    frames to the end or stop reading (close its iterator), or the others wait; ``close`` stops the
    pass for all of them."""

    def __init__(self, video: Path, lanes: dict[str, tuple[float, int]], *, skip_nonref: bool = True, threads: int = 0,
                 start: float = 0.0, depth: int = 4):
        self.video = video
        self.lanes = dict(lanes)
        self.skip_nonref = skip_nonref
        self.threads = threads
        self.start = start
        self._slots = {name: queue.Queue(maxsize=depth) for name in self.lanes}
        self._left: set[str] = set()  # lanes that stopped reading: nothing more is handed to them
        self._taken: set[str] = set()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def frames(self, lane: str) -> Iterator[media.SampledFrame]:
        """The sampled frames of ``lane``, in time order (each lane's frames can be taken once)."""
        with self._lock:
            if lane not in self.lanes or lane in self._taken:
                raise ValueError(f"lane {lane!r} is not in this pass, or its frames were taken already")
            self._taken.add(lane)
            if self._worker is None:
                self._worker = threading.Thread(target=self._decode, name="frame-pass", daemon=True)
                self._worker.start()
        return self._read(lane)

    def _read(self, lane: str) -> Iterator[media.SampledFrame]:
        slots = self._slots[lane]
        try:
            while True:
                item = slots.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            with self._lock:
                self._left.add(lane)
                if self._left >= set(self.lanes):  # nobody reads any more
                    self._stop.set()
            while not slots.empty():  # the decoder may be waiting for room here
                slots.get_nowait()

    def _hand(self, lane: str, item) -> None:
        """Put ``item`` in ``lane``'s slots, waiting for room while the lane still reads."""
        slots = self._slots[lane]
        while not self._stop.is_set() and lane not in self._left:
            try:
                slots.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def _decode(self) -> None:
        names = list(self.lanes)
        try:
            scan = media.scan_samplings(self.video, [self.lanes[n] for n in names], self.skip_nonref, self.threads, self.start)
            for which, frame in scan:
                if self._stop.is_set():
                    scan.close()
                    return
                self._hand(names[which], frame)
            end = None
        except BaseException as exc:  # noqa: BLE001 - handed to every lane, which raises it
            end = exc
        for name in names:
            self._hand(name, end)

    def close(self) -> None:
        self._stop.set()
        if self._worker is not None and self._worker is not threading.current_thread():
            self._worker.join(timeout=5)
