"""The dataset pipeline with the real local LLM: `staragent llm serve` (llama.cpp and the bundled GGUF
model) writes a small dataset about a generated video, and `bench run` + `bench score` read it.

Skipped, saying why, where the runtime (llama-cpp-python), the `llm serve` command or a bundled model
is missing. It takes minutes on a CPU: the writer is a 1.5B model generating a few hundred tokens per
call."""

from __future__ import annotations

import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
SERVE_TIMEOUT_S = 300


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def local_llm(tmp_path_factory):
    """``(base_url, model_id)`` of a running `staragent llm serve`, stopped after the module."""
    pytest.importorskip("llama_cpp", reason="the local LLM runtime (llama-cpp-python) is not installed")
    from staragent.cli import main

    if "llm" not in main.commands:
        pytest.skip("this staragent has no `llm serve` command")
    cache = tmp_path_factory.mktemp("llm-cache")
    env = {**os.environ, "STARAGENT_CACHE_DIR": os.environ.get("STARAGENT_LLM_CACHE", str(cache))}
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "staragent", "llm", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    url = model_id = None
    output: list[str] = []
    deadline = time.monotonic() + SERVE_TIMEOUT_S
    while time.monotonic() < deadline and (url is None or model_id is None):
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            if proc.poll() is not None:
                break
            continue
        output.append(line)
        if m := re.search(r"serving .* at (http://\S+)", line):
            url = m.group(1)
        if m := re.search(r"model id: (\S+)", line):
            model_id = m.group(1)
    if url is None or model_id is None:
        proc.terminate()
        proc.wait(timeout=30)
        pytest.skip("`staragent llm serve` did not start (no bundled model installed?): " + "".join(output)[-400:])
    yield url.rstrip("/"), model_id
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_the_local_llm_writes_a_dataset_that_bench_runs_and_scores(local_llm, foreign, session_cache, tmp_path, monkeypatch):
    from staragent.bench.cli import bench
    from staragent.bench.datagen import Options, generate
    from staragent.bench.datagen.finalize import finalize
    from staragent.bench.datasets import load_dataset
    from staragent.config import load_settings

    url, model_id = local_llm
    monkeypatch.setenv("STARAGENT_PLANNER__BASE_URL", url)
    settings = load_settings(profile="openai", cache_dir=session_cache, progress=False)
    out = tmp_path / "llm-dataset"
    options = Options(model=f"openai:{model_id}", per_video=3, max_scenarios=2)
    results = generate([foreign.path], out, options, settings)
    assert results[0].ok, results[0].error
    usage = results[0].usage
    assert usage["questions"]["calls"] >= 3 and usage["questions"]["input_tokens"] > 0  # counted by the server
    assert not usage["questions"]["estimated_tokens"]
    summary = finalize(out, review=True)
    rows = json.loads((out / "videos" / Path(results[0].directory).name / "samples.json").read_text())["samples"]
    assert rows, "the writer produced no sample at all"
    if summary["samples"] == 0:  # every sample failed its checks: nothing to run, but each says why
        assert all(r["meta"]["checks"] for r in rows)
        pytest.skip(f"the small model's samples all failed the automatic checks: {summary['errors']}")
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
