from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from staragent.bench import text as tx
from staragent.bench.judges import LLMJudge, ScriptedChatModel, make_judge
from staragent.bench.scorers.bootstrap import cluster_bootstrap_mean
from staragent.bench.scorers.meta import (
    _permutation_chunks,
    auc,
    cluster_bootstrap_se,
    clustered_se,
    compare_correlations,
    correlations,
    derangement,
    paraphrase,
    validate_judge,
)


def test_correlations_match_scipy_and_permutation_p_values():
    human = [1, 2, 2, 3, 3, 3, 1, 2, 3, 1]
    metric = [0.1, 0.4, 0.5, 0.9, 0.8, 0.7, 0.2, 0.3, 1.0, 0.0]
    out = correlations(metric, human, permutations=1000, seed=0)
    assert out["pearson"]["r"] == pytest.approx(stats.pearsonr(metric, human)[0])
    assert out["spearman"]["r"] == pytest.approx(stats.spearmanr(metric, human)[0])
    assert out["kendall"]["r"] == pytest.approx(stats.kendalltau(metric, human, variant="b")[0])
    assert out["kendall"]["p_permutation"] < 0.01
    noise = correlations([5, 1, 4, 2, 3, 3, 1, 5, 2, 4], human, permutations=500)
    assert noise["kendall"]["p_permutation"] > 0.05


def test_compare_correlations_prefers_the_better_metric():
    human = [1, 1, 2, 2, 3, 3, 1, 2, 3, 3, 1, 2]
    good = [0.1, 0.2, 0.5, 0.6, 0.9, 0.8, 0.15, 0.55, 0.95, 0.85, 0.05, 0.45]
    bad = [0.9, 0.1, 0.5, 0.2, 0.3, 0.8, 0.6, 0.4, 0.1, 0.7, 0.2, 0.9]
    out = compare_correlations(human, good, bad, permutations=500)
    assert out["difference"] > 0 and out["p_permutation"] < 0.05
    # a constant metric has no correlation to compare: no p-value, rather than a spurious tiny one
    flat = compare_correlations(human, good, [0.5] * len(human), permutations=50)
    assert flat["difference"] is None and flat["p_permutation"] is None


def test_clustered_standard_error_hand_example():
    # mean 2.5; cluster sums of deviations -2 and +2; sqrt(2/1 * 8) / 4 = 1
    out = clustered_se([1, 2, 3, 4], ["a", "a", "b", "b"])
    assert out["mean"] == 2.5 and out["clusters"] == 2
    assert out["se_clustered"] == pytest.approx(1.0)
    assert out["se"] == pytest.approx(math.sqrt(5 / 3) / 2)
    independent = clustered_se([1, 2, 3, 4], ["a", "b", "c", "d"])
    # with one item per cluster, CR1 = sqrt(n/(n-1) * sum d^2)/n = sqrt(4/3 * 5)/4 = the naive SE
    assert independent["se_clustered"] == pytest.approx(independent["se"])


def test_judge_validation_separates_paraphrases_from_random_answers():
    items = [
        {"question": "What colour is the car?", "reference": "The car is red."},
        {"question": "How many people?", "reference": "There are four people at the table."},
        {"question": "What does she hold?", "reference": "She holds a blue umbrella."},
        {"question": "Where is the cat?", "reference": "The cat sleeps on the sofa."},
        {"question": "Who speaks?", "reference": "Nobody."},
    ]
    paraphrases = [
        "It is a red car.",
        "Four people sit at the table.",
        "A blue umbrella is in her hand.",
        "On the sofa, the cat sleeps.",
        None,
    ]
    out = validate_judge(items, lambda item, cand: tx.token_f1(cand, item["reference"]), paraphrases, seed=3)
    assert (out["n"], out["skipped"], out["items"]) == (4, 1, [0, 1, 2, 3])
    assert out["reference"]["scores"] == [1.0] * 4 and out["auc_reference"] == 1.0
    assert out["paraphrase"]["mean"] > out["random"]["mean"] and out["auc"] == 1.0
    # the random answer of item i is the reference of its partner, never its own
    partners = out["random_partner"]
    assert all(i != j for i, j in zip(out["items"], partners, strict=True)) and sorted(partners) == [0, 1, 2, 3]
    assert out["random"]["scores"] == [tx.token_f1(items[j]["reference"], items[i]["reference"]) for i, j in zip(out["items"], partners, strict=True)]
    # pairs (1,2) loss, (1,0) win, (2,2) tie, (2,0) win
    assert auc([1, 2], [2, 0]) == pytest.approx((0 + 1 + 0.5 + 1) / 4)


def test_derangement_is_a_seeded_random_permutation_without_fixed_points():
    n = 7
    rotations = {tuple((i + s) % n for i in range(n)) for s in range(1, n)}
    draws = [tuple(derangement(n, seed=seed)) for seed in range(30)]
    assert all(sorted(d) == list(range(n)) and all(i != j for i, j in enumerate(d)) for d in draws)
    assert derangement(n, seed=4) == derangement(n, seed=4)
    assert any(d not in rotations for d in draws) and len(set(draws)) > 10
    with pytest.raises(ValueError):
        derangement(1)


def test_paraphrase_rewrites_with_the_judge_and_refuses_echoes_and_failures():
    scripted = make_judge("scripted")
    assert paraphrase(scripted, "What colour?", "The car is red.") == "In other words: The car is red."
    echo = LLMJudge.from_model(ScriptedChatModel(reply_fn=lambda p: "  The car is  red. "), kind="scripted")
    assert paraphrase(echo, "What colour?", "The car is red.") is None
    silent = LLMJudge.from_model(ScriptedChatModel(reply_fn=lambda p: ""), kind="scripted", max_retries=0)
    assert paraphrase(silent, "What colour?", "The car is red.") is None


def test_permutation_p_values_equal_a_brute_force_loop():
    human = [1, 2, 2, 3, 3, 1, 2, 3, 1, 2, 3, 3]
    metric = [0.2, 0.3, 0.6, 0.7, 0.5, 0.1, 0.9, 0.8, 0.4, 0.3, 0.95, 0.6]
    out = correlations(metric, human, permutations=300, seed=5)
    x, y = np.array(metric), np.array(human, dtype=float)
    tests = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": lambda a, b: stats.kendalltau(a, b, variant="b")}
    for method, test in tests.items():
        observed = test(x, y)[0]
        hits = sum(abs(test(x, y[p])[0]) >= abs(observed) - 1e-12 for chunk in _permutation_chunks(len(y), 300, 5) for p in chunk)
        assert out[method]["p_permutation"] == pytest.approx((hits + 1) / 301)


def test_cluster_bootstrap_resamples_whole_videos():
    # two videos with means 0 and 1: a resampled mean is 0, 0.5 or 1
    ci = cluster_bootstrap_mean([0, 0, 1, 1], ["a", "a", "b", "b"], rounds=500, seed=1)
    assert ci["clusters"] == 2 and ci["lower"] == 0.0 and ci["upper"] == 1.0
    assert cluster_bootstrap_mean([0, 1, 1], ["a", "a", "a"]) is None
    se = cluster_bootstrap_se([1, 2, 3, 4, 5, 6], [1, 2, 2, 4, 6, 5], ["a", "a", "b", "b", "c", "c"], rounds=100)
    assert se["pearson"] is not None and se["pearson"] >= 0


def test_bootstrap_intervals_interpolate_between_draws():
    from staragent.bench.scorers.bootstrap import percentile_interval, resample

    assert percentile_interval([0, 1, 2, 3, 4], confidence=0.5) == (1.0, 3.0)
    assert percentile_interval([0, 10], confidence=0.9) == pytest.approx((0.5, 9.5))
    draws = resample(3, lambda idx: sorted(idx.tolist()), rounds=50, seed=4)
    assert len(draws) == 50 and all(len(d) == 3 and set(d) <= {0, 1, 2} for d in draws)
    assert resample(3, lambda idx: None, rounds=5, seed=0) == [] and resample(0, len, rounds=5, seed=0) == []
    assert draws == resample(3, lambda idx: sorted(idx.tolist()), rounds=50, seed=4)  # seeded
