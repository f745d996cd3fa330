"""Meta-evaluation: how well a metric agrees with people, whether a judge tells right from wrong, and
honest error bars.

- :func:`correlations` — Pearson, Spearman and Kendall tau-b against human scores, each with its
  permutation-test p-value (two-sided; VDEval uses Kendall tau-b and 10,000 permutations).
- :func:`compare_correlations` — paired permutation test that metric A agrees with people better than
  metric B (per item, the two metrics' standardised scores are swapped at random).
- :func:`validate_judge` — Giraffe-Bench-style check: scores of paraphrased correct answers against
  scores of random answers taken from other items; reports both means, the gap and the AUC.
- :func:`clustered_se` — the standard error of a mean with items clustered by video (CR1 sandwich):
  ``sqrt(G/(G-1) * sum_g (sum_{i in g} (x_i - mean))^2) / n``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

METHODS = ("pearson", "spearman", "kendall")


def _stat(method: str, x: np.ndarray, y: np.ndarray) -> float:
    from scipy import stats

    if np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    if method == "pearson":
        return float(stats.pearsonr(x, y)[0])
    if method == "spearman":
        return float(stats.spearmanr(x, y)[0])
    if method == "kendall":
        return float(stats.kendalltau(x, y, variant="b")[0])
    raise ValueError(f"unknown correlation {method!r}; use one of {', '.join(METHODS)}")


def correlations(
    metric: Sequence[float], human: Sequence[float], *, permutations: int = 10000, seed: int = 0,
    methods: Sequence[str] = METHODS,
) -> dict[str, Any]:  # fmt: skip
    x = np.asarray(metric, dtype=float)
    y = np.asarray(human, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("metric and human scores must be two lists of the same length")
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {"n": int(len(x))}
    perms = [rng.permutation(len(y)) for _ in range(permutations)]
    for method in methods:
        observed = _stat(method, x, y)
        if math.isnan(observed):
            out[method] = {"r": None, "p_permutation": None}
            continue
        extreme = sum(1 for p in perms if abs(_stat(method, x, y[p])) >= abs(observed) - 1e-12)
        out[method] = {"r": observed, "p_permutation": (extreme + 1) / (permutations + 1)}
    return out


def _standardise(v: np.ndarray) -> np.ndarray:
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else v - v.mean()


def compare_correlations(
    human: Sequence[float], metric_a: Sequence[float], metric_b: Sequence[float], *, method: str = "kendall",
    permutations: int = 10000, seed: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """One-sided p-value that ``metric_a`` correlates with ``human`` more than ``metric_b`` does."""
    h = np.asarray(human, dtype=float)
    a = _standardise(np.asarray(metric_a, dtype=float))
    b = _standardise(np.asarray(metric_b, dtype=float))
    observed = _stat(method, a, h) - _stat(method, b, h)
    rng = np.random.default_rng(seed)
    at_least = 0
    for _ in range(permutations):
        swap = rng.random(len(h)) < 0.5
        pa, pb = np.where(swap, b, a), np.where(swap, a, b)
        at_least += (_stat(method, pa, h) - _stat(method, pb, h)) >= observed - 1e-12
    return {
        "method": method,
        "a": _stat(method, a, h),
        "b": _stat(method, b, h),
        "difference": observed,
        "p_permutation": (at_least + 1) / (permutations + 1),
    }


def clustered_se(values: Sequence[float], clusters: Sequence[Hashable]) -> dict[str, float]:
    """Mean, the naive standard error, and the standard error clustered by ``clusters``."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return {"n": 0, "mean": float("nan"), "se": float("nan"), "se_clustered": float("nan"), "clusters": 0}
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    sums: dict[Hashable, float] = defaultdict(float)
    for v, c in zip(x, clusters, strict=True):
        sums[c] += v - m
    g = len(sums)
    se_c = math.sqrt(g / (g - 1) * sum(s * s for s in sums.values())) / n if g > 1 else float("nan")
    return {"n": n, "mean": m, "se": se, "se_clustered": se_c, "clusters": g}


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """Probability that a positive outscores a negative (ties count half)."""
    if not positive or not negative:
        return float("nan")
    wins = sum((p > q) + 0.5 * (p == q) for p in positive for q in negative)
    return wins / (len(positive) * len(negative))


def derangement(n: int, seed: int = 0) -> list[int]:
    """``i -> (i + s) mod n`` for a random shift ``0 < s < n``: nobody keeps its own index."""
    if n < 2:
        raise ValueError("need at least two items to draw answers from other items")
    s = int(np.random.default_rng(seed).integers(1, n))
    return [(i + s) % n for i in range(n)]


def validate_judge(
    items: Sequence[dict[str, str]],
    score: Callable[[dict[str, str], str], float],
    paraphrases: Sequence[str],
    *,
    seed: int = 0,
) -> dict[str, Any]:
    """``items``: ``[{"question", "reference", ...}]``; ``score(item, candidate)`` returns a number;
    ``paraphrases[i]`` is a correct answer to item i worded differently. Negatives: the reference of
    another item (a random derangement)."""
    if len(paraphrases) != len(items):
        raise ValueError("give one paraphrase per item")
    other = derangement(len(items), seed)
    pos = [score(item, p) for item, p in zip(items, paraphrases, strict=True)]
    neg = [score(item, items[j]["reference"]) for item, j in zip(items, other, strict=True)]
    return {
        "n": len(items),
        "positive_mean": float(np.mean(pos)),
        "negative_mean": float(np.mean(neg)),
        "gap": float(np.mean(pos) - np.mean(neg)),
        "auc": auc(pos, neg),
        "positive": pos,
        "negative": neg,
    }


def paraphrase(judge: Any, question: str, answer: str) -> str | None:
    """A reworded correct answer from an LLM judge (``bench_paraphrase`` prompt)."""
    from ...prompts import render

    call = judge.ask(render("bench_paraphrase", question=question, answer=answer), lambda t: t.strip() or None)
    return call.value if call.ok else None
