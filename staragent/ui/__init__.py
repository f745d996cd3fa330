"""``staragent ui``: chat with a video in the browser (see ``app``)."""

from __future__ import annotations


def serve(*args, **kwargs) -> None:
    from .app import serve as run

    run(*args, **kwargs)
