"""Pacing a stream of events into page updates.

Every update Gradio sends makes the browser render the whole chat again; an agent's tool calls often
come a few milliseconds apart, and rendering each one separately kept the answer waiting behind a
queue of renders (and took the CPU the agent needed). ``batched`` groups what arrives close together
into one update while keeping the page live: the first event after a quiet spell goes out at once
(a tool call shows as soon as it starts, however long it then runs), later ones at most every
``interval`` seconds, and the end of the stream (the answer) at once.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")
_END = object()


class _Failed:
    def __init__(self, error: BaseException):
        self.error = error


def batched(events: Iterator[T], interval: float) -> Iterator[list[T]]:
    """The items of ``events`` in lists, at most one list per ``interval`` seconds except the last.

    ``events`` runs in a thread of its own, so that it keeps going while a list waits for its time;
    an exception it raises is raised here, and closing this iterator (a page that went away) stops
    it at its next item."""
    inbox: queue.Queue = queue.Queue()
    stop = threading.Event()

    def pump() -> None:
        try:
            for item in events:
                inbox.put(item)
                if stop.is_set():
                    break
        except BaseException as exc:  # noqa: BLE001 - handed to the reading side, raised there
            inbox.put(_Failed(exc))
        finally:
            try:
                close = getattr(events, "close", None)
                if close is not None:
                    close()
            finally:  # the reader never waits for an end that does not come
                inbox.put(_END)

    context = contextvars.copy_context()  # what the caller's context holds, the stream sees too
    threading.Thread(target=context.run, args=(pump,), name="paced-events", daemon=True).start()
    sent = float("-inf")
    try:
        while True:
            item = inbox.get()
            batch: list[T] = []
            while True:
                if item is _END:
                    if batch:
                        yield batch
                    return
                if isinstance(item, _Failed):
                    if batch:
                        yield batch
                    raise item.error
                batch.append(item)
                wait = sent + interval - time.monotonic()
                if wait <= 0:  # the first after a quiet spell, or its time has come
                    break
                try:
                    item = inbox.get(timeout=wait)
                except queue.Empty:
                    break
            sent = time.monotonic()
            yield batch
    finally:
        stop.set()
