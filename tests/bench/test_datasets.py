"""Dataset options on the command line, replayed answers that are missing, VDAct duplicates, and the
hub loader's missing-package error."""

from __future__ import annotations

import json
import logging
import sys

import pytest
from click.testing import CliRunner

from staragent.bench.commands import bench
from staragent.bench.harness_errors import DatasetError
from staragent.bench.kinds import load_dataset
from staragent.bench.rundir import read_scores


def invoke(*args):
    return CliRunner().invoke(bench, [str(a) for a in args])


def _videoautobench(tmp_path, answered=("q1", "q2")):
    questions = {
        f"q{i}": {
            "video_id": f"v{i}",
            "persona": "a cook",
            "question": f"**How is dish {i} seasoned?**",
            "selected answer": f"Dish {i} gets salt and pepper.",
            "rejected answer": "It is not seasoned.",
        }
        for i in (1, 2, 3)
    }
    responses = {
        qid: {"qid": qid, "response": f"Dish {qid[1]} is seasoned with salt and pepper."} for qid in answered
    }
    (tmp_path / "questions.json").write_text(json.dumps(questions))
    (tmp_path / "responses.json").write_text(json.dumps(responses))
    return tmp_path / "questions.json", tmp_path / "responses.json"


def test_released_answers_replay_through_the_cli_and_missing_ones_are_skipped(tmp_path):
    questions, responses = _videoautobench(tmp_path)
    run = tmp_path / "run"
    r = invoke(
        "run",
        f"videoautobench:{questions}",
        "--dataset-option",
        f"responses={responses}",
        "--agent",
        "replay",
        "--out",
        run,
    )
    assert r.exit_code == 0, r.output
    meta = json.loads((run / "run.json").read_text())
    assert meta["dataset"]["options"] == {"responses": str(responses)}
    assert meta["progress"]["errors"] == 1  # q3 has no stored answer: an agent error, recorded
    r = invoke(
        "score",
        run,
        "--judge",
        "scripted",
        "--metrics",
        "videoautobench,lave,lexical",
        "--json",
        "--cache-dir",
        tmp_path / "c",
    )
    assert r.exit_code == 0, r.output
    metrics = json.loads(r.stdout)["metrics"]
    assert metrics["videoautobench"]["n"] == 2 and metrics["videoautobench"]["skipped"] == 1
    assert metrics["lave"]["turns"] == 2 and metrics["lave"]["skipped"] == 1
    assert metrics["lexical"]["n"] == 2 and metrics["lexical"]["skipped"] == 1
    rows = [row for row in read_scores(run) if row["metric"] == "videoautobench"]
    skipped = [row for row in rows if row.get("skipped")]
    assert [row["sample_id"] for row in skipped] == ["q3"] and "no stored prediction" in skipped[0][
        "agent_error"
    ]
    assert "selected" not in skipped[0]  # never judged
    scored = [row for row in rows if not row.get("skipped")]
    assert metrics["videoautobench"]["selected"] == pytest.approx(
        100 * sum(x["selected_points"] for x in scored) / 2
    )


def test_dataset_options_are_checked(tmp_path):
    questions, _ = _videoautobench(tmp_path)
    cases = [
        (["--dataset-option", "summaries=x"], "does not apply to videoautobench"),
        (["--dataset-option", "responses"], "write KEY=VALUE"),
        (["--dataset-option", f"responses={tmp_path / 'nope.json'}"], "responses file not found"),
    ]
    for extra, message in cases:
        r = invoke("run", f"videoautobench:{questions}", *extra, "--agent", "replay", "--out", tmp_path / "o")
        assert r.exit_code == 2 and message in r.stderr, r.output


def test_rubric_counts_unanswered_turns_and_lave_skips_them(tmp_path):
    from staragent.bench.agents import ScriptedAgent
    from staragent.bench.execution import run_benchmark
    from staragent.bench.judges import LLMJudge, ScriptedChatModel
    from staragent.bench.scoring import score_run

    rows = [
        {
            "sample_id": f"s{i}",
            "video_id": f"v{i}",
            "task": "causal_reasoning",
            "conversations": [
                {"role": "user", "content": f"Why {i}?"},
                {
                    "role": "assistant",
                    "content": f"Because {i}.",
                    "criteria": [{"name": "c", "description": f"Must say {i}", "category": "high_priority"}],
                },
            ],
        }
        for i in range(3)
    ]
    (tmp_path / "d.json").write_text(json.dumps(rows))
    answers = {"s0": "Because 0.", "s1": "   "}
    agent = ScriptedAgent(lambda q, h, s, t: answers[s["sample_id"]], fail_on={("s2", 0)})
    run_benchmark(load_dataset(tmp_path / "d.json"), agent, tmp_path / "run")
    prompts = []
    judge = LLMJudge.from_model(
        ScriptedChatModel(reply_fn=lambda p: prompts.append(p) or "Right. So rating=3"), kind="scripted"
    )
    out = score_run(tmp_path / "run", judge, ["lave"])
    assert (
        len(prompts) == 1
        and out["lave"]["turns"] == 1
        and out["lave"]["skipped"] == 2
        and out["lave"]["score"] == 100.0
    )
    rubric = score_run(tmp_path / "run", make_heuristic(), ["rubric"])["rubric"]["released"]
    assert rubric["unanswered"] == 2 and rubric["tasks"]["causal_reasoning"]["score"] == pytest.approx(
        100 / 3
    )
    reasons = {r["sample_id"]: r["skipped"] for r in read_scores(tmp_path / "run") if r["metric"] == "rubric"}
    assert reasons == {"s0": None, "s1": "empty answer", "s2": "agent error"}


def make_heuristic():
    from staragent.bench.judges import make_judge

    return make_judge("heuristic")


def _vdact(tmp_path, rows):
    (tmp_path / "results").mkdir()
    (tmp_path / "summaries").mkdir()
    (tmp_path / "summaries" / "scn1.txt").write_text("A man cleans the TV with a towel.")
    path = tmp_path / "results" / "model.json"
    path.write_text(json.dumps(rows))
    return path


def vdact_row(turn, gen, dial="scn101"):
    return {
        "id": f"{dial}_{turn}",
        "dial_id": dial,
        "turn_num": turn,
        "question": f"q{turn}?",
        "ref_answer": f"reference {turn}",
        "gen_answer": gen,
    }


def test_vdact_duplicates_are_dropped_with_a_warning_and_metrics_count_turns(tmp_path, caplog):
    rows = [
        vdact_row(1, "a"),
        vdact_row(2, "b"),
        vdact_row(1, "a"),
        vdact_row(2, "another b"),
        vdact_row(3, "c"),
    ]
    path = _vdact(tmp_path, rows)
    with caplog.at_level(logging.WARNING, logger="staragent.bench"):
        ds = load_dataset(f"vdact:{path}")
    assert (
        "1 duplicate rows identical" in caplog.text
        and "1 turns are listed twice with different contents" in caplog.text
    )
    pairs = ds.samples[0].qa_turns()
    assert [p.answer.prediction for p in pairs] == [
        "a",
        "b",
        "c",
    ]  # the first row of a conflicting turn is kept
    assert ds.meta["duplicates_dropped"] == {"identical": 1, "conflicting": 1}
    r = invoke("metrics", path, "--format", "vdact", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["n"] == 3 and "lists 2 turns twice (1 with another answer)" in r.stderr


def test_the_shared_videollava_file_has_4524_turns(shared_data):
    path = shared_data / "vdact/results/test-videollava-7b-8f.json"
    rows = json.loads(path.read_text())
    turns = {(r["dial_id"], r["turn_num"]) for r in rows}
    ds = load_dataset(f"vdact:{path}")
    assert len(rows) > len(turns) and sum(len(s.qa_turns()) for s in ds.samples) == len(turns)
    assert ds.meta["duplicates_dropped"]["identical"] + ds.meta["duplicates_dropped"]["conflicting"] == len(
        rows
    ) - len(turns)


def test_hub_loading_without_the_datasets_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(DatasetError, match=r"pip install 'staragent\[hub\]'"):
        load_dataset("hf:someone/starbench:default@test")
    r = invoke("run", "hf:someone/starbench", "--agent", "echo", "--out", "/nonexistent/run")
    assert r.exit_code == 2 and "staragent[hub]" in r.stderr
