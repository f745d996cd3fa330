"""What one stage makes, handed to another while the first is still running.

The picture models label keyframes during the decoding pass that picks them, where the cores have
room (the audio lane is done well before the pass), instead of after it, on the index's critical
path. The stage that makes the items ``put``s each one and ``close``s the feed when it ends, with
its error if it failed; the stage that reads them iterates until the feed is closed.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

_END = object()


class Feed:
    """A one-writer, one-reader stream of items between two stages of a build."""

    def __init__(self) -> None:
        self._items: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._closed = False

    def put(self, item: Any) -> None:
        if self._closed:
            raise RuntimeError("the feed was closed")
        self._items.put(item)

    def close(self, error: BaseException | None = None) -> None:
        """The writer is done; ``error``: why it stopped early, re-raised in the reader so that both
        stages report the same cause."""
        if not self._closed:
            self._closed, self._error = True, error
            self._items.put(_END)

    def batches(self, size: int) -> Iterator[list[Any]]:
        """The items in order, ``size`` at a time (the last batch may be shorter); raises the
        writer's error once the items before it are read."""
        batch: list[Any] = []
        while (item := self._items.get()) is not _END:
            batch.append(item)
            if len(batch) == size:
                yield batch
                batch = []
        if self._error is not None:
            raise self._error
        if batch:
            yield batch
