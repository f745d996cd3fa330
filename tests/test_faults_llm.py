"""The LLM server dies with requests queued. A stand-in server process (tests/llm_standin.py) holds
two questions unanswered and is killed with SIGKILL; the client side is the project's own (the
``openai`` planner under a VideoAgent, as a server holds one). Both questions must end in one clear
error naming the server and how to start it, and the same agent must be answered once a server is
back on the same port. The real `staragent llm serve` must free its port when stopped (marked llm)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from llm_server import free_port, needs_llm, staragent

HERE = Path(__file__).parent
QUESTIONS = ["What does the coffee grinder cost?", "Who is the keynote speaker?"]


def start_standin(port: int, mode: str, requests: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, str(HERE / "llm_standin.py"), str(port), mode, str(requests)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    return process


def wait_for_requests(requests: Path, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if requests.exists() and len(requests.read_text().splitlines()) >= count:
            return
        time.sleep(0.05)
    raise TimeoutError(f"the stand-in server did not get {count} requests")


def test_questions_queued_at_a_killed_llm_server_get_a_clear_error_and_a_restarted_one_answers(foreign, foreign_index, session_cache, tmp_path):
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings
    from staragent.errors import ModelUnavailable

    port, requests = free_port(), tmp_path / "requests"
    url = f"http://127.0.0.1:{port}/v1"
    standin = start_standin(port, "hold", requests)
    settings = load_settings(cache_dir=session_cache, progress=False, profile="openai", planner={"base_url": url})
    try:
        with VideoAgent(settings) as agent:
            agent.session(foreign.path)
            outcomes: dict[str, BaseException | None] = {}

            def ask(question: str) -> None:
                try:
                    agent.ask(foreign.path, question)
                    outcomes[question] = None
                except BaseException as exc:
                    outcomes[question] = exc

            askers = [threading.Thread(target=ask, args=(q,), daemon=True) for q in QUESTIONS]
            for asker in askers:
                asker.start()
            wait_for_requests(requests, 2)  # both questions are at the server, neither answered
            standin.send_signal(signal.SIGKILL)
            standin.wait(10)
            killed_at = time.monotonic()
            for asker in askers:
                asker.join(60)
            assert time.monotonic() - killed_at < 60 and set(outcomes) == set(QUESTIONS)
            for question, outcome in outcomes.items():
                assert isinstance(outcome, ModelUnavailable), f"{question!r}: {outcome!r}"
                assert url in str(outcome) and "staragent llm serve" in str(outcome)  # which server, and how to start one

            standin = start_standin(port, "answer", requests)  # back on the same port
            assert "129.50" in agent.ask(foreign.path, QUESTIONS[0]).answer
    finally:
        standin.kill()
        standin.wait(10)


@pytest.mark.llm
@pytest.mark.slow
def test_the_real_llm_server_frees_its_port_when_stopped(llm_cache):
    needs_llm()
    port = free_port()
    for _ in range(2):  # the second start would be refused ("already in use") if the first held the port
        server = subprocess.Popen(staragent("--cache-dir", str(llm_cache), "llm", "serve", "--port", str(port)),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            lines = []
            for line in server.stdout:  # bounded: the server prints a few lines, then its model id
                lines.append(line)
                if line.startswith("model id:") or len(lines) > 50:
                    break
            assert any(line.startswith("model id:") for line in lines), server.stderr.read() if server.poll() is not None else lines
            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=60) == 0
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
