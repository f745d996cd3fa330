"""Scoring formulas against hand-computed examples."""

from __future__ import annotations

import pytest

from staragent.bench.judges.client import JudgeCall
from staragent.bench.sample_records import Criterion, Sample, ToolCall, TurnRecord
from staragent.bench.scorers import rubric
from staragent.bench.scorers.common import units_of
from staragent.bench.scorers.rubric_view import paper_reference
from staragent.bench.scorers.trajectory import score_unit, trajectory_metrics, trajectory_points
from staragent.schema import TrajectoryStep


class StubJudge:
    """Verdicts by criterion name: True / False, or None for a failed judge call."""

    is_llm = False

    def __init__(self, verdicts):
        self.verdicts = verdicts
        self.calls = 0

    def check_criterion(self, *, question, reference, answer, criterion, history=None):
        self.calls += 1
        v = self.verdicts[criterion.name]
        if v is None:
            return JudgeCall(ok=False, error="reply could not be parsed", attempts=3)
        return JudgeCall(ok=True, value={"criteria_met": v, "explanation": "stub"})


def crit(name, category):
    return {"name": name, "description": f"about {name}", "category": category}


def sample(sid, task, criteria, tool_calls=None, video="v1"):
    return Sample.model_validate(
        {
            "sample_id": sid, "video_id": video, "duration": 1000, "task": task,
            "conversations": [
                {"role": "user", "content": f"question {sid}", "modalities": ["visual"], "difficulty": 3},
                {"role": "assistant", "content": f"reference {sid}", "criteria": criteria, "tool_calls": tool_calls or []},
            ],
        }
    )  # fmt: skip


def record(sid, answer="an answer", ok=True, steps=()):
    return TurnRecord(sample_id=sid, turn=0, question="q", answer=answer, ok=ok, trajectory=list(steps))


def rubric_rows():
    samples = [
        sample("t1", "ocr_text_extraction", [crit("h1", "high_priority"), crit("m1", "medium_priority"),
                                             crit("l1", "low_priority"), crit("p1", "penalty")]),
        sample("t2", "entity_recognition", [crit("h2", "high_priority"), crit("p2", "penalty")]),
        sample("t3", "causal_reasoning", [crit("h3", "high_priority"), crit("m3", "medium_priority")]),
        sample("t4", "commonsense_reasoning", [crit("h4", "high_priority")]),
        sample("t5", "information_retrieval", [crit("h5", "high_priority")],
               tool_calls=[{"tool": "calculator", "parameters": {"expression": "1+1"}}]),
    ]  # fmt: skip
    verdicts = {"h1": True, "m1": False, "l1": True, "p1": False, "h2": True, "p2": True, "h3": None, "m3": True,
                "h4": True, "h5": False}  # fmt: skip
    judge = StubJudge(verdicts)
    units = units_of(samples, [record(s.sample_id) for s in samples])
    return rubric.score_rubric(judge, units), judge


def test_turn_scores_released_and_paper():
    rows, _ = rubric_rows()
    t1 = rows[0]
    # max = 5 + 3 + 1 = 9; released = 5 + 1 = 6; paper = 6 - 5 (violated penalty) = 1
    assert (t1["maximum"], t1["released"], t1["paper"]) == (9, 6, 1)
    assert t1["score_released"] == pytest.approx(100 * 6 / 9)
    assert t1["score_paper"] == pytest.approx(100 * 1 / 9)
    t3 = rows[2]
    assert (t3["maximum"], t3["released"], t3["failed_calls"]) == (8, 3, 1)
    assert t3["criteria"][0]["failed"] and t3["criteria"][0]["met"] is False


def test_a_penalty_with_a_positive_weight_caps_released_and_subtracts_in_paper():
    """The released scorer adds every positive weight to the maximum, penalties included, and obtains
    only met non-penalty weights; the paper's convention subtracts the violated penalty instead."""
    criteria = [
        {"name": "h", "description": "about h", "category": "high_priority", "weight": 5},
        {"name": "m", "description": "about m", "category": "medium_priority", "weight": 3},
        {"name": "p", "description": "about p", "category": "penalty", "weight": 5, "is_penalty": True},
    ]
    s = sample("w1", "causal_reasoning", criteria)
    kept = rubric.score_rubric(StubJudge({"h": True, "m": False, "p": True}), units_of([s], [record("w1")]))[0]
    # released: obtained 5 of 5 + 3 + 5 = 13; paper: 5 of 5 + 3 = 8, the penalty was not violated
    assert (kept["released"], kept["maximum_released"], kept["paper"], kept["maximum"]) == (5, 13, 5, 8)
    assert kept["score_released"] == pytest.approx(100 * 5 / 13) and kept["score_paper"] == pytest.approx(62.5)
    violated = rubric.score_rubric(StubJudge({"h": True, "m": False, "p": False}), units_of([s], [record("w1")]))[0]
    # released ignores the violation (still 5/13); paper: 5 - 5 = 0 of 8
    assert (violated["released"], violated["maximum_released"], violated["paper"]) == (5, 13, 0)
    assert violated["score_paper"] == 0.0
    perfect = rubric.score_rubric(StubJudge({"h": True, "m": True, "p": True}), units_of([s], [record("w1")]))[0]
    assert perfect["score_paper"] == 100.0 and perfect["score_released"] == pytest.approx(100 * 8 / 13)
    pooled = rubric.aggregate([kept, violated], "released")["tasks"]["causal_reasoning"]
    assert (pooled["obtained"], pooled["maximum"]) == (10, 26)
    assert rubric.aggregate([kept, violated], "paper")["tasks"]["causal_reasoning"]["maximum"] == 16


def test_aggregation_by_task_category_overall():
    rows, _ = rubric_rows()
    released = rubric.aggregate(rows, "released")
    paper = rubric.aggregate(rows, "paper")
    # entity_recognition pools t1 (ocr_text_extraction, remapped) and t2: (6 + 5) / (9 + 5)
    assert released["tasks"]["entity_recognition"]["score"] == pytest.approx(100 * 11 / 14)
    assert paper["tasks"]["entity_recognition"]["score"] == pytest.approx(100 * 6 / 14)
    # causal_reasoning pools t3 and t4 (commonsense_reasoning, remapped): (3 + 5) / (8 + 5)
    assert released["tasks"]["causal_reasoning"]["score"] == pytest.approx(100 * 8 / 13)
    assert released["categories"]["core_perception"]["score"] == pytest.approx(100 * 11 / 14)
    assert released["overall"] == pytest.approx((100 * 11 / 14 + 100 * 8 / 13) / 2)
    assert paper["overall"] == pytest.approx((100 * 6 / 14 + 100 * 8 / 13) / 2)
    # the agentic turn stays out of tasks and categories, and is reported on its own
    assert "information_retrieval" not in released["tasks"]
    assert released["agentic"] == {"score": 0.0, "obtained": 0, "maximum": 5, "n": 1}
    assert released["failed_calls"] == 1 and released["criteria"] == 10


def test_unanswered_turn_scores_zero_without_judge_calls():
    s = sample("e1", "causal_reasoning", [crit("h", "high_priority"), crit("p", "penalty")])
    judge = StubJudge({})
    rows = rubric.score_rubric(judge, units_of([s], [record("e1", answer="", ok=False)]))
    assert judge.calls == 0
    assert (rows[0]["released"], rows[0]["paper"], rows[0]["maximum"]) == (0, 0, 5)


@pytest.mark.parametrize("model", ["STARAgent", "Gemini-2.5-Flash"])
def test_category_and_overall_convention_reproduces_table3(model):
    """Category = mean of its tasks, overall = mean of the four categories, as in Table 3."""
    ref = paper_reference()["table3"]
    rows = [
        {"canonical_task": task, "agentic": False, "released": v[model], "paper": v[model], "maximum": 100.0}
        for task, v in ref["tasks"].items()
    ]
    agg = rubric.aggregate(rows, "released")
    for cat, value in ref["categories"].items():
        assert agg["categories"][cat]["score"] == pytest.approx(value[model], abs=0.01)
    assert agg["overall"] == pytest.approx(ref["overall"][model], abs=0.01)


EXPECTED = [
    ToolCall(tool="cross_modal_search", parameters={"query": "espresso machine price", "modalities": ["ocr"], "k": 5}),
    ToolCall(tool="extract_scene_text", parameters={"timestamp": "00:00:20-00:04:40"}),
    ToolCall(tool="calculator", parameters={"expression": "249 + 89.5"}),
]
PREDICTED = [
    {"tool": "extract_scene_text", "args": {"timestamp": "00:00:22-00:04:41"}, "ok": True},
    {"tool": "cross_modal_search", "args": {"query": "espresso machine price", "modalities": ["OCR"]}, "ok": True},
    {"tool": "calculator", "args": {"expression": "249+89.50"}, "ok": True},
    {"tool": "calculator", "args": {"expression": "249+89.50"}, "ok": True},
    {"tool": "web_search", "args": {"query": "espresso"}, "ok": False},
]


def test_trajectory_metrics_hand_example():
    m = trajectory_metrics(EXPECTED, PREDICTED)
    assert (m["expected_calls"], m["predicted_calls"], m["matched_calls"]) == (3, 5, 3)
    assert m["tool_precision"] == pytest.approx(0.6)
    assert m["tool_recall"] == 1.0
    assert m["tool_f1"] == pytest.approx(0.75)
    # required: query, modalities, timestamp, expression; optional k omitted -> not held against it
    assert (m["required_args"], m["required_args_correct"], m["optional_args"], m["optional_args_correct"]) == (4, 4, 1, 0)
    assert m["arg_accuracy"] == 1.0
    assert m["order_agreement"] == pytest.approx(2 / 3)
    assert (m["redundant_calls"], m["extra_calls"], m["wrong_tool_calls"], m["failed_calls"]) == (1, 2, 1, 1)
    p = trajectory_points(m, final_correct=True)
    # positives: 3 tools + 4 required + 0 optional + 0 order + 3 final = 10 of 3 + 4 + 0 (k left out) + 1 + 3 = 11
    # penalties subtract, each surplus call once: the repeated calculator call -1, the wrong tool -2
    assert (p["positive"], p["maximum"], p["penalty"], p["points"]) == (10, 11, 3, 7)
    assert p["score"] == pytest.approx(100 * 7 / 11)


def test_perfect_trajectory_scores_100_and_argument_mismatches_count():
    perfect = [{"tool": c.tool, "args": dict(c.parameters), "ok": True} for c in EXPECTED]
    assert trajectory_points(trajectory_metrics(EXPECTED, perfect), True)["score"] == 100.0
    # leaving out the optional k costs nothing: a correct minimal trajectory is perfect too
    minimal = [dict(s, args={k: v for k, v in s["args"].items() if k != "k"}) for s in perfect]
    assert trajectory_points(trajectory_metrics(EXPECTED, minimal), True)["score"] == 100.0
    # a wrong k is given and wrong: 0.25 missed of a maximum of 3 + 4 + 0.25 + 1 + 3 = 11.25
    wrong_k = [dict(s) for s in perfect]
    wrong_k[0] = {**perfect[0], "args": {**perfect[0]["args"], "k": 10}}
    p = trajectory_points(trajectory_metrics(EXPECTED, wrong_k), True)
    assert (p["points"], p["maximum"]) == (11, 11.25)
    # one call of a tool that is not expected costs 2 points, once (not also 1 as an extra call)
    p = trajectory_points(trajectory_metrics(EXPECTED, [*perfect, {"tool": "web_search", "args": {"query": "x"}, "ok": True}]), True)
    assert (p["penalty"], p["points"], p["maximum"]) == (2, 9.25, 11.25)
    wrong = [dict(s) for s in perfect]
    wrong[1] = {"tool": "extract_scene_text", "args": {"timestamp": "00:10:00-00:10:30"}, "ok": True}
    wrong[2] = {"tool": "calculator", "args": {"expression": "249 + 98.5"}, "ok": True}
    m = trajectory_metrics(EXPECTED, wrong)
    assert m["required_args_correct"] == 2 and m["per_argument"]["timestamp"] == 0.0
    assert trajectory_metrics(EXPECTED, [])["tool_recall"] == 0.0


def test_trajectory_row_uses_judge_for_final_answer():
    s = sample("a1", "mathematical_reasoning", [crit("h", "high_priority")],
               tool_calls=[c.model_dump() for c in EXPECTED])  # fmt: skip
    steps = [TrajectoryStep(tool=c.tool, args=dict(c.parameters), latency_s=0.5) for c in EXPECTED]
    judge = StubJudge({"final_answer_correctness": True})
    row = score_unit(judge, units_of([s], [record("a1", steps=steps)])[0])
    assert row["final_answer"]["met"] and row["score"] == 100.0 and row["tool_latency_s"] == 1.5
    failed = score_unit(StubJudge({"final_answer_correctness": None}), units_of([s], [record("a1", steps=steps)])[0])
    assert failed["final_answer"]["failed"] and failed["failed_calls_judge"] == 1
    assert failed["points"] == failed["maximum"] - 3


def test_final_answer_criterion_is_a_reference_check_for_offline_judges():
    from staragent.bench.judges import HeuristicJudge
    from staragent.bench.scorers.trajectory import final_answer_criterion

    judge = HeuristicJudge()
    c = final_answer_criterion("Together they cost $338.50. It is shown at about 0:20.")
    assert judge.check_criterion(question="q", reference="Together they cost $338.50. It is shown at about 0:20.",
                                 answer="$338.50 in total", criterion=c).value["criteria_met"]  # fmt: skip
    assert not judge.check_criterion(question="q", reference="Together they cost $338.50.", answer="$300", criterion=c).value["criteria_met"]
    assert isinstance(c, Criterion)


def test_overall_interval_resamples_videos():
    rows = []
    for v, score in (("v1", 1.0), ("v2", 0.5), ("v3", 0.0)):
        rows.append({"video_id": v, "canonical_task": "entity_recognition", "agentic": False,
                     "released": score, "paper": score, "maximum": 1.0})  # fmt: skip
    ci = rubric.bootstrap_overall(rows, "released", rounds=300, seed=2)
    assert ci["videos"] == 3 and 0.0 <= ci["lower"] < 50.0 < ci["upper"] <= 100.0
    assert rubric.bootstrap_overall(rows[:1], "released") is None
