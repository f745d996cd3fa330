"""Finding scorers: the built-in ones, and third-party ones registered under the ``staragent.scorers``
entry-point group (``name = "package.module:SCORER"``, a :class:`~staragent.bench.scorers.scorer.Scorer`
or a function of no arguments returning one)."""

from __future__ import annotations

from functools import cache

from ..harness_errors import UnknownMetricError
from ..plugins import discover
from .scorer import Scorer

ENTRY_POINT_GROUP = "staragent.scorers"

# In the order the console and the report show them.
BUILTIN_SCORERS = (
    "staragent.bench.scorers.rubric:SCORER",
    "staragent.bench.scorers.trajectory:SCORER",
    "staragent.bench.scorers.vdeval:VDEVAL",
    "staragent.bench.scorers.vdeval:LAVE",
    "staragent.bench.scorers.lexical:SCORER",
    "staragent.bench.scorers.consensus:SCORER",
    "staragent.bench.scorers.videoautobench:SCORER",
    "staragent.bench.scorers.giraffe:SCORER",
    "staragent.bench.scorers.factqa:SCORER",
)


@cache
def _registry() -> dict[str, Scorer]:
    return discover(BUILTIN_SCORERS, ENTRY_POINT_GROUP, Scorer, lambda s: s.name, "scorer")


def all_scorers() -> dict[str, Scorer]:
    """Every registered scorer by name, the built-in ones first."""
    return dict(_registry())


def scorer_names() -> list[str]:
    return list(_registry())


def get_scorer(name: str) -> Scorer:
    try:
        return _registry()[name]
    except KeyError:
        raise UnknownMetricError(f"unknown metric {name}; choose from {', '.join(_registry())}") from None


def find_scorer(name: str) -> Scorer | None:
    """The scorer of that name, or ``None`` (rows of a scorer no longer installed)."""
    return _registry().get(name)


def rediscover() -> None:
    """Forget what was found, so newly installed plug-ins are seen (tests, long-lived processes)."""
    _registry.cache_clear()
