"""The real local LLM for tests marked ``llm``: `staragent llm serve` with the bundled
Qwen2.5-Coder-1.5B-Instruct, started once per test session (see the ``llm_server`` fixture in
conftest.py) and shared by every test that talks to it.

Without the ``llm`` extra those tests skip, unless ``STARAGENT_REQUIRE_LLM=1`` (as `make test-llm` and
`.ci/run` set), where a missing runtime or model is a failure."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REQUIRED = os.environ.get("STARAGENT_REQUIRE_LLM") == "1"  # read at import, before conftest clears STARAGENT_*
START_TIMEOUT_S = 1200  # the first start assembles 1.1 GB into the cache


def needs_llm() -> None:
    """Skip (or, where the LLM is required, fail) without llama-cpp-python or the bundled model."""
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


def staragent(*args: str) -> list[str]:
    return [sys.executable, "-m", "staragent", *args]


def serve(cache: Path) -> Iterator[dict]:
    """`staragent llm serve` on a free port until the generator is closed, then stopped with SIGTERM,
    which must be clean. Yields ``{"url", "model", "port", "proc"}``."""
    needs_llm()
    port = free_port()
    proc = subprocess.Popen(staragent("--cache-dir", str(cache), "llm", "serve", "--port", str(port)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + START_TIMEOUT_S
    lines = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            pytest.fail(f"llm serve exited ({proc.wait()}): {proc.stderr.read()}")
        lines.append(line)
        if line.startswith("model id:"):
            break
    url = next(line for line in lines if line.startswith("serving ")).split(" at ")[-1].strip()
    yield {"url": url, "model": lines[-1].split(":", 1)[1].strip(), "port": port, "proc": proc}
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert "server stopped" in proc.stderr.read()
