from __future__ import annotations

import json
import math

import pytest

from staragent.bench.judges import LLMJudge, ScriptedChatModel
from staragent.bench.scorers import bradley_terry as bt
from staragent.bench.scorers.giraffe import score_prediction
from staragent.bench.scorers.pairwise import combine, judge_pair
from staragent.bench.scorers.videoautobench import (
    outcome_for_b,
    read_judgments,
    rejected_points,
    score_judgments,
    selected_points,
)


def test_both_orders_combine():
    # x shown as A first, as B second
    assert combine("A", "B") == {"outcome": "x", "score_x": 1.0}
    assert combine("A", "A") == {"outcome": "tie", "score_x": 0.5}  # position bias cancels out
    assert combine("B", "A") == {"outcome": "y", "score_x": 0.0}
    assert combine("tie_good", "tie_good")["outcome"] == "tie_good"
    assert combine("tie_bad", "tie_good")["outcome"] == "tie"
    assert combine("A", "tie") == {"outcome": "x", "score_x": 0.75}
    assert combine(None, "B") == {"outcome": "x", "score_x": 1.0}
    assert combine(None, None) == {"outcome": None, "score_x": None}


def test_judge_pair_swaps_positions():
    seen = []

    def reply(prompt):
        seen.append(prompt)
        return "```[Overall Judge]\nA\n```"  # always prefers whatever is shown first

    judge = LLMJudge.from_model(ScriptedChatModel(reply_fn=reply), kind="scripted")
    out = judge_pair(judge, "q?", "answer X", "answer Y")
    assert out["outcome"] == "tie" and out["score_x"] == 0.5
    assert "```model_a\nanswer X\n```" in seen[0] and "```model_a\nanswer Y\n```" in seen[1]


def test_bradley_terry_closed_form_two_models():
    battles = [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)]
    r = bt.fit(battles, l2=0.0)
    # P(a beats b) = 3/4  ->  R_a - R_b = 400 * log10(3), centred on 1000
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3), abs=1e-3)
    assert (r["a"] + r["b"]) / 2 == pytest.approx(1000.0)


def test_ties_count_as_half_wins():
    # a: one win and two ties against b -> 2 points of 3 -> odds 2 -> 400 * log10(2)
    r = bt.fit([("a", "b", 1.0), ("a", "b", 0.5), ("b", "a", 0.5)], l2=0.0)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(2), abs=1e-3)
    assert bt.fit([("a", "b", 0.5)] * 4, l2=0.0)["a"] == pytest.approx(1000.0)


def test_bootstrap_intervals_and_win_rates():
    battles = [("a", "b", 1.0)] * 6 + [("a", "b", 0.0)] * 2 + [("b", "c", 1.0)] * 5 + [("c", "b", 1.0)] * 3
    ratings = bt.bootstrap(battles, rounds=100, seed=1)
    for v in ratings.values():
        assert v["lower"] <= v["rating"] <= v["upper"]
    assert ratings["a"]["rating"] > ratings["b"]["rating"] > ratings["c"]["rating"]
    wr = bt.win_rate_matrix(battles)
    assert wr["a"]["b"] == pytest.approx(6 / 8) and wr["b"]["a"] == pytest.approx(2 / 8)
    assert wr["b"]["c"] == pytest.approx(5 / 8) and wr["a"]["c"] is None
    expected = bt.expected_win_rate({"x": 1100.0, "y": 1000.0})
    assert expected["x"]["y"] == pytest.approx(1 / (1 + 10 ** (-100 / 400)))


def test_videoautobench_rules():
    assert [selected_points(outcome_for_b(v)) for v in ("B", "tie_good", "tie", "A", None)] == [1, 0.5, 0.5, 0, 0]
    assert [rejected_points(outcome_for_b(v)) for v in ("B", "tie_bad", "A")] == [1, 0, 0]
    sel = [{"qid": "1", "judge_response": "[[B>A]]"}, {"qid": "2", "judge_response": "[[A=B]]"},
           {"qid": "3", "judge_response": "[[A>B]]"}, {"qid": "4", "judge_response": "[[A>B]]"}]
    rej = [{"qid": "1", "judge_response": "[[B>A]]"}, {"qid": "2", "judge_response": "[[A=B]]"},
           {"qid": "3", "judge_response": "[[B>A]]"}, {"qid": "4", "judge_response": "garbled"}]  # fmt: skip
    out = score_judgments(sel, rej)
    # selected: (1 + 0.5 + 0 + 0) / 4 = 37.5 ; rejected: (1 + 0 + 1 + 0) / 4 = 50 ; final 43.75
    assert (out["n"], out["selected"], out["rejected"], out["score"]) == (4, 37.5, 50.0, 43.75)
    assert out["unparsed"] == 1


def test_released_videoautobench_judgments_score_through_the_cli(shared_data):
    from click.testing import CliRunner

    from staragent.bench.commands import bench

    d = shared_data / "videoautobench"
    result = CliRunner().invoke(bench, ["videoautobench", "--selected", str(d / "judgments.aria.selected.jsonl"),
                                        "--rejected", str(d / "judgments.aria.rejected.jsonl"), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"n", "selected", "rejected", "score"}
    sel = read_judgments(d / "judgments.aria.selected.jsonl")
    rej = read_judgments(d / "judgments.aria.rejected.jsonl")
    full = score_judgments(sel, rej)
    assert full["unparsed"] == 0 and data["n"] == len(sel) == len(rej)
    o = full["outcomes"]
    assert data["selected"] == pytest.approx(100 * (o["selected"]["win"] + 0.5 * o["selected"]["tie"]) / data["n"])
    assert data["rejected"] == pytest.approx(100 * o["rejected"]["win"] / data["n"])
    assert data["score"] == pytest.approx((data["selected"] + data["rejected"]) / 2)


def test_giraffe_scaling():
    def reply(prompt):
        if "True outcome" in prompt:
            return "1. LogicalConsistency: score: [4]. reason: []\n2. Specificity: score: [2]. reason: []\n3. Accuracy: score: [1]. reason: []"
        return "1. Plausibility: score: [5]. reason: []\n2. Specificity: score: [3]. reason: []\n3. Diversity: score: [0]. reason: []"

    judge = LLMJudge.from_model(ScriptedChatModel(reply_fn=reply), kind="scripted")
    mgae = score_prediction(judge, "mgae", context="balls", prediction="1. they collide", ground_truth="they collide")
    assert mgae["scores"] == {"logical_consistency": 80.0, "specificity": 40.0, "accuracy": 100.0}
    ppe = score_prediction(judge, "ppe", context="snow", prediction="1. shovels")
    assert ppe["scores"] == {"plausibility": 100.0, "specificity": 60.0, "diversity": 0.0}
    assert ppe["avg"] == pytest.approx(160 / 3)
    broken = LLMJudge.from_model(ScriptedChatModel(reply_fn=lambda p: "?"), kind="scripted", max_retries=0)
    assert score_prediction(broken, "sgae", context="c", prediction="p")["failed"]


def test_scripted_giraffe_accuracy_is_any_of():
    from staragent.bench.judges import make_judge

    judge = make_judge("scripted")
    hit = score_prediction(judge, "mgae", context="cube and sphere", prediction="1. the cube hits the wall\n2. the sphere hits the cube",
                           ground_truth="the sphere hits the cube")  # fmt: skip
    miss = score_prediction(judge, "mgae", context="cube and sphere", prediction="1. nothing moves", ground_truth="the sphere hits the cube")
    assert hit["scores"]["accuracy"] == 100.0 and miss["scores"]["accuracy"] == 0.0


def test_videoautobench_and_giraffe_runs_score_through_score_run(shared_data, tmp_path):
    from staragent.bench.agents import make_agent
    from staragent.bench.execution import run_benchmark
    from staragent.bench.judges import make_judge
    from staragent.bench.kinds import load_dataset
    from staragent.bench.rundir import read_scores
    from staragent.bench.scoring import score_run

    d = shared_data / "videoautobench"
    ds = load_dataset(f"videoautobench:{d / 'videoautobench.latest.json'}", responses=d / "responses.aria.json")
    answered = [s for s in ds.samples if s.qa_turns()[0].answer.prediction is not None]
    assert answered and not ds.samples[0].qa_turns()[0].question.content.startswith("*")
    ds.samples = answered[:6]
    run_benchmark(ds, make_agent("replay"), tmp_path / "vab")
    summary = score_run(tmp_path / "vab", make_judge("scripted"))["videoautobench"]
    rows = [r for r in read_scores(tmp_path / "vab") if r["metric"] == "videoautobench"]
    assert summary["n"] == len(rows) == 6
    assert summary["selected"] == pytest.approx(100 * sum(r["selected_points"] for r in rows) / 6)
    assert summary["score"] == pytest.approx((summary["selected"] + summary["rejected"]) / 2)

    giraffe = tmp_path / "g.json"
    giraffe.write_text(json.dumps([
        {"id": "g1", "evaluator": "mgae", "context": "a cube and a sphere roll", "ground_truth": "the sphere hits the cube",
         "prediction": ["the sphere hits the cube", "the cube stops"]},
        {"id": "g2", "evaluator": "ppe", "context": "a man shovels snow off a car", "ground_truth": "",
         "prediction": ["he clears the windshield", "he drives away"]},
    ]))  # fmt: skip
    run_benchmark(load_dataset(giraffe), make_agent("replay"), tmp_path / "gir")
    out = score_run(tmp_path / "gir", make_judge("scripted"))["giraffe"]
    assert out["mgae"]["accuracy"] == 100.0 and out["ppe"]["diversity"] == 40.0
