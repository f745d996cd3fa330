"""`bench meta` (agreement with human scores) and `bench validate-judge` through the command line."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner
from scipy import stats

from staragent.bench.agents import ScriptedAgent
from staragent.bench.commands import bench
from staragent.bench.execution import run_benchmark
from staragent.bench.rundir import read_scores
from staragent.datagen.synthetic import load_synthetic


def invoke(*args):
    return CliRunner().invoke(bench, [str(a) for a in args])


@pytest.fixture
def scored_run(facts_file, tmp_path):
    """A run where every third answer is the reference and the others are off, scored offline."""
    ds = load_synthetic(facts_file).select(limit=12)
    right = {s.sample_id for s in ds.samples[::3]}  # a fixed third (hash() of a string changes between runs)

    def answer(question, history, sample, turn):
        pair = [p for p in ds.samples if p.sample_id == sample["sample_id"]][0].qa_turns()[turn]
        return pair.answer.content if sample["sample_id"] in right else "I am not sure what happens there."

    run = tmp_path / "run"
    run_benchmark(ds, ScriptedAgent(answer), run)
    assert invoke("score", run, "--judge", "heuristic", "--metrics", "rubric,lexical").exit_code == 0
    return run


def test_meta_reports_agreement_with_human_scores(scored_run, tmp_path):
    rubric = {(r["sample_id"], r["turn"]): r for r in read_scores(scored_run) if r["metric"] == "rubric"}
    keys = sorted(rubric)
    human_file = tmp_path / "human.csv"
    with open(human_file, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["sample_id", "turn", "score"])
        for i, (sid, turn) in enumerate(keys):  # people mostly agree with the rubric, with a few slips
            good = rubric[(sid, turn)]["score_released"] > 50
            writer.writerow([sid, turn, 3 if good != (i % 5 == 0) else 1])
        writer.writerow([keys[0][0], 9, 2])  # a turn the run does not have
        writer.writerow([keys[1][0], keys[1][1] + 20, ""])  # no score: left out
    r = invoke(
        "meta",
        scored_run,
        "--human",
        human_file,
        "--metric",
        "rubric,lexical:meteor",
        "--permutations",
        "500",
        "--compare",
        "rubric,lexical:meteor",
        "--json",
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["human_items"] == len(keys) + 1 and out["human_rows_not_in_run"] == 0
    human = {}
    with open(human_file) as fh:
        for row in csv.DictReader(fh):
            if row["score"]:
                human[(row["sample_id"], int(row["turn"]))] = float(row["score"])
    xs = [rubric[k]["score_released"] for k in keys]
    ys = [human[k] for k in keys]
    m = out["metrics"]["rubric:score_released"]
    assert m["n"] == len(keys)
    assert m["kendall"]["r"] == pytest.approx(stats.kendalltau(xs, ys, variant="b")[0])
    assert m["pearson"]["r"] == pytest.approx(stats.pearsonr(xs, ys)[0])
    assert m["spearman"]["r"] == pytest.approx(stats.spearmanr(xs, ys)[0])
    assert 0 < m["kendall"]["p_permutation"] <= 1
    # every turn is from the one synthetic video: no second cluster to resample
    assert m["kendall"]["se_clustered"] is None and m["human_mean"]["clusters"] == 1
    assert m["metric_mean"]["mean"] == pytest.approx(sum(xs) / len(xs))
    assert out["metrics"]["lexical:meteor"]["n"] == len(keys)
    # does the rubric agree with people better than METEOR? (a paired permutation test on Kendall tau-b)
    meteor = {(r["sample_id"], r["turn"]): r["meteor"] for r in read_scores(scored_run) if r.get("level") == "turn"}
    c = out["comparison"]
    assert (c["metric_a"], c["metric_b"], c["n"], c["method"]) == ("rubric:score_released", "lexical:meteor", len(keys), "kendall")
    assert c["r_a"] == pytest.approx(stats.kendalltau(xs, ys, variant="b")[0])
    assert c["r_b"] == pytest.approx(stats.kendalltau([meteor[k] for k in keys], ys, variant="b")[0])
    assert c["difference"] == pytest.approx(c["r_a"] - c["r_b"]) and 0 < c["p_permutation"] <= 1
    text = invoke("meta", scored_run, "--human", human_file, "--metric", "rubric", "--permutations", "200",
                  "--compare", "rubric,lexical:meteor")  # fmt: skip
    assert text.exit_code == 0 and "kendall" in text.stdout and f"n={len(keys)}" in text.stdout
    assert f"rubric:score_released vs lexical:meteor on {len(keys)} items: Kendall tau-b" in text.stdout
    bad = invoke("meta", scored_run, "--human", human_file, "--compare", "rubric")
    assert bad.exit_code == 2 and "--compare takes two metrics" in bad.stderr


def test_meta_reads_vdact_turn_ids_and_rejects_bad_files(tmp_path):
    from staragent.bench.agents import make_agent
    from staragent.bench.kinds import load_dataset

    rows = [
        {
            "id": f"d{i}_{t}",
            "dial_id": f"scn{i}01",
            "turn_num": t,
            "question": f"q{t}",
            "ref_answer": f"the man holds a towel {t}",
            "gen_answer": "the man holds a towel" if t % 2 else "a dog runs",
        }
        for i in range(2)
        for t in range(3)
    ]
    (tmp_path / "results").mkdir()
    path = tmp_path / "results" / "m.json"
    path.write_text(json.dumps(rows))
    run_benchmark(load_dataset(f"vdact:{path}"), make_agent("replay"), tmp_path / "run")
    assert invoke("score", tmp_path / "run", "--judge", "heuristic", "--metrics", "lexical").exit_code == 0
    human = tmp_path / "human.jsonl"
    human.write_text(
        "".join(json.dumps({"turn_id": r["id"], "score": 3 if r["turn_num"] % 2 else 1}) + "\n" for r in rows)
    )
    r = invoke("meta", tmp_path / "run", "--human", human, "--permutations", "100", "--json")
    assert r.exit_code == 0, r.output
    m = json.loads(r.stdout)["metrics"]["lexical:rouge_l"]
    assert m["n"] == 6 and m["kendall"]["r"] > 0.5
    assert (
        m["kendall"]["se_clustered"] is not None and m["metric_mean"]["clusters"] == 2
    )  # two scenarios, two videos
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"sample_id": "scn100", "score": "good"}]))
    r = invoke("meta", tmp_path / "run", "--human", bad)
    assert r.exit_code == 2 and "not a number" in r.stderr
    r = invoke("meta", tmp_path / "run", "--human", human, "--metric", "bleurt")
    assert r.exit_code == 2 and "unknown metric" in r.stderr


def test_validate_judge_separates_paraphrases_from_random_answers(facts_file, tmp_path):
    def validate(*args):
        return invoke("validate-judge", facts_file, "--cache-dir", tmp_path / "cache", *args)

    out = tmp_path / "validation.json"
    r = validate("--judge", "scripted", "--limit", "8", "--seed", "3", "--out", out)
    assert r.exit_code == 0, r.output
    result = json.loads(out.read_text())
    assert result["metric"] == "lave" and result["n"] == 8 and result["skipped"] == 0
    assert result["reference"]["mean"] == 100.0  # the scripted judge rates its own reference right
    assert all(i != j for i, j in zip(result["items"], result["random_partner"], strict=True))
    assert len(result["random"]["scores"]) == len(result["paraphrase"]["scores"]) == 8
    assert "paraphrase - random" in r.stdout
    again = validate("--judge", "scripted", "--limit", "8", "--seed", "3", "--json")
    assert json.loads(again.stdout)["random_partner"] == result["random_partner"]  # seeded
    r = validate("--judge", "heuristic", "--limit", "4")
    assert r.exit_code == 2 and "--paraphraser" in r.stderr
    r = validate("--judge", "heuristic", "--paraphraser", "scripted", "--limit", "6", "--json")
    assert r.exit_code == 0, r.output
    rubric = json.loads(r.stdout)
    # the rubric names each answer's key facts: another turn's reference misses them, a paraphrase keeps them
    assert rubric["metric"] == "rubric" and rubric["reference"]["mean"] == 100.0 == rubric["paraphrase"]["mean"]
    assert rubric["random"]["mean"] < 50 and rubric["auc"] > 0.8 and rubric["gap"] > 50


def test_validate_judge_and_compare_pin_the_judge_like_score(facts_file, tmp_path):
    from staragent.bench.agents import make_agent
    from staragent.bench.execution import run_benchmark
    from staragent.datagen.synthetic import load_synthetic

    pinned = ("--judge", "scripted", "--judge-revision", "r9", "--cache-dir", tmp_path / "judge-cache")
    r = invoke("validate-judge", facts_file, *pinned, "--limit", "4", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["judge"]["revision"] == "r9"
    cached = set((tmp_path / "judge-cache").rglob("*.json"))
    assert cached
    ds = load_synthetic(facts_file).select(limit=2)
    run_benchmark(ds, make_agent("scripted"), tmp_path / "a")
    run_benchmark(ds, make_agent("echo"), tmp_path / "b")
    r = invoke("compare", tmp_path / "a", tmp_path / "b", *pinned, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["judge"]["revision"] == "r9"
    assert set((tmp_path / "judge-cache").rglob("*.json")) > cached  # the battles went to the same cache
