"""Meta-evaluation: how well a metric agrees with people, whether a judge tells right from wrong, and
honest error bars.

- :func:`correlations` — Pearson, Spearman and Kendall tau-b against human scores, each with its
  permutation-test p-value (two-sided; VDEval uses Kendall tau-b and 10,000 permutations).
- :func:`compare_correlations` — paired permutation test that metric A agrees with people better than
  metric B (per item, the two metrics' standardised scores are swapped at random).
- :func:`validate_judge` — Giraffe-Bench-style check: each item is scored three times, with its own
  reference, with a paraphrase of it (still correct) and with the reference of another item drawn by
  a seeded random derangement (wrong); reports the means, the gaps and the AUCs.
- :func:`clustered_se` — the standard error of a mean with items clustered by video (CR1 sandwich):
  ``sqrt(G/(G-1) * sum_g (sum_{i in g} (x_i - mean))^2) / n``; :func:`cluster_bootstrap_mean` and
  :func:`cluster_bootstrap_se` — percentile intervals of a mean and standard errors of a correlation,
  resampling whole videos (through :mod:`staragent.bench.scorers.bootstrap`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .bootstrap import resample

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


def _permuted_pearson(x: np.ndarray, y: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """Pearson r of ``x`` with ``y`` under each row of ``perms``, all at once."""
    xs = (x - x.mean()) / x.std()
    ys = (y - y.mean()) / y.std()
    return ys[perms] @ xs / len(x)


def correlations(
    metric: Sequence[float],
    human: Sequence[float],
    *,
    permutations: int = 10000,
    seed: int = 0,
    methods: Sequence[str] = METHODS,
) -> dict[str, Any]:
    """Each correlation with its two-sided permutation p-value (the human scores shuffled; the same
    shuffles for every method)."""
    from scipy import stats

    x = np.asarray(metric, dtype=float)
    y = np.asarray(human, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("metric and human scores must be two lists of the same length")
    out: dict[str, Any] = {"n": int(len(x))}
    for method in methods:
        observed = _stat(method, x, y)
        if math.isnan(observed):
            out[method] = {"r": None, "p_permutation": None}
            continue
        extreme = 0
        for perms in _permutation_chunks(len(y), permutations, seed):
            if method == "kendall":
                null = np.array([_stat(method, x, y[p]) for p in perms])
            else:  # Spearman is Pearson on (average) ranks, and shuffling y shuffles its ranks
                xr, yr = (x, y) if method == "pearson" else (stats.rankdata(x), stats.rankdata(y))
                null = _permuted_pearson(xr, yr, perms)
            extreme += int(np.sum(np.abs(null) >= abs(observed) - 1e-12))
        out[method] = {"r": observed, "p_permutation": (extreme + 1) / (permutations + 1)}
    return out


def _permutation_chunks(n: int, permutations: int, seed: int, chunk: int = 256):
    """The same ``permutations`` shuffles of ``range(n)`` for a given seed, a few hundred at a time."""
    rng = np.random.default_rng(seed)
    for start in range(0, permutations, chunk):
        yield np.array([rng.permutation(n) for _ in range(min(chunk, permutations - start))], dtype=np.int64)


def cluster_bootstrap_se(
    metric: Sequence[float],
    human: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    rounds: int = 200,
    seed: int = 0,
    methods: Sequence[str] = METHODS,
) -> dict[str, float | None]:
    """Standard error of each correlation, resampling whole clusters (videos) with replacement."""
    x = np.asarray(metric, dtype=float)
    y = np.asarray(human, dtype=float)
    members: dict[Hashable, list[int]] = defaultdict(list)
    for i, c in enumerate(clusters):
        members[c].append(i)
    groups = list(members.values())
    if len(groups) < 2:
        return {m: None for m in methods}

    def statistic(draw: np.ndarray) -> dict[str, float]:
        idx = np.concatenate([groups[g] for g in draw])
        return {method: _stat(method, x[idx], y[idx]) for method in methods}

    draws = resample(len(groups), statistic, rounds=rounds, seed=seed)
    kept = {m: [d[m] for d in draws if not math.isnan(d[m])] for m in methods}
    return {m: (float(np.std(v, ddof=1)) if len(v) > 1 else None) for m, v in kept.items()}


def _standardise(v: np.ndarray) -> np.ndarray:
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else v - v.mean()


def compare_correlations(
    human: Sequence[float],
    metric_a: Sequence[float],
    metric_b: Sequence[float],
    *,
    method: str = "kendall",
    permutations: int = 10000,
    seed: int = 0,
) -> dict[str, Any]:
    """One-sided p-value that ``metric_a`` correlates with ``human`` more than ``metric_b`` does (per item,
    the two metrics' standardised scores are swapped at random). ``None`` statistics when a metric or
    the human scores are constant: no correlation to compare."""
    h = np.asarray(human, dtype=float)
    a = _standardise(np.asarray(metric_a, dtype=float))
    b = _standardise(np.asarray(metric_b, dtype=float))
    observed = _stat(method, a, h) - _stat(method, b, h)
    if math.isnan(observed):
        return {"method": method, "r_a": None, "r_b": None, "difference": None, "p_permutation": None}
    rng = np.random.default_rng(seed)
    at_least = 0
    for _ in range(permutations):
        swap = rng.random(len(h)) < 0.5
        pa, pb = np.where(swap, b, a), np.where(swap, a, b)
        at_least += (_stat(method, pa, h) - _stat(method, pb, h)) >= observed - 1e-12
    return {
        "method": method,
        "r_a": _stat(method, a, h),
        "r_b": _stat(method, b, h),
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
    """A uniformly random permutation of ``range(n)`` in which nobody keeps its own index (seeded;
    drawn by rejection, about e tries)."""
    if n < 2:
        raise ValueError("need at least two items to draw answers from other items")
    rng = np.random.default_rng(seed)
    while True:
        perm = rng.permutation(n)
        if not np.any(perm == np.arange(n)):
            return [int(i) for i in perm]


def _kind(scores: list[float]) -> dict[str, Any]:
    return {"mean": float(np.mean(scores)) if scores else None, "scores": scores}


def validate_judge(
    items: Sequence[dict[str, str]],
    score: Callable[[dict[str, str], str], float],
    paraphrases: Sequence[str | None],
    *,
    seed: int = 0,
    workers: int = 1,
) -> dict[str, Any]:
    """``items``: ``[{"question", "reference", ...}]``; ``score(item, candidate)`` returns a number;
    ``paraphrases[i]`` is a correct answer to item i in other words, or ``None`` when none could be
    made (the item is then left out and counted in ``skipped``). Each kept item is scored with its
    reference, its paraphrase, and the reference of another kept item (a random derangement). A good
    judge scores the paraphrase close to the reference and far above the random answer."""
    if len(paraphrases) != len(items):
        raise ValueError("give one paraphrase (or None) per item")
    kept = [i for i, p in enumerate(paraphrases) if p]
    if len(kept) < 2:
        raise ValueError("judge validation needs at least two items with a paraphrase")
    from .common import pmap

    other = derangement(len(kept), seed)
    jobs = [(items[i], items[i]["reference"]) for i in kept]
    jobs += [(items[i], str(paraphrases[i])) for i in kept]
    jobs += [(items[i], items[kept[j]]["reference"]) for i, j in zip(kept, other, strict=True)]
    scores = pmap(lambda job: score(*job), jobs, workers)
    n = len(kept)
    ref, para, rand = scores[:n], scores[n : 2 * n], scores[2 * n :]
    return {
        "n": len(kept),
        "skipped": len(items) - len(kept),
        "items": kept,
        "random_partner": [kept[j] for j in other],
        "reference": _kind(ref),
        "paraphrase": _kind(para),
        "random": _kind(rand),
        "gap": float(np.mean(para) - np.mean(rand)),
        "gap_reference": float(np.mean(ref) - np.mean(rand)),
        "auc": auc(para, rand),
        "auc_reference": auc(ref, rand),
    }


def paraphrase(judge: Any, question: str, answer: str) -> str | None:
    """A reworded correct answer from an LLM judge (``bench_paraphrase`` prompt); ``None`` when the
    call fails or the reply merely repeats the answer."""
    from ...prompts import render

    call = judge.ask(render("bench_paraphrase", question=question, answer=answer), lambda t: t.strip() or None)
    if not call.ok or " ".join(call.value.split()) == " ".join(answer.split()):
        return None
    return call.value
