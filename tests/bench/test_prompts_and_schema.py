from __future__ import annotations

import json

import pytest

from staragent.bench import tasks as tk
from staragent.bench.harness_errors import DatasetError
from staragent.bench.kinds import load_dataset
from staragent.bench.sample_records import Criterion, Sample, ToolCall
from staragent.errors import ConfigError
from staragent.prompts import available, render


def test_render_fills_variables_and_refuses_missing_ones():
    text = render("bench_lave", question="Q?", reference="R.", candidate="C.")
    assert "Question: Q?" in text and "Candidate answer: C." in text and "So rating=" in text
    with pytest.raises(ConfigError, match="candidate"):
        render("bench_lave", question="Q?", reference="R.")
    with pytest.raises(ConfigError, match="no prompt template"):
        render("no_such_prompt")
    assert {"bench_rubric_criterion", "bench_vdeval", "bench_pairwise"} <= set(available())


def test_criterion_points_follow_category_defaults_and_dataset_magnitudes():
    assert Criterion(description="x", category="high_priority").points == 5
    assert Criterion(description="x", category="Medium").points == 3
    assert Criterion(description="x", category="low_priority").points == 1
    assert Criterion(description="x", category="penalty").points == -5
    # released agentic criteria carry positive weights on penalties: the sign comes from is_penalty
    assert Criterion(description="x", weight=2, is_penalty=True).points == -2
    assert Criterion(description="x", category="high_priority", weight=7).points == 7
    with pytest.raises(ValueError):
        Criterion(description="x", category="urgent")


def test_task_remapping_and_groups():
    assert tk.canonical_task("ocr_text_extraction") == "entity_recognition"
    assert tk.canonical_task("Mathematical Reasoning") == "quantitative_reasoning"
    assert tk.canonical_task("question_answering") == "summarization"
    assert tk.canonical_task("temporal_reasoning") == "temporal_understanding"
    assert tk.canonical_task("multimodal_translation") == "motion_analysis"
    assert tk.canonical_task("safety_monitoring") is None
    assert len(tk.CANONICAL_TASKS) == 16 and len(tk.CATEGORIES) == 4
    assert tk.category_of("motion_analysis") == "multimodal"
    assert tk.modality_set(["visual", "speech"]) == "S+V"
    assert tk.modality_set(["audio_environment", "speech", "text_overlay"]) == "A+S+V"
    assert tk.modality_set([]) is None
    assert tk.duration_bucket(1799) == "0-30 mins"
    assert tk.duration_bucket(1800) == "30-60 mins"
    assert tk.duration_bucket(4000) == ">60 mins"


def _sample(**over):
    row = {
        "video_id": "v1", "duration": 2000, "sample_id": "s1", "sample_type": "multi_turn", "scenario": "x",
        "task": "causal_reasoning",
        "conversations": [
            {"role": "user", "content": "Q1", "difficulty": 3, "modalities": ["visual"]},
            {"role": "assistant", "content": "A1", "criteria": [{"name": "f", "description": "d", "category": "high_priority", "weight": 5, "is_penalty": False}]},
            {"role": "user", "content": "Q2"},
            {"role": "assistant", "content": "A2", "candidate_response": "old answer",
             "tool_calls": [json.dumps({"tool": "calculator", "parameters": {"expression": "1+1"}, "expected_response": {"result": 2}})]},
        ],
    }  # fmt: skip
    row.update(over)
    return row


def test_sample_pairs_history_and_tool_calls():
    sample = Sample.model_validate(_sample())
    pairs = sample.qa_turns()
    assert [p.question.content for p in pairs] == ["Q1", "Q2"]
    assert sample.history_before(1) == [{"role": "user", "content": "Q1"}, {"role": "assistant", "content": "A1"}]
    assert pairs[1].expected_tool_calls == [ToolCall(tool="calculator", parameters={"expression": "1+1"}, expected_response={"result": 2})]
    assert pairs[1].answer.prediction == "old answer"
    assert sample.is_agentic and sample.is_multi_turn


def test_starbench_loader_reads_json_jsonl_and_mapping(tmp_path):
    rows = [_sample(sample_id="a"), _sample(sample_id="b")]
    (tmp_path / "d.json").write_text(json.dumps(rows))
    (tmp_path / "d.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    unnamed = {k: v for k, v in _sample().items() if k != "sample_id"}
    (tmp_path / "m.json").write_text(json.dumps({"a": unnamed, "b": unnamed}))
    for name in ("d.json", "d.jsonl", "m.json"):
        ds = load_dataset(tmp_path / name)
        assert ds.kind == "starbench" and [s.sample_id for s in ds.samples] == ["a", "b"]
    assert [s.sample_id for s in load_dataset(tmp_path / "d.json").select(["b"]).samples] == ["b"]
    with pytest.raises(DatasetError, match="no sample with id zz"):
        load_dataset(tmp_path / "d.json").select(["zz"])


def test_malformed_rows_name_file_row_and_fix(tmp_path):
    bad = _sample(sample_id="bad")
    bad["conversations"][1]["criteria"][0]["category"] = "urgent"
    (tmp_path / "bad.json").write_text(json.dumps([_sample(sample_id="ok"), bad]))
    with pytest.raises(DatasetError) as err:
        load_dataset(tmp_path / "bad.json")
    assert "row 2 (bad)" in str(err.value) and "urgent" in str(err.value) and "fix that row" in str(err.value)
    (tmp_path / "noturns.json").write_text(json.dumps([_sample(conversations=[{"role": "user", "content": "Q"}])]))
    with pytest.raises(DatasetError, match="no user question followed by an assistant answer"):
        load_dataset(tmp_path / "noturns.json")
    (tmp_path / "broken.jsonl").write_text('{"a": 1}\n{oops\n')
    with pytest.raises(DatasetError, match="line 2 is not valid JSON"):
        load_dataset(tmp_path / "broken.jsonl")
    with pytest.raises(DatasetError, match="not found"):
        load_dataset(tmp_path / "missing.json")


def test_hf_spec_is_parsed_without_network(monkeypatch):
    from staragent.bench import datasets

    seen = {}

    def fake_fetch(repo, config, split):
        seen.update(repo=repo, config=config, split=split)
        return [_sample()]

    monkeypatch.setattr(datasets, "_fetch_hf_rows", fake_fetch)
    ds = load_dataset("hf:org/longshot-bench:postvalid_v2@test")
    assert seen == {"repo": "org/longshot-bench", "config": "postvalid_v2", "split": "test"}
    assert ds.samples[0].sample_id == "s1"
    load_dataset("hf:org/x")
    assert seen == {"repo": "org/x", "config": None, "split": "test"}


def test_giraffe_rows(tmp_path):
    rows = [
        {"id": "g1", "evaluator": "mgae", "context": "two balls roll", "ground_truth": "they collide", "prediction": ["they collide", "they miss"]},
        {"id": "g2", "evaluator": "ppe", "context": "a man shovels snow", "ground_truth": "", "prediction": "he keeps shovelling"},
    ]  # fmt: skip
    (tmp_path / "g.json").write_text(json.dumps(rows))
    ds = load_dataset(tmp_path / "g.json")
    assert ds.kind == "giraffe"
    assert ds.samples[0].qa_turns()[0].answer.prediction == "1. they collide\n2. they miss"
    (tmp_path / "bad.json").write_text(json.dumps([{"id": "x", "evaluator": "zzz", "ground_truth": "t"}]))
    with pytest.raises(DatasetError, match="evaluator"):
        load_dataset("giraffe:" + str(tmp_path / "bad.json"))
