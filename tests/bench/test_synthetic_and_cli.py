"""The offline benchmark end to end (build -> run -> score -> report) and the CLI's error handling."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from staragent.bench import tasks as tk
from staragent.bench.commands import bench
from staragent.bench.kinds import load_dataset
from staragent.bench.scorers.trajectory import safe_eval
from staragent.datagen.synthetic import build_samples
from staragent.timecodes import parse_range

CLOCK_RANGE = re.compile(r"^\d{2}:\d{2}:\d{2}-\d{2}:\d{2}:\d{2}$")


def invoke(*args):
    result = CliRunner().invoke(bench, [str(a) for a in args])
    return result


def test_samples_from_a_script(script):
    samples = build_samples(script)
    ids = [s.sample_id for s in samples]
    assert len(ids) == len(set(ids))
    single = [s for s in samples if s.sample_type == "single_turn" and not s.is_agentic]
    assert len(single) == len(script.facts)
    multi = [s for s in samples if s.sample_type == "multi_turn"]
    assert multi and all(2 <= len(s.qa_turns()) <= 3 for s in multi)
    for s in samples:
        assert tk.canonical_task(s.task) in tk.CANONICAL_TASKS, s.task
        for pair in s.qa_turns():
            cats = [c.category for c in pair.answer.criteria]
            assert "high_priority" in cats and cats.count("penalty") >= 1 and len(cats) <= 5
    total = next(s for s in samples if s.sample_id == "ag-total-price")
    calls = total.qa_turns()[0].expected_tool_calls
    assert [c.tool for c in calls] == ["cross_modal_search", "extract_scene_text", "cross_modal_search",
                                       "extract_scene_text", "calculator"]  # fmt: skip
    for c in calls:
        if "timestamp" in c.parameters:
            assert CLOCK_RANGE.match(c.parameters["timestamp"])
            start, end = parse_range(c.parameters["timestamp"])
            assert start < end
    priced = []
    for f in script.facts:  # the first two on-screen "Price:" lines of two different things
        if f.modality == "ocr" and f.kind == "lookup" and f.text.startswith("Price: $") and f.topic not in {p.topic for p in priced}:
            priced.append(f)
    priced = priced[:2]
    expected = sum(float(re.search(r"\$([\d,.]+)", f.text)[1].replace(",", "")) for f in priced)
    assert safe_eval(calls[-1].parameters["expression"]) == pytest.approx(expected)
    stated = re.search(r"\$([\d,]+(?:\.\d+)?)", total.qa_turns()[0].answer.content)[1]
    assert float(stated.replace(",", "")) == pytest.approx(expected)
    assert tk.canonical_task(total.task) == "quantitative_reasoning"
    speech = next(s for s in samples if s.sample_id.startswith("ag-speech"))
    assert [c.tool for c in speech.qa_turns()[0].expected_tool_calls] == ["cross_modal_search", "transcribe_speech"]


def test_criteria_name_whole_facts_and_near_misses_fail_them():
    from staragent.bench.judges import HeuristicJudge
    from staragent.datagen.synthetic import fact_criteria

    def descriptions(answer, keywords):
        fact = {"answer": answer, "keywords": keywords, "start": 40.0}
        return [c.description for c in fact_criteria(fact) if not c.is_penalty]

    dated = fact_criteria({"answer": "3 January 2027", "keywords": ["3", "January"], "start": 40.0})
    assert dated[0].description == 'Must mention "3 January 2027"' and dated[0].category == "high_priority"
    assert descriptions("28 December", ["28", "December"])[0] == 'Must mention "28 December"'
    assert descriptions("6 hours", ["6"])[0] == 'Must mention "6 hours"'
    assert descriptions("$1,299", ["1,299"])[0] == 'Must mention "$1,299"'
    assert descriptions("Bruno Ortega", ["Ortega"])[0] == 'Must mention "Ortega"'
    judge = HeuristicJudge()

    def met(answer):
        return judge.check_criterion(question="q", reference="r", answer=answer, criterion=dated[0]).value["criteria_met"]

    assert not met("Room 3, on 5 March.") and met("On 3 January 2027.")


def _price_value(line):
    match = re.fullmatch(r"Price: \$([\d,]+(?:\.\d+)?)( million)?", line)
    assert match, f"{line!r} is not a price line"
    return float(match[1].replace(",", "")) * (1e6 if match[2] else 1)


def test_total_price_references_add_two_real_prices_across_seeds():
    from staragent.samples import build_script

    checked = 0
    for seed in range(12):
        samples = {s.sample_id: s for s in build_samples(build_script(4.0, seed=seed, tts=False))}
        if "ag-total-price" not in samples:
            continue
        pair = samples["ag-total-price"].qa_turns()[0]
        shown = [c.expected_response["texts"][0] for c in pair.expected_tool_calls if c.tool == "extract_scene_text"]
        expected = sum(_price_value(line) for line in shown)
        stated = re.search(r"cost \$([\d,]+(?:\.\d+)?)", pair.answer.content)[1]
        assert float(stated.replace(",", "")) == pytest.approx(expected), (seed, pair.answer.content, shown)
        assert safe_eval(pair.expected_tool_calls[-1].parameters["expression"]) == pytest.approx(expected)
        checked += 1
    assert checked >= 6  # most 4-minute talks show two priced items


def test_prices_keep_their_magnitude_and_other_money_is_not_a_price():
    def fact(i, text):
        return {
            "id": f"f{i}",
            "modality": "ocr",
            "kind": "lookup",
            "start": 10.0 * i,
            "end": 10.0 * i + 8,
            "text": text,
            "topic": f"item {i}",
            "question": f"What about item {i}?",
            "answer": text.split(": ")[1],
            "keywords": [],
        }

    lines = ["Revenue: $7.3 million", "Price: $2.5 million", "Basic plan: $17 a month", "Regular price: $440", "Price: $1.25 million"]
    script = {"seed": 0, "minutes": 1, "duration": 60.0, "slides": [], "facts": [fact(i, t) for i, t in enumerate(lines, 1)]}
    total = next(s for s in build_samples(script) if s.sample_id == "ag-total-price").qa_turns()[0]
    assert total.answer.content.startswith("Together they cost $3.75 million: $2.5 million for the item 2 and $1.25 million")
    assert safe_eval(total.expected_tool_calls[-1].parameters["expression"]) == pytest.approx(3.75)


def test_build_command_and_loading(facts_file, tmp_path):
    (facts_file.parent / "talk.mp4").write_bytes(b"not really a video")
    out = tmp_path / "bench.json"
    result = invoke("build", "--script", facts_file, "--out", out)
    assert result.exit_code == 0, result.output
    ds = load_dataset(out)
    assert ds.kind == "starbench" and len(ds.samples) == len(load_dataset(facts_file).samples)
    assert all(s.video_path and s.video_path.endswith("talk.mp4") for s in ds.samples)


def test_offline_benchmark_end_to_end(facts_file, tmp_path):
    oracle, echo = tmp_path / "oracle", tmp_path / "echo"
    r = invoke("run", facts_file, "--agent", "scripted", "--out", oracle, "--simulated-tools", "--workers", "2")
    assert r.exit_code == 0, r.output
    assert invoke("run", facts_file, "--agent", "echo", "--out", echo).exit_code == 0
    scores = {}
    for run in (oracle, echo):
        r = invoke("score", run, "--judge", "heuristic", "--json", "--cache-dir", tmp_path / "cache")
        assert r.exit_code == 0, r.output
        scores[run.name] = json.loads(r.stdout)
        assert (run / "scores.jsonl").is_file()
    o, e = scores["oracle"]["metrics"], scores["echo"]["metrics"]
    assert scores["oracle"]["judge"]["kind"] == "heuristic"
    assert o["rubric"]["released"]["overall"] == 100.0 and o["trajectory"]["score"] == 100.0
    assert e["rubric"]["released"]["overall"] < 50 and e["trajectory"]["tool_recall"] == 0.0
    assert e["rubric"]["paper"]["overall"] <= e["rubric"]["released"]["overall"]
    # re-score with another judge: the heuristic rows stay, the scripted ones are added
    r = invoke("score", oracle, "--judge", "scripted", "--metrics", "rubric", "--cache-dir", tmp_path / "cache")
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in (oracle / "scores.jsonl").read_text().splitlines()]
    tags = {(row["metric"], row["judge_tag"]) for row in rows}
    assert ("rubric", "heuristic-keyfacts-1") in tags and ("rubric", "scripted-judge-1-temperature0.0") in tags
    assert all(row["judge"]["kind"] in ("heuristic", "scripted") for row in rows if row["metric"] == "rubric")
    r = invoke("report", oracle)
    assert r.exit_code == 0, r.output
    md = (oracle / "report.md").read_text()
    html = (oracle / "report.html").read_text()
    summary = json.loads((oracle / "summary.json").read_text())
    assert "STARAgent (paper)" in md and "released" in md and "SCRIPTED stand-in judge" in md
    assert "<svg" in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "_Reference columns: " in md and "<h3></h3>" not in html
    assert summary["metrics"]["rubric"]["released"]["overall"] == 100.0
    r = invoke("report", oracle, "--judge-tag", "heuristic-keyfacts-1", "--json")
    assert r.exit_code == 0 and "HEURISTIC" not in r.stdout  # the label is in the markdown, not the JSON
    assert json.loads(r.stdout)["judges"]["rubric"]["kind"] == "heuristic"
    assert "HEURISTIC key-fact matcher" in (oracle / "report.md").read_text()
    # the oracle's latest rubric judge is the scripted one, the echo run's the heuristic: compare one judge
    r = invoke("compare", oracle, echo, "--judge-tag", "heuristic-keyfacts-1", "--judge", "scripted", "--out", tmp_path / "cmp")
    assert r.exit_code == 0, r.output
    assert "Bradley-Terry" in r.stdout and (tmp_path / "cmp" / "compare.json").is_file()
    cmp = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    ratings = cmp["ratings"]
    oracle_name = next(n for n in ratings if n.startswith("scripted"))
    echo_name = next(n for n in ratings if n.startswith("echo"))
    assert ratings[oracle_name]["rating"] > ratings[echo_name]["rating"]
    assert cmp["pairs"][0]["mean_difference"] < 0  # echo (B) scores below the oracle (A)


def test_score_prints_a_line_per_metric_and_says_when_one_does_not_apply(facts_file, tmp_path):
    run = tmp_path / "run"
    assert invoke("run", facts_file, "--agent", "scripted", "--out", run, "--limit", "4").exit_code == 0
    metrics = "rubric,trajectory,lexical,videoautobench,giraffe"
    r = invoke("score", run, "--judge", "scripted", "--metrics", metrics, "--cache-dir", tmp_path / "c")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[1] == "rubric (4 turns): overall released 100.00%, paper 100.00%; unanswered 0; failed judge calls 0"
    for metric in ("trajectory", "videoautobench", "giraffe"):  # four single-turn samples: nothing for these
        assert f"{metric}: not applicable to this dataset (no turn it can score)" in lines
    assert lines[3].startswith("lexical (4 turns; 0-100): BLEU-4 100.00, ROUGE-L 100.00, METEOR ")
    assert "{" not in r.stdout
    r = invoke("score", run, "--judge", "scripted", "--metrics", metrics, "--cache-dir", tmp_path / "c", "--json")
    summaries = json.loads(r.stdout)["metrics"]
    assert summaries["giraffe"] is None and summaries["videoautobench"] is None and summaries["rubric"]


def test_rows_scored_under_the_old_tag_spelling_stay_readable_and_are_replaced(facts_file, tmp_path):
    run = tmp_path / "run"
    assert invoke("run", facts_file, "--agent", "scripted", "--out", run, "--limit", "3").exit_code == 0
    assert invoke("score", run, "--judge", "heuristic", "--metrics", "rubric").exit_code == 0
    scores = run / "scores.jsonl"
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    scores.write_text("".join(json.dumps({**r, "judge_tag": "heuristic-heuristic-keyfacts-1"}) + "\n" for r in rows))
    for tag in ("heuristic-heuristic-keyfacts-1", "heuristic-keyfacts-1"):
        r = invoke("report", run, "--judge-tag", tag, "--json")
        assert r.exit_code == 0 and json.loads(r.stdout)["metrics"]["rubric"]["released"]["overall"] == 100.0
    assert invoke("score", run, "--judge", "heuristic", "--metrics", "rubric").exit_code == 0
    again = [json.loads(line) for line in scores.read_text().splitlines()]
    assert len(again) == len(rows) and {r["judge_tag"] for r in again} == {"heuristic-keyfacts-1"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "{tmp}/missing", "--judge", "heuristic"], "run directory not found"),
        (["report", "{tmp}/missing"], "run directory not found"),
        (["score", "{run}", "--judge", "heuristic", "--metrics", "bleurt"], "unknown metric bleurt"),
        (["score", "{run}", "--judge", "heuristic", "--metrics", "lave"], "needs a language-model judge"),
        (["run", "{tmp}/nope.json", "--agent", "echo", "--out", "{tmp}/o"], "dataset file not found"),
        (["run", "{bad}", "--agent", "echo", "--out", "{tmp}/o"], "row 1"),
        (["run", "{facts}", "--agent", "profile:local,bogus=1", "--out", "{tmp}/o"], "unknown option"),
        (["compare", "{run}"], "at least two run directories"),
        (["metrics", "{bad}", "--format", "vdact"], "lacks ref_answer"),
        (["videoautobench", "--selected", "{tmp}/a.jsonl", "--rejected", "{tmp}/b.jsonl"], "judgments file not found"),
    ],
)
def test_user_errors_are_one_line_with_exit_code_2(args, message, facts_file, tmp_path):
    run = tmp_path / "run"
    assert invoke("run", facts_file, "--agent", "echo", "--out", run, "--limit", "1").exit_code == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"sample_id": "x", "conversations": [{"role": "narrator", "content": "?"}]}]))
    fill = {"tmp": tmp_path, "run": run, "facts": facts_file, "bad": bad}
    result = invoke(*[a.format(**fill) for a in args])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_demo_prints_the_agentic_score(facts_file, tmp_path):
    from staragent.config import load_settings
    from staragent.demo import _bench

    lines = []
    _bench(facts_file, tmp_path / "run", load_settings(cache_dir=tmp_path / "c", progress=False), 8, lines.append)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    agentic = summary["metrics"]["rubric"]["released"]["agentic"]["score"]
    rubric_line = next(line for line in lines if "rubric, heuristic judge" in line)
    assert f"; agentic {agentic:.1f}" in rubric_line


def test_the_demo_starts_its_benchmark_again_when_an_older_run_is_in_the_way(facts_file, tmp_path):
    from staragent.config import load_settings
    from staragent.demo import _bench

    settings = load_settings(cache_dir=tmp_path / "c", progress=False)
    run = tmp_path / "run"
    assert invoke("run", facts_file, "--agent", "echo", "--out", run, "--limit", "1").exit_code == 0  # another agent's run
    lines = []
    _bench(facts_file, run, settings, 4, lines.append)
    assert any("starting it again" in line for line in lines)
    assert json.loads((run / "run.json").read_text())["agent"]["name"] == "staragent-offline"
