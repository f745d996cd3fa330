"""Built-in declarations plus third-party ones from an entry-point group, by name: how the scorer and
the dataset-kind registries find what they hold."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger("staragent.bench")
T = TypeVar("T")


def load_target(target: str) -> Any:
    """``"package.module:NAME"`` -> that object."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def discover(builtin: tuple[str, ...], group: str, kind: type[T], name_of: Callable[[T], str], what: str) -> dict[str, T]:
    """The built-in ``kind`` objects, then the plug-ins of ``group`` in entry-point order, by name. A
    plug-in may be the object or a function of no arguments returning it. A broken plug-in, or one
    whose name is taken, is skipped with a warning: it must not take the harness down."""
    from importlib.metadata import entry_points

    found: dict[str, T] = {}
    for target in builtin:
        item = load_target(target)
        found[name_of(item)] = item
    for ep in entry_points(group=group):
        try:
            item = ep.load()
            if not isinstance(item, kind) and callable(item):
                item = item()
            if not isinstance(item, kind):
                raise TypeError(f"{ep.value} is not a {kind.__name__}")
        except Exception as exc:
            log.warning("skipping plug-in %s %r: %s", what, ep.name, exc)
            continue
        if name_of(item) in found:
            log.warning("skipping plug-in %s %r (%s): that name is already registered", what, name_of(item), ep.value)
            continue
        found[name_of(item)] = item
    return found
