"""Bootstrap resampling, the one way the harness computes intervals and resampled standard errors.

The units resampled (with replacement) are what makes the draws independent: whole videos for scores
over turns (a cluster bootstrap), battles for Bradley-Terry ratings. Percentile intervals are read
with ``numpy.percentile`` (linear interpolation between order statistics).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def resample(units: int, statistic: Callable[[np.ndarray], T | None], *, rounds: int, seed: int) -> list[T]:
    """``statistic(indices)`` for ``rounds`` draws of ``units`` indices out of ``range(units)`` with
    replacement (seeded); draws where the statistic is ``None`` are left out."""
    rng = np.random.default_rng(seed)
    values = (statistic(rng.integers(0, units, units)) for _ in range(rounds if units else 0))
    return [v for v in values if v is not None]


def percentile_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """The central ``confidence`` interval of bootstrap draws."""
    lower, upper = np.percentile(np.asarray(values, dtype=float), [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100])
    return float(lower), float(upper)


def cluster_bootstrap_mean(
    values: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    rounds: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, float] | None:
    """Percentile interval of a mean, resampling whole clusters (videos) with replacement; ``None``
    with fewer than two clusters."""
    sums: dict[Hashable, float] = defaultdict(float)
    counts: dict[Hashable, int] = defaultdict(int)
    for v, c in zip(values, clusters, strict=True):
        sums[c] += float(v)
        counts[c] += 1
    if len(sums) < 2:
        return None
    keys = list(sums)
    s = np.array([sums[k] for k in keys])
    n = np.array([counts[k] for k in keys], dtype=float)
    means = resample(len(keys), lambda draw: float(s[draw].sum() / n[draw].sum()), rounds=rounds, seed=seed)
    lower, upper = percentile_interval(means, confidence)
    return {"lower": lower, "upper": upper, "rounds": rounds, "clusters": len(keys)}
