"""VDEval / LAVE / lexical / consensus on the released VDAct outputs (shared data)."""

from __future__ import annotations

import json
import re

import pytest

from staragent.bench.agents import make_agent
from staragent.bench.execution import run_benchmark
from staragent.bench.judges import LLMJudge, ScriptedChatModel, make_judge
from staragent.bench.kinds import load_dataset
from staragent.bench.rundir import load_run
from staragent.bench.scorers import consensus, lexical, vdeval
from staragent.bench.scorers.common import units_of

RESULTS = "vdact/results/test-videollama2-vllava-lora-8f-72-8f.json"


@pytest.fixture
def vdact_run(shared_data, tmp_path):
    ds = load_dataset(f"vdact:{shared_data / RESULTS}").select(limit=4)
    run_benchmark(ds, make_agent("replay"), tmp_path / "run")
    _, samples, records = load_run(tmp_path / "run")
    return units_of(samples, records), ds


def test_vdact_loader_builds_dialogues_with_summaries(shared_data):
    ds = load_dataset(f"vdact:{shared_data / RESULTS}")
    rows = json.loads((shared_data / RESULTS).read_text())
    assert len(ds.samples) == len({r["dial_id"] for r in rows})
    first = ds.samples[0]
    scenario = first.sample_id[:-2]
    summary = (shared_data / "vdact" / "summaries" / f"{scenario}.txt").read_text().strip()
    assert first.meta["summary"] == summary and first.meta["summary"]
    turns = sorted((r for r in rows if r["dial_id"] == first.sample_id), key=lambda r: r["turn_num"])
    assert [p.question.content for p in first.qa_turns()] == [r["question"] for r in turns]
    assert [p.answer.prediction for p in first.qa_turns()] == [r["gen_answer"] for r in turns]


def test_vdeval_prompt_is_session_based_and_lave_turn_based(vdact_run):
    units, _ = vdact_run
    prompts = []

    def reply(prompt):
        prompts.append(prompt)
        return f"Judged turn {len(prompts)}. So rating=2"

    judge = LLMJudge.from_model(ScriptedChatModel(reply_fn=reply), kind="scripted")
    dialogue = [u for u in units if u.sample.sample_id == units[0].sample.sample_id]
    rows = vdeval.score_vdeval(judge, dialogue)
    assert [r["rating"] for r in rows] == [2] * len(dialogue) and all(r["score"] == 50.0 for r in rows)
    summary = dialogue[0].sample.meta["summary"]
    last = prompts[-1]
    assert summary in last
    # every earlier turn appears with its candidate answer and the judge's own earlier output
    for i, u in enumerate(dialogue[:-1], start=1):
        assert f"Candidate answer: {u.answer}" in last and f"Judged turn {i}. So rating=2" in last
    assert "(this is the first turn)" in prompts[0]
    prompts.clear()
    lave_rows = vdeval.score_lave(judge, dialogue)
    assert len(lave_rows) == len(dialogue) and all(summary not in p for p in prompts)
    assert all("Judged turn" not in p.split("## Turn to rate")[0] for p in prompts)


def test_rating_to_percent_and_failed_calls(vdact_run):
    units, _ = vdact_run
    assert [vdeval.rating_score(r) for r in (1, 2, 3, None)] == [0.0, 50.0, 100.0, 0.0]
    judge = LLMJudge.from_model(ScriptedChatModel(reply_fn=lambda p: "no marker"), kind="scripted", max_retries=0)
    rows = vdeval.score_lave(judge, units[:3])
    assert all(r["failed"] and r["rating"] is None and r["score"] == 0.0 for r in rows)
    assert vdeval.summarise(rows)["failed_calls"] == 3


def test_scripted_judge_runs_vdeval_on_vdact(vdact_run):
    units, _ = vdact_run
    rows = vdeval.score_vdeval(make_judge("scripted"), units, workers=2)
    assert len(rows) == len(units) and not any(r["failed"] for r in rows)
    s = vdeval.summarise(rows)
    assert 0 <= s["score"] <= 100 and sum(s["ratings"].values()) == len(units)


def test_lexical_matches_the_reference_implementations(shared_data):
    import sacrebleu
    from rouge_score import rouge_scorer

    rows = json.loads((shared_data / RESULTS).read_text())[:300]
    hyps, refs = [r["gen_answer"] for r in rows], [r["ref_answer"] for r in rows]
    scores = lexical.lexical_scores(hyps, refs)
    assert scores["n"] == 300
    assert scores["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    expected_rouge = 100 * sum(scorer.score(r, h)["rougeL"].fmeasure for h, r in zip(hyps, refs, strict=True)) / 300
    assert scores["rouge_l"] == pytest.approx(expected_rouge)
    assert 0 < scores["meteor"] < 100


def test_rouge_l_and_meteor_hand_examples():
    # LCS("the cat sat on the mat", "the cat lay on the mat") = 5 tokens of 6 and 6: F1 = 5/6
    assert lexical.rouge_l("the cat lay on the mat", "the cat sat on the mat") == pytest.approx(100 * 5 / 6)
    assert lexical.meteor("a red car", "a red car") > 95
    assert lexical.meteor("", "a red car") == 0.0
    exact = lexical.meteor("the hound barked", "the dog barked", synonyms=False)
    if lexical.meteor_variant() == lexical.METEOR_FULL:
        assert lexical.meteor("the hound barked", "the dog barked") > exact
    assert lexical.meteor_variant(synonyms=False) == lexical.METEOR_NO_SYNONYMS


def test_consensus_retrieves_pseudo_references():
    pool = [
        {"id": "1", "question": "What does he drink?", "answer": "He drinks a glass of water."},
        {"id": "2", "question": "Where does he sit?", "answer": "He sits on the sofa in the living room."},
        {"id": "3", "question": "What does he drink?", "answer": "Water from a glass."},
    ]
    scorer = consensus.ConsensusScorer(pool, k=2, metric="token_f1")
    hits = scorer.retrieve("What does he drink?", "He drinks water.")
    assert {pool[i]["id"] for i, _ in hits} == {"1", "3"}
    result = scorer.score("What does he drink?", "He drinks a glass of water.", exclude_id="1")
    assert result["best"] == "3"
    from staragent.bench import text as tx

    assert result["score"] == pytest.approx(100 * tx.token_f1("He drinks a glass of water.", "Water from a glass."))


def test_cli_metrics_on_vdact_file(shared_data):
    from click.testing import CliRunner

    from staragent.bench.commands import bench

    path = shared_data / "vdact/results/test-gemini-1.5-pro-002-visual-8-mini.json"
    result = CliRunner().invoke(bench, ["metrics", str(path), "--format", "vdact", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(re.sub(r"^note:.*\n", "", result.stdout))
    rows = json.loads(path.read_text())
    expected = lexical.lexical_scores([r["gen_answer"] for r in rows], [r["ref_answer"] for r in rows])
    assert set(data) == {"n", "bleu", "rouge_l", "meteor"}
    assert data["n"] == len(rows)
    for key in ("bleu", "rouge_l", "meteor"):
        assert data[key] == pytest.approx(expected[key])
