"""The dataset pipeline with the real local LLM: `staragent llm serve` (llama.cpp and the bundled GGUF
model, the session's ``llm_server`` fixture) writes a small dataset about a generated video, and
`bench run` + `bench score` read it.

Marked ``llm``: `make test-llm` runs it (see tests/llm_server.py); the everyday suite leaves it out.
It takes a few minutes on 2 CPU cores: the writer is a 1.5B model writing a few hundred tokens a call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

pytestmark = pytest.mark.llm


@pytest.mark.timeout(1800)  # a few minutes on 2 idle cores; far more where other work shares them
def test_the_local_llm_writes_a_dataset_that_bench_runs_and_scores(llm_server, foreign, session_cache, tmp_path, monkeypatch):
    from staragent.bench.commands import bench
    from staragent.bench.kinds import load_dataset
    from staragent.config import load_settings
    from staragent.datagen import Options, generate
    from staragent.datagen.finalize import finalize

    monkeypatch.setenv("STARAGENT_PLANNER__BASE_URL", llm_server["url"])
    settings = load_settings(profile="openai", cache_dir=session_cache, progress=False)
    out = tmp_path / "llm-dataset"
    options = Options(model=f"openai:{llm_server['model']}", per_video=2, max_retries=1)
    results = generate([foreign.path], out, options, settings)
    assert results[0].ok, results[0].error
    usage = results[0].usage
    assert usage["drafts"]["calls"] >= 2 and usage["drafts"]["input_tokens"] > 0  # counted by the server
    assert not usage["drafts"]["estimated_tokens"]
    summary = finalize(out, review=True)
    rows = json.loads((out / "videos" / Path(results[0].directory).name / "samples.json").read_text())["samples"]
    assert rows, "the writer produced no sample at all"
    assert summary["samples"] >= 1, f"every sample failed the automatic checks: {summary['errors']}"
    data = load_dataset(out / "dataset.json")
    for sample in data.samples:
        for pair in sample.qa_turns():
            assert pair.answer.evidence and pair.answer.criteria
    run = tmp_path / "run"
    runner = CliRunner()
    ran = runner.invoke(bench, ["run", str(out / "dataset.json"), "--agent", "scripted", "--out", str(run)])
    assert ran.exit_code == 0, ran.output
    scored = runner.invoke(bench, ["score", str(run), "--judge", "heuristic", "--json"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.output)["metrics"]["rubric"]["released"]["turns"] == summary["turns"]
