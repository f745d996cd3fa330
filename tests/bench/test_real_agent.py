"""The real agent (offline profile) through the benchmark harness: run, score, and the simulated-tools
mode of the released evaluation."""

import json

from staragent.bench.agents import make_agent
from staragent.bench.execution import run_benchmark
from staragent.bench.judges import make_judge
from staragent.bench.kinds import load_dataset
from staragent.bench.rundir import load_run
from staragent.bench.scoring import score_run


def _dataset(tmp_path, video):
    samples = [
        {
            "sample_id": "s1",
            "video_id": "conference",
            "video_path": str(video),
            "task": "information_retrieval",
            "conversations": [
                {"role": "user", "content": "What is the price of the coffee grinder?", "modalities": ["vision"]},
                {
                    "role": "assistant",
                    "content": "It costs $129.50.",
                    "criteria": [
                        {"name": "factual_correctness", "description": "Must state the price $129.50", "category": "high_priority"},
                        {"name": "hallucination", "description": "Must not include information not present in the video", "category": "penalty", "is_penalty": True},
                    ],
                },
                {"role": "user", "content": "What was said right after that?"},
                {"role": "assistant", "content": "That the keynote speaker flew in from Nairobi.",
                 "criteria": [{"name": "key_details", "description": "Must mention Nairobi", "category": "high_priority"}]},
            ],
        },
        {
            "sample_id": "a1",
            "video_id": "elsewhere",
            "task": "agentic",
            "conversations": [
                {"role": "user", "content": "What is the total of the two prices on screen?"},
                {
                    "role": "assistant",
                    "content": "The total is 300.",
                    "criteria": [{"name": "factual_correctness", "description": "Must state 300", "category": "high_priority"}],
                    "tool_calls": [
                        {"tool": "cross_modal_search", "parameters": {"query": "price"}, "expected_response": {"timestamp": "00:01:00-00:01:10", "results": ["Price: $100", "Price: $200"]}},
                        {"tool": "calculator", "parameters": {"expression": "100 + 200"}, "expected_response": {"result": 300}},
                    ],
                },
            ],
        },
        {
            "sample_id": "a2",
            "video_id": "elsewhere",
            "task": "agentic",
            "conversations": [
                {"role": "user", "content": "How many people can be seen on screen between 0:10 and 0:20?"},
                {
                    "role": "assistant",
                    "content": "Three people.",
                    "criteria": [{"name": "factual_correctness", "description": "Must state 3", "category": "high_priority"}],
                    "tool_calls": [{"tool": "count_objects", "parameters": {"timestamp": "00:00:10-00:00:20", "object_query": "person"},
                                    "expected_response": {"count": 3, "timestamp": "0:10-0:20"}}],
                },
            ],
        },
    ]
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(samples))
    return load_dataset(path)


def test_the_offline_agent_runs_and_scores_through_the_harness(tmp_path, foreign):
    dataset = _dataset(tmp_path, foreign.path).select(["s1"])
    agent = make_agent("profile:offline")
    run_dir = tmp_path / "run"
    summary = run_benchmark(dataset, agent, run_dir)
    assert summary.done == 2
    meta, _, records = load_run(run_dir)
    assert meta["agent"]["config"]["planner"] == "rules"
    first, second = sorted(records, key=lambda r: r.turn)
    assert "$129.50" in first.answer and first.trajectory[0].tool == "cross_modal_search"
    # the second turn's history held the REFERENCE answer, which has no timestamp: the agent searched
    assert second.ok and second.trajectory
    score_run(run_dir, make_judge("heuristic"), ["rubric"])
    rows = [json.loads(line) for line in (run_dir / "scores.jsonl").read_text().splitlines()]
    first_score = next(r for r in rows if r["metric"] == "rubric" and r["turn"] == 0)
    assert first_score["released"] == first_score["maximum"] == 5


def test_simulated_tools_answer_with_the_expected_responses(tmp_path, foreign):
    dataset = _dataset(tmp_path, foreign.path).select(["a1"])
    run_dir = tmp_path / "sim"
    run_benchmark(dataset, make_agent("profile:offline"), run_dir, simulated_tools=True)
    _, _, records = load_run(run_dir)
    record = records[0]
    assert record.ok and record.simulated_tools
    assert record.trajectory[0].tool == "cross_modal_search"
    assert record.trajectory[0].summary.startswith("simulated:")
    assert any(s.tool == "calculator" for s in record.trajectory)
    assert "300" in record.answer


def test_simulated_runs_offer_tools_whose_models_are_absent_here(tmp_path, foreign):
    """count_objects has no detector offline, but a simulated call needs none: it is offered, called,
    and its expected response is read like the tool's own result."""
    dataset = _dataset(tmp_path, foreign.path).select(["a2"])
    run_dir = tmp_path / "sim-count"
    run_benchmark(dataset, make_agent("profile:offline"), run_dir, simulated_tools=True)
    record = load_run(run_dir)[2][0]
    assert [s.tool for s in record.trajectory] == ["count_objects"]
    assert "At most 3 people are visible at once in 0:10-0:20" in record.answer


def test_simulated_tools_leave_turns_without_expected_calls_to_the_real_tools(tmp_path, foreign):
    """Under --simulated-tools only the agentic turn is answered from the dataset; the question about
    the video runs the real tools on it and finds the price shown there."""
    dataset = _dataset(tmp_path, foreign.path).select(["s1", "a1"])
    run_dir = tmp_path / "mixed"
    run_benchmark(dataset, make_agent("profile:offline"), run_dir, simulated_tools=True)
    records = {r.key: r for r in load_run(run_dir)[2]}
    video_turn, agentic_turn = records[("s1", 0)], records[("a1", 0)]
    assert video_turn.ok and not video_turn.simulated_tools
    assert video_turn.trajectory and not any(s.summary.startswith("simulated:") for s in video_turn.trajectory)
    assert "$129.50" in video_turn.answer
    assert agentic_turn.ok and agentic_turn.simulated_tools
    assert all(s.summary.startswith("simulated:") for s in agentic_turn.trajectory)
    score_run(run_dir, make_judge("heuristic"), ["rubric"])
    rows = [json.loads(line) for line in (run_dir / "scores.jsonl").read_text().splitlines()]
    video_score = next(r for r in rows if (r["sample_id"], r["turn"]) == ("s1", 0))
    assert video_score["released"] == video_score["maximum"] == 5


def test_a_turn_without_video_or_calls_to_simulate_is_a_clear_agent_error(tmp_path, foreign):
    dataset = _dataset(tmp_path, foreign.path).select(["s1"])
    dataset.samples[0] = dataset.samples[0].model_copy(update={"video_path": None})
    run_benchmark(dataset, make_agent("profile:offline"), tmp_path / "novideo", simulated_tools=True)
    record = next(r for r in load_run(tmp_path / "novideo")[2] if r.turn == 0)
    assert not record.ok
    assert "turn 0 has no video file and no expected tool calls to simulate; pass --video-root" in record.error
