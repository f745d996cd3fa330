"""Scorers. Each one is a :class:`~staragent.bench.scorers.scorer.Scorer` declaration in its own module,
found through :mod:`~staragent.bench.scorers.registry` (built-in, or third-party through the
``staragent.scorers`` entry-point group). See :mod:`staragent.bench.scoring` for the ``score`` step."""

from __future__ import annotations

from .common import Unit, units_of

__all__ = ["Unit", "units_of"]
