"""The baseline agent without tools: a chat model over the video's transcript and on-screen text."""

from __future__ import annotations

import json

import pytest

from staragent.bench.agents import make_agent
from staragent.bench.baseline import BaselineAgent, scripted_baseline_reply, video_text_view
from staragent.bench.execution import run_benchmark
from staragent.bench.harness_errors import AgentSpecError
from staragent.bench.judges import ScriptedChatModel
from staragent.bench.kinds import load_dataset
from staragent.bench.rundir import load_run
from staragent.config import load_settings


def _dataset(tmp_path, video):
    rows = [
        {
            "sample_id": "s1",
            "video_id": "conference",
            "video_path": str(video),
            "task": "information_retrieval",
            "conversations": [
                {"role": "user", "content": "What is the price of the coffee grinder?"},
                {"role": "assistant", "content": "It costs $129.50."},
                {"role": "user", "content": "And where did the keynote speaker fly in from?"},
                {"role": "assistant", "content": "From Nairobi."},
            ],
        }
    ]
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(rows))
    return load_dataset(path)


def test_text_view_lists_speech_and_screen_text_in_time_order_within_the_budget(foreign_index):
    full, info = video_text_view(foreign_index, 100_000)
    lines = full.splitlines()
    assert not info["truncated"] and info["kept"] == info["lines"] == len(lines)
    assert any(" said: " in line for line in lines) and any(" on screen: " in line for line in lines)
    spoken = [line.text.strip() for line in foreign_index.speech if line.text.strip()]
    assert all(any(text in line for line in lines) for text in spoken)
    times = [line[1:].split("]")[0].split("-")[0] for line in lines]
    seconds = [sum(int(p) * 60**i for i, p in enumerate(reversed(t.split(":")))) for t in times]
    assert seconds == sorted(seconds)
    budget = len(full) // 2
    cut, cut_info = video_text_view(foreign_index, budget)
    assert cut_info["truncated"] and len(cut) <= budget and lines[: cut_info["kept"]] == cut.splitlines()


def test_baseline_answers_from_the_text_view_with_the_ideal_history(
    tmp_path, foreign, foreign_index, session_cache
):
    settings = load_settings(cache_dir=session_cache, progress=False)  # finds the index built by the fixture
    prompts = []

    def reply(prompt):
        prompts.append(prompt)
        return scripted_baseline_reply(prompt)

    agent = BaselineAgent(
        ScriptedChatModel(reply_fn=reply, model_name="scripted-baseline"),
        chat_spec="scripted",
        settings=settings,
        context_chars=4000,
    )
    run_dir = tmp_path / "run"
    run_benchmark(
        _dataset(tmp_path, foreign.path), agent, run_dir, agent_spec="baseline:scripted,context_chars=4000"
    )
    meta, _, records = load_run(run_dir)
    config = meta["agent"]["config"]
    assert config["kind"] == "baseline" and config["chat"] == "scripted" and config["context_chars"] == 4000
    assert (
        config["tools"] == []
        and config["model"] == "scripted-baseline"
        and config["prompt"] == "bench_baseline"
    )
    first, second = sorted(records, key=lambda r: r.turn)
    assert "$129.50" in first.answer and not first.trajectory
    view, _ = video_text_view(foreign_index, 4000)
    assert view in prompts[0] and "(this is the first question)" in prompts[0]
    # the second turn's prompt holds the first question with its REFERENCE answer
    assert "User: What is the price of the coffee grinder?\nAssistant: It costs $129.50." in prompts[1]
    assert second.ok and second.answer


def test_baseline_without_a_video_says_so_and_specs_are_checked(tmp_path):
    rows = [
        {
            "sample_id": "x",
            "conversations": [
                {"role": "user", "content": "What colour is the car?"},
                {"role": "assistant", "content": "Red."},
            ],
        }
    ]
    (tmp_path / "d.json").write_text(json.dumps(rows))
    agent = make_agent(
        "baseline:scripted,context_chars=500", load_settings(cache_dir=tmp_path / "c", progress=False)
    )
    run_benchmark(load_dataset(tmp_path / "d.json"), agent, tmp_path / "run")
    record = load_run(tmp_path / "run")[2][0]
    assert record.ok and record.answer == "I cannot tell from the text of the video."
    for bad, message in (
        ("baseline", "name the baseline"),
        ("baseline:scripted,context_chars=lots", "whole number"),
        ("baseline:scripted,temperature=1", "unknown option"),
        ("baseline:rules", "rule planner"),
    ):
        with pytest.raises(AgentSpecError, match=message):
            make_agent(bad, load_settings(cache_dir=tmp_path / "c", progress=False))
