"""`bench export --format inspect`: a run becomes an inspect_ai eval log that inspect_ai's own reader
opens, with the samples, the agent's answers and tool calls, and each scorer's score and explanation."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from staragent.bench.agents import ScriptedAgent
from staragent.bench.commands import bench
from staragent.bench.execution import run_benchmark
from staragent.bench.kinds import load_dataset


def invoke(*args):
    return CliRunner().invoke(bench, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def scored_run(facts_file, tmp_path):
    run = tmp_path / "run"
    run_benchmark(load_dataset(facts_file), ScriptedAgent(), run, simulated_tools=True)
    assert invoke("score", run, "--judge", "heuristic").exit_code == 0
    return run


def test_the_export_is_an_inspect_log_with_samples_scores_and_explanations(scored_run, tmp_path):
    log_api = pytest.importorskip("inspect_ai.log")
    result = invoke("export", scored_run, "--format", "inspect", "--out", tmp_path / "logs")
    assert result.exit_code == 0, result.output
    [path] = (tmp_path / "logs").glob("*.json")
    log = log_api.read_eval_log(str(path))
    summary = json.loads(invoke("report", scored_run, "--json").output)
    turns = summary["turns"]["done"]
    assert log.status == "success" and len(log.samples) == turns == log.results.total_samples
    by_name = {s.name: s for s in log.results.scores}
    assert set(by_name) == set(summary["metrics"])  # rubric, trajectory and lexical of the synthetic set
    overall = by_name["rubric"].metrics["released.overall"].value
    assert overall == pytest.approx(summary["metrics"]["rubric"]["released"]["overall"])
    rubric_turns = [s for s in log.samples if "rubric" in s.scores]
    assert rubric_turns and all(s.scores["rubric"].value == 100.0 for s in rubric_turns)  # the oracle's answers
    first = rubric_turns[0]
    assert first.scores["rubric"].answer == first.output.completion and first.output.completion
    assert "met" in first.scores["rubric"].explanation  # each criterion's verdict, in words
    assert first.scores["rubric"].metadata["criteria"]  # the judge exchange travels with the score
    assert first.target and first.input[-1].role == "user" and first.input[-1].text
    agentic = [s for s in log.samples if "trajectory" in s.scores]
    assert agentic and any(m.role == "tool" for m in agentic[0].messages)  # the tool calls are in the transcript


def test_the_export_is_written_without_inspect_ai(scored_run, tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_inspect(name, *args, **kwargs):
        if name.startswith("inspect_ai"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_inspect)
    out = tmp_path / "log.json"
    assert invoke("export", scored_run, "--out", out).exit_code == 0
    log = json.loads(out.read_text())
    assert log["version"] == 2 and log["eval"]["task"] == "staragent/synthetic" and log["samples"]
