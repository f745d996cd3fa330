"""The real LLM: `staragent llm serve` with the bundled Qwen2.5-Coder-1.5B-Instruct, asked about a
generated video through `--profile openai`, and the server's own start, faults and shutdown.

Marked ``llm``: `make test-llm` (and `.ci/run`) runs these after installing the ``llm`` extra; the
everyday suite leaves them out. Without the extra they skip, unless ``STARAGENT_REQUIRE_LLM=1``
(as `make test-llm` sets), where a missing runtime or model is a failure."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.llm
REQUIRED = os.environ.get("STARAGENT_REQUIRE_LLM") == "1"  # read before conftest clears STARAGENT_*


def _needs_llm():
    import importlib.util

    from staragent.models.bundled import QWEN_CODER_1_5B

    problems = []
    if importlib.util.find_spec("llama_cpp") is None:
        problems.append("llama-cpp-python is not installed")
    if QWEN_CODER_1_5B.missing():
        problems.append("the qwen2.5-coder-1.5b-instruct pack is not installed")
    if problems:
        why = "; ".join(problems) + ": pip install 'staragent[llm]'"
        if REQUIRED:
            pytest.fail(why)
        pytest.skip(why)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def staragent(*args):
    return [sys.executable, "-m", "staragent", *args]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("llm-cache")


@pytest.fixture(scope="module")
def server(cache):
    """`staragent llm serve` on a free port; stopped with SIGTERM at the end, which must be clean."""
    _needs_llm()
    port = free_port()
    proc = subprocess.Popen(staragent("--cache-dir", str(cache), "llm", "serve", "--port", str(port)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 1200  # the first start assembles 1.1 GB into the cache
    lines = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            pytest.fail(f"llm serve exited ({proc.wait()}): {proc.stderr.read()}")
        lines.append(line)
        if line.startswith("model id:"):
            break
    url = lines[0].split(" at ")[-1].strip()
    yield {"url": url, "model": lines[-1].split(":", 1)[1].strip(), "port": port, "proc": proc}
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert "server stopped" in proc.stderr.read()


def test_the_server_prints_its_url_and_model(server):
    assert server["url"] == f"http://127.0.0.1:{server['port']}/v1" and server["model"] == "qwen2.5-coder-1.5b-instruct"


def test_the_agent_searches_then_states_the_fact_with_its_span(server, cache, tmp_path):
    from staragent.samples import generate_sample_video
    from staragent.schema import Answer

    video = tmp_path / "talk.mp4"
    script = generate_sample_video(video, minutes=1.0, seed=11)
    fact = next(f for f in script.facts if f.modality == "ocr" and f.kind == "lookup")
    env = {**os.environ, "STARAGENT_PLANNER__BASE_URL": server["url"]}
    done = subprocess.run(staragent("--profile", "openai", "--cache-dir", str(cache), "--quiet", "ask", str(video), fact.question, "--json"),
                          capture_output=True, text=True, env=env, timeout=1200)
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply["trajectory"] and reply["trajectory"][0]["tool"] == "cross_modal_search"
    assert fact.stated_by(Answer(answer=reply["answer"], evidence=reply["evidence"])), reply  # its keywords, and evidence in its span


def test_a_second_server_on_the_same_port_is_refused(server, cache):
    done = subprocess.run(staragent("--cache-dir", str(cache), "llm", "serve", "--port", str(server["port"])), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "already in use" in done.stderr and "Traceback" not in done.stderr


def test_a_damaged_model_file_is_one_clear_error(tmp_path):
    _needs_llm()
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 4096)
    done = subprocess.run(staragent("--cache-dir", str(tmp_path), "llm", "serve", "--model", str(broken), "--port", str(free_port())),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "could not load" in done.stderr and "Traceback" not in done.stderr
