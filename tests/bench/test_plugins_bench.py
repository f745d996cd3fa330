"""Extending the harness without touching it: a scorer from a tiny third-party package, registered
under the ``staragent.scorers`` entry-point group, is run by ``bench score`` and shows in the report and
in ``compare``; a new dataset kind is one module, registered under ``staragent.tasks``, whose task
brings its loader, its default scorers and its default agent."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap

import pytest
from click.testing import CliRunner

from staragent.bench import kinds
from staragent.bench.commands import bench
from staragent.bench.scorers import registry

SCORER_MODULE = '''
"""A third-party scorer: the share of the reference's words the answer repeats."""
from staragent.bench.scorers.scorer import Headline, Scorer, Section


def run(judge, units, workers):
    rows = []
    for unit in units:
        if unit.skip_reason:
            rows.append({"metric": "echo_overlap", **unit.describe(), "skipped": unit.skip_reason})
            continue
        said = set(unit.answer.lower().split())
        wanted = set(unit.reference.lower().split()) or {""}
        rows.append({"metric": "echo_overlap", **unit.describe(), "score": 100.0 * len(said & wanted) / len(wanted)})
    return rows


def summarise(rows):
    done = [r["score"] for r in rows if not r.get("skipped")]
    return {"turns": len(done), "overlap": sum(done) / len(done) if done else None}


SCORER = Scorer(
    name="echo_overlap",
    title="Echo overlap (plug-in)",
    run=run,
    summarise=summarise,
    headlines=(Headline("echo overlap", "overlap"),),
    lines=lambda s: [f"echo_overlap ({s['turns']} turns): {s['overlap']:.1f}% of the reference's words"],
)
'''

TASK_MODULE = '''
"""A third-party dataset kind: rows of {"ask", "expect"} pairs."""
from staragent.bench.kinds.task import AgentDefaults, Task
from staragent.bench.sample_records import Dataset, Sample


def load_rows(rows, path, name=None, **_):
    samples = [
        Sample.model_validate({"sample_id": f"q{i}", "video_id": "", "task": "question_answering", "conversations": [
            {"role": "user", "content": row["ask"]}, {"role": "assistant", "content": row["expect"]}]})
        for i, row in enumerate(rows)
    ]
    return Dataset(name or path.stem, "tinyqa", str(path), samples)


TASK = Task(
    kind="tinyqa",
    title="Tiny question set",
    scorers=("echo_overlap", "lexical"),
    load_rows=load_rows,
    agent=AgentDefaults("scripted"),
    matches_row=lambda row: "ask" in row and "expect" in row,
)
'''


@pytest.fixture
def plugin_site(tmp_path_factory, monkeypatch):
    """A site folder holding the package and its dist-info, as pip would install it, put on the path."""
    site = tmp_path_factory.mktemp("site")
    (site / "tiny_bench_plugin").mkdir()
    (site / "tiny_bench_plugin" / "__init__.py").write_text("")
    (site / "tiny_bench_plugin" / "overlap.py").write_text(SCORER_MODULE)
    (site / "tiny_bench_plugin" / "tinyqa.py").write_text(TASK_MODULE)
    info = site / "tiny_bench_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-bench-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""
        [staragent.scorers]
        echo_overlap = tiny_bench_plugin.overlap:SCORER

        [staragent.tasks]
        tinyqa = tiny_bench_plugin.tinyqa:TASK
    """))
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    _forget_plugin()
    yield site
    _forget_plugin()


def _forget_plugin() -> None:
    """Each test imports the package afresh, and the registries look again."""
    for name in [m for m in sys.modules if m.startswith("tiny_bench_plugin")]:
        del sys.modules[name]
    registry.rediscover()
    kinds.rediscover()


def invoke(*args):
    return CliRunner().invoke(bench, [str(a) for a in args], catch_exceptions=False)


def test_a_plugin_scorer_is_run_reported_and_compared(plugin_site, facts_file, tmp_path):
    runs = [tmp_path / "oracle", tmp_path / "echo"]
    for run, agent in zip(runs, ("scripted", "echo"), strict=True):
        assert invoke("run", facts_file, "--agent", agent, "--out", run, "--simulated-tools", "--limit", "4").exit_code == 0
        scored = invoke("score", run, "--judge", "heuristic", "--metrics", "rubric,echo_overlap")
        assert scored.exit_code == 0, scored.output
    assert "echo_overlap (" in scored.output and "of the reference's words" in scored.output
    assert invoke("report", runs[0]).exit_code == 0
    assert "## Echo overlap (plug-in)" in (runs[0] / "report.md").read_text()
    summary = json.loads((runs[0] / "summary.json").read_text())
    assert summary["metrics"]["echo_overlap"]["overlap"] == 100.0  # the oracle repeats the reference
    compared = invoke("compare", *runs, "--json")
    assert compared.exit_code == 0, compared.output
    result = json.loads(compared.output)
    oracle, echo = (m["echo_overlap"]["overlap"] for m in result["metrics"])
    assert oracle == 100.0 and echo < oracle
    invoke("compare", *runs, "--out", tmp_path / "cmp")
    assert "echo_overlap overlap" in (tmp_path / "cmp" / "compare.md").read_text()


def test_a_new_dataset_kind_is_one_registered_module(plugin_site, tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([{"ask": "What colour is the sky?", "expect": "The sky is blue."},
                                {"ask": "How many legs has a cat?", "expect": "A cat has four legs."}]))  # fmt: skip
    ran = invoke("run", data, "--out", tmp_path / "run")  # no --agent: the kind's default agent
    assert ran.exit_code == 0, ran.output
    assert "scripted" in ran.output
    scored = invoke("score", tmp_path / "run", "--json")  # no --metrics, no --judge: the kind's scorers
    assert scored.exit_code == 0, scored.output
    metrics = json.loads(scored.output)["metrics"]
    assert list(metrics) == ["echo_overlap", "lexical"] and metrics["echo_overlap"]["overlap"] == 100.0
    assert invoke("run", f"tinyqa:{data}", "--out", tmp_path / "again").exit_code == 0  # the kind as a prefix too


def test_a_broken_plugin_scorer_is_skipped_with_a_warning(plugin_site, caplog):
    (plugin_site / "tiny_bench_plugin" / "overlap.py").write_text("raise RuntimeError('broken on purpose')\n")
    registry.rediscover()
    with caplog.at_level("WARNING"):
        names = registry.scorer_names()
    assert "echo_overlap" not in names and "rubric" in names
    assert "broken on purpose" in caplog.text
