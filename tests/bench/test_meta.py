from __future__ import annotations

import math

import pytest
from scipy import stats

from staragent.bench import text as tx
from staragent.bench.scorers.meta import (
    auc,
    clustered_se,
    compare_correlations,
    correlations,
    derangement,
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
    ]
    paraphrases = ["It is a red car.", "Four people sit at the table.", "A blue umbrella is in her hand.", "On the sofa, the cat sleeps."]
    out = validate_judge(items, lambda item, cand: tx.token_f1(cand, item["reference"]), paraphrases, seed=3)
    assert out["positive_mean"] > out["negative_mean"] and out["auc"] == 1.0
    assert all(i != j for i, j in enumerate(derangement(5, seed=2)))
    # pairs (1,2) loss, (1,0) win, (2,2) tie, (2,0) win
    assert auc([1, 2], [2, 0]) == pytest.approx((0 + 1 + 0.5 + 1) / 4)
