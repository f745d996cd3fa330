"""Run comparison on common turns only (fingerprints checked), its HTML with Bradley-Terry ratings,
and the charts and intervals of a VDAct-style report."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from staragent.bench.agents import ScriptedAgent, make_agent
from staragent.bench.commands import bench
from staragent.bench.compare import compare_runs
from staragent.bench.execution import run_benchmark
from staragent.bench.judges import make_judge
from staragent.bench.kinds import load_dataset
from staragent.bench.scoring import score_run
from staragent.datagen.synthetic import load_synthetic


def invoke(*args):
    return CliRunner().invoke(bench, [str(a) for a in args])


def test_compare_warns_about_other_samples_and_compares_common_turns_only(facts_file, tmp_path):
    ds = load_synthetic(facts_file)
    full, part, mine = tmp_path / "full", tmp_path / "part", tmp_path / "mine"
    run_benchmark(ds.select(limit=8), make_agent("scripted"), full)
    changed = ds.select(limit=6)
    changed.samples[5] = changed.samples[5].model_copy(update={"scenario": "another version of the sample"})
    run_benchmark(changed, make_agent("echo"), part)
    common_ids = [s.sample_id for s in ds.samples[:5]]
    run_benchmark(
        ds.select(common_ids), make_agent("scripted"), mine
    )  # what the full run answered on those turns
    for run in (full, part, mine):
        score_run(run, make_judge("heuristic"), ["rubric", "lexical"])
    result = compare_runs([full, part])
    turns = sum(len(s.qa_turns()) for s in ds.samples[:5])
    assert result["common_turns"] == turns and result["turns"] == [
        sum(len(s.qa_turns()) for s in ds.samples[:8]),
        turns + len(changed.samples[5].qa_turns()),
    ]
    assert any("different datasets or samples" in w for w in result["warnings"])
    assert any(f"only the {turns} turns common" in w for w in result["warnings"])
    expected = compare_runs([mine, mine])["metrics"][0]
    assert result["metrics"][0]["rubric"]["released"]["overall"] == pytest.approx(
        expected["rubric"]["released"]["overall"]
    )
    assert result["metrics"][0]["lexical"]["n"] == turns == result["pairs"][0]["common_turns"]
    assert compare_runs([mine, mine])["warnings"] == []
    r = invoke("compare", full, part, "--out", tmp_path / "cmp")
    assert r.exit_code == 0 and "warning: the runs used different datasets" in r.stderr
    assert "Warning:" in (tmp_path / "cmp" / "compare.md").read_text()
    assert 'class="warning"' in (tmp_path / "cmp" / "compare.html").read_text()


def test_compare_html_shows_bradley_terry_ratings_with_intervals(facts_file, tmp_path):
    ds = load_synthetic(facts_file).select(limit=6)
    runs = []
    for name, agent in (
        ("oracle", make_agent("scripted")),
        ("echo", make_agent("echo")),
        ("short", ScriptedAgent(lambda q, h, s, t: "Yes.", name="short")),
    ):
        run_benchmark(ds, agent, tmp_path / name)
        runs.append(tmp_path / name)
    r = invoke("compare", *runs, "--judge", "scripted", "--out", tmp_path / "cmp")
    assert r.exit_code == 0, r.output
    page = (tmp_path / "cmp" / "compare.html").read_text()
    result = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert "Bradley-Terry rating with 95% interval" in page and page.count("<circle") == 3
    for name, rating in result["ratings"].items():
        assert f"[{rating['lower']:.1f}, {rating['upper']:.1f}]" in page and name in page


def test_vdact_report_has_charts_and_video_clustered_intervals(tmp_path):
    rows = [
        {
            "id": f"{d}_{t}",
            "dial_id": d,
            "turn_num": t,
            "question": f"What happens in step {t}?",
            "ref_answer": f"The man wipes the table in step {t}.",
            "gen_answer": g,
        }
        for d in ("scn101", "scn201", "scn301")
        for t, g in ((1, "The man wipes the table."), (2, "A dog barks."))
    ]
    (tmp_path / "results").mkdir()
    path = tmp_path / "results" / "m.json"
    path.write_text(json.dumps(rows))
    run_benchmark(load_dataset(f"vdact:{path}"), make_agent("replay"), tmp_path / "run")
    assert (
        invoke("score", tmp_path / "run", "--judge", "scripted", "--cache-dir", tmp_path / "c").exit_code == 0
    )
    assert invoke("report", tmp_path / "run").exit_code == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    for metric in ("vdeval", "lave"):
        m = summary["metrics"][metric]
        assert (
            m["score_ci"]["clusters"] == 3 and m["score_ci"]["lower"] <= m["score"] <= m["score_ci"]["upper"]
        )
    lexical = summary["metrics"]["lexical"]
    assert lexical["rouge_l_ci"]["lower"] <= lexical["rouge_l"] <= lexical["rouge_l_ci"]["upper"]
    page = (tmp_path / "run" / "report.html").read_text()
    assert "Scores (%) with 95% intervals" in page and "Share of ratings" in page and page.count("<svg") >= 2
    ci = summary["metrics"]["vdeval"]["score_ci"]
    assert f"[{ci['lower']:.1f}, {ci['upper']:.1f}]" in page
    assert "<h2>VDEval (session-based, with summary)</h2>" in page and "<h3></h3>" not in page
    # no rubric here, so no table with the STARBench paper's reference columns, and no note about them
    assert "Reference columns" not in (tmp_path / "run" / "report.md").read_text()


def test_report_takes_the_judge_scored_last_even_within_the_same_second():
    from staragent.bench.report import latest_rows

    stamp = "2025-01-01T00:00:00+00:00"
    rows = [{"metric": "rubric", "judge_tag": "a", "scored_at": stamp, "n": 1},
            {"metric": "rubric", "judge_tag": "b", "scored_at": stamp, "n": 2}]
    assert latest_rows(rows)["rubric"][0]["judge_tag"] == "b"
    assert latest_rows(rows[::-1])["rubric"][0]["judge_tag"] == "a"
    assert latest_rows([{**rows[0], "scored_at": "2025-01-02T00:00:00+00:00"}, rows[1]])["rubric"][0]["judge_tag"] == "a"


def test_compare_refuses_scores_of_different_judges_unless_told(facts_file, tmp_path):
    ds = load_synthetic(facts_file).select(limit=4)
    a, b = tmp_path / "a", tmp_path / "b"
    run_benchmark(ds, make_agent("scripted"), a)
    run_benchmark(ds, make_agent("echo"), b)
    heuristic = make_judge("heuristic")
    for run in (a, b):
        score_run(run, heuristic, ["rubric"])
    score_run(a, make_judge("scripted", cache_dir=tmp_path / "c"), ["rubric"])  # a's latest rubric judge

    r = invoke("compare", a, b)
    assert r.exit_code == 2
    assert "the rubric scores come from different judges (scripted:a: SCRIPTED scripted-judge @ 1, " \
           "echo:b: HEURISTIC heuristic-keyfacts @ 1)" in r.stderr and "--allow-mixed-judges" in r.stderr  # fmt: skip

    r = invoke("compare", a, b, "--allow-mixed-judges", "--out", tmp_path / "mixed")
    assert r.exit_code == 0 and "warning: the rubric scores come from different judges" in r.stderr
    mixed = json.loads((tmp_path / "mixed" / "compare.json").read_text())
    assert mixed["mixed_judges"] and mixed["pairs"][0]["judges"] == [
        make_judge("scripted").identity.tag, heuristic.identity.tag
    ]
    md = (tmp_path / "mixed" / "compare.md").read_text()
    assert "| rubric | SCRIPTED scripted-judge @ 1 | HEURISTIC heuristic-keyfacts @ 1 |" in md
    assert "<td>SCRIPTED scripted-judge @ 1</td>" in (tmp_path / "mixed" / "compare.html").read_text()

    r = invoke("compare", a, b, "--judge-tag", heuristic.identity.tag, "--json")
    assert r.exit_code == 0 and r.stderr == ""
    same = json.loads(r.stdout)
    assert not same["mixed_judges"] and same["warnings"] == []
    assert [j["rubric"]["kind"] for j in same["run_judges"]] == ["heuristic", "heuristic"]
    expected = compare_runs([a, a], judge_tag=heuristic.identity.tag)["metrics"][0]["rubric"]["released"]["overall"]
    assert same["metrics"][0]["rubric"]["released"]["overall"] == expected

    r = invoke("compare", a, b, "--judge-tag", make_judge("scripted").identity.tag)
    assert r.exit_code == 0 and "echo:b has no scores by judge" in r.stderr
