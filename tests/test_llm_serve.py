"""The real LLM: `staragent llm serve` with the bundled Qwen2.5-Coder-1.5B-Instruct, asked about a
generated video through `--profile openai`, and the server's own start, faults and shutdown.

Marked ``llm``: `make test-llm` (and `.ci/run`) runs these after installing the ``llm`` extra; the
everyday suite leaves them out. Without the extra they skip, unless ``STARAGENT_REQUIRE_LLM=1``
(as `make test-llm` sets), where a missing runtime or model is a failure."""

import json
import os
import subprocess

import pytest
from llm_server import free_port, needs_llm, staragent

pytestmark = pytest.mark.llm


def test_the_server_prints_its_url_and_model(llm_server):
    assert llm_server["url"] == f"http://127.0.0.1:{llm_server['port']}/v1" and llm_server["model"] == "qwen2.5-coder-1.5b-instruct"


def test_the_agent_searches_then_states_the_fact_with_its_span(llm_server, llm_cache, tmp_path):
    from staragent.samples import generate_sample_video
    from staragent.schema import Answer

    video = tmp_path / "talk.mp4"
    script = generate_sample_video(video, minutes=1.0, seed=11)
    fact = next(f for f in script.facts if f.modality == "ocr" and f.kind == "lookup")
    env = {**os.environ, "STARAGENT_PLANNER__BASE_URL": llm_server["url"]}
    done = subprocess.run(staragent("--profile", "openai", "--cache-dir", str(llm_cache), "--quiet", "ask", str(video), fact.question, "--json"),
                          capture_output=True, text=True, env=env, timeout=1200)
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply["trajectory"] and reply["trajectory"][0]["tool"] == "cross_modal_search"
    assert fact.stated_by(Answer(answer=reply["answer"], evidence=reply["evidence"])), reply  # its keywords, and evidence in its span


def test_a_second_server_on_the_same_port_is_refused(llm_server, llm_cache):
    done = subprocess.run(staragent("--cache-dir", str(llm_cache), "llm", "serve", "--port", str(llm_server["port"])), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "already in use" in done.stderr and "Traceback" not in done.stderr


def test_a_damaged_model_file_is_one_clear_error(tmp_path):
    needs_llm()
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 4096)
    done = subprocess.run(staragent("--cache-dir", str(tmp_path), "llm", "serve", "--model", str(broken), "--port", str(free_port())),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "could not load" in done.stderr and "Traceback" not in done.stderr
