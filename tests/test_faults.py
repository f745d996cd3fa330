"""Fault injection: the CLI is killed (SIGKILL, or SIGTERM) at named points of ``index``,
``bench run``, ``chat`` and ``execute_code``, then run again. The points come from
``staragent.faults``: the process writes a line at each point it reaches and signals itself at the
one named in STARAGENT_FAULT_KILL, so every kill lands exactly where it is meant to, without timing.
Each case is compared with an uninterrupted run: nothing lost, nothing done twice, nothing left
behind (temporary files, held locks, sandbox processes, control groups), and the next question of a
conversation still works."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from filelock import FileLock

ROOT = Path(__file__).parent.parent
QUESTIONS = ["What is the price of the coffee grinder?", "Who is the keynote speaker?", "What was said right after that?"]


def cli(*args, cache: Path, markers: Path, kill: str | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "STARAGENT_FAULT_MARKERS": str(markers), "PYTHONUNBUFFERED": "1"}  # what was printed before a kill shows
    if kill:
        env["STARAGENT_FAULT_KILL"] = kill
    cmd = [sys.executable, "-m", "staragent", "--quiet", "--cache-dir", str(cache), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, input=stdin, timeout=600)


def reached(markers: Path) -> list[str]:
    return [line.split(" ", 1)[1] for line in markers.read_text().splitlines()] if markers.exists() else []


def assert_free(lock: Path) -> None:
    held = FileLock(str(lock))
    held.acquire(timeout=0)  # raises Timeout if a killed process still held it
    held.release()


# ------------------------------------------------------------------ index


@pytest.mark.parametrize("point", ["index.stage.frames", "index.item.ocr@2", "index.stage.segments"])
def test_an_index_killed_at_any_point_resumes_to_the_same_index(point, foreign, foreign_index, tmp_path):
    from staragent.index.manifest import Manifest

    cache, markers = tmp_path / "cache", tmp_path / "markers"
    killed = cli("index", foreign.path, cache=cache, markers=markers, kill=point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    before = reached(markers)
    resumed = cli("index", foreign.path, cache=cache, markers=markers)
    assert resumed.returncode == 0, resumed.stderr
    after = reached(markers)[len(before):]
    directory = cache / "index" / foreign_index.dir.name
    manifest, expected = Manifest.load(directory), foreign_index.manifest
    # nothing done twice: no stage recorded before the kill ran again, no piece of the OCR pass was read twice
    assert not {m for m in before if m.startswith("index.stage.")} & set(after)
    assert (before + after).count("index.item.ocr") == expected.stages["ocr"].info["pieces"]
    # nothing lost: the same index as a build that was never interrupted
    assert {k: v.fingerprint for k, v in manifest.stages.items()} == {k: v.fingerprint for k, v in expected.stages.items()}
    for name in ("segments.jsonl", "keyframes.jsonl", "ocr.jsonl", "speech.jsonl"):
        assert (directory / name).read_text() == (foreign_index.dir / name).read_text(), name
    # nothing left behind
    assert not list(directory.glob(".*.tmp")) and not list(directory.glob("*.partial.jsonl"))
    assert_free(next((cache / "index" / ".locks").glob("*.lock")))


# ------------------------------------------------------------------ bench run


def _records(run_dir: Path) -> dict:
    *lines, torn = (run_dir / "trajectories.jsonl").read_text().split("\n")  # a second worker may have been mid-line
    rows = [json.loads(line) for line in lines if line.strip()]
    keys = [(r["sample_id"], r["turn"]) for r in rows]
    assert len(keys) == len(set(keys)), "a turn was recorded twice"
    return {(r["sample_id"], r["turn"]): (r["answer"], r["ok"]) for r in rows}


@pytest.fixture(scope="module")
def whole_bench(tmp_path_factory):
    """A benchmark dataset, and its run without a fault."""
    from staragent.samples import build_script

    folder = tmp_path_factory.mktemp("bench")
    facts = folder / "talk.facts.json"
    facts.write_text(build_script(2.0, seed=4, tts=False).model_dump_json(), encoding="utf-8")
    done = cli("bench", "run", facts, "--agent", "scripted", "--out", folder / "whole", cache=folder / "cache", markers=folder / "markers")
    assert done.returncode == 0, done.stderr
    return facts, _records(folder / "whole")


@pytest.mark.parametrize("point, workers", [("bench.turn@1", 1), ("bench.turn@6", 2)])
def test_a_benchmark_run_killed_mid_way_resumes_without_losing_or_repeating_a_turn(point, workers, whole_bench, tmp_path):
    facts, whole = whole_bench
    cache, markers, out = tmp_path / "cache", tmp_path / "markers", tmp_path / "cut"

    def bench(*args, **kw):
        return cli("bench", *args, cache=cache, markers=markers, **kw)

    killed = bench("run", facts, "--agent", "scripted", "--out", out, "--workers", workers, kill=point)
    assert killed.returncode == -signal.SIGKILL
    written = len(_records(out))
    assert written >= int(point.split("@")[1])
    assert json.loads(bench("report", out, "--json").stdout)["status"] == "interrupted"  # its writer is gone, whatever run.json says
    assert_free(out / ".run.lock")
    resumed = bench("run", facts, "--agent", "scripted", "--out", out, "--workers", workers)
    assert resumed.returncode == 0 and f"{written} resumed" in resumed.stdout
    assert _records(out) == whole
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
    assert not list(out.glob(".*.tmp"))


# ------------------------------------------------------------------ chat


def _answers(stdout: str) -> list[str]:
    """The answers ``chat`` printed, one per question (it echoes each question read from a pipe)."""
    return [part.split("\n", 1)[1].strip() for part in stdout.split("you> ")[1:]]


def _history(cache: Path, video: Path, thread: str) -> list[dict]:
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings

    with VideoAgent(load_settings(cache_dir=cache, progress=False)) as agent:
        return agent.chat(video, thread).history()


def _point_in_turn_two(markers: Path, which: str) -> str:
    """The kill point that lands on the first (or last) tool call of the second question, from the
    points an uninterrupted conversation reached."""
    seen = reached(markers)
    _, second, third = [i for i, m in enumerate(seen) if m == "turn.start"]
    at = [i for i in range(second, third) if seen[i].startswith("tool.")][0 if which == "first" else -1]
    return f"{seen[at]}@{seen[: at + 1].count(seen[at])}"


@pytest.fixture(scope="module")
def whole_chat(foreign, foreign_index, session_cache, tmp_path_factory):
    """The conversation without a fault: its answers, and the points it passed."""
    markers = tmp_path_factory.mktemp("chat") / "markers"
    done = cli("chat", foreign.path, "--thread", "whole", cache=session_cache, markers=markers, stdin="\n".join(QUESTIONS) + "\n")
    assert done.returncode == 0, done.stderr
    answers = _answers(done.stdout)
    assert len(answers) == 3 and "Attendance" in answers[2]  # the moment right after the keynote speaker
    return answers, markers


@pytest.mark.parametrize("point", ["turn.start@2", "first tool of turn 2", "last tool of turn 2", "turn.saved@2", "first tool of turn 2:TERM"])
def test_a_chat_killed_mid_turn_resumes_whole_and_follow_ups_work(point, whole_chat, foreign, session_cache, tmp_path):
    answers, whole_markers = whole_chat
    if "tool of turn 2" in point:
        point = _point_in_turn_two(whole_markers, point.split()[0]) + (":TERM" if point.endswith(":TERM") else "")
    thread, markers = f"cut-{uuid.uuid4().hex[:8]}", tmp_path / "markers"
    killed = cli("chat", foreign.path, "--thread", thread, cache=session_cache, markers=markers, kill=point, stdin="\n".join(QUESTIONS) + "\n")
    assert killed.returncode == (130 if point.endswith(":TERM") else -signal.SIGKILL), killed.stderr
    assert _answers(killed.stdout) == answers[:1]  # the second answer never reached the screen
    kept = _history(session_cache, foreign.path, thread)
    assert [t["content"] for t in kept if t["role"] == "user"] in (QUESTIONS[:1], QUESTIONS[:2])  # whole turns only
    missing = QUESTIONS[len(kept) // 2:]
    resumed = cli("chat", foreign.path, "--thread", thread, cache=session_cache, markers=markers, stdin="\n".join(missing) + "\n")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resumed after {len(kept) // 2} finished turn" in resumed.stderr
    assert _answers(resumed.stdout) == answers[len(kept) // 2:]  # the follow-up still refers to the right moment
    final = _history(session_cache, foreign.path, thread)
    assert [t["content"] for t in final if t["role"] == "user"] == QUESTIONS
    assert [t["content"] for t in final if t["role"] == "assistant"] == answers


# ------------------------------------------------------------------ execute_code's sandbox


def _sandbox_leftovers(pid: int) -> list[str]:
    """Folders and control groups a sandbox run of process ``pid`` made."""
    import tempfile

    from staragent.sandbox import cgroup

    found = [str(p) for p in Path(tempfile.gettempdir()).glob(f"staragent-code-{pid}-*")]
    for _, memory, pids in cgroup._candidates():
        for base in {memory, pids} - {None}:
            found += [str(p) for p in base.glob(f"{cgroup.PREFIX}{pid}-*")]
    return found


def _running(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _gone(token: str, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while _running(token):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("signal_name", ["KILL", "TERM"])
def test_a_killed_command_takes_its_sandboxed_program_with_it(signal_name, tmp_path):
    from staragent.sandbox import runner

    if runner.probe("unshare") is not None and runner.probe("bwrap") is not None:
        pytest.skip("no sandbox works here")
    token = f"staragent-fault-{uuid.uuid4().hex[:8]}"
    code = json.dumps({"language": "bash", "code": f"exec -a {token} bash -c 'while true; do sleep 1; done'"})
    markers = tmp_path / "markers"
    killed = cli("tools", "run", "execute_code", "--args", code, cache=tmp_path / "cache", markers=markers, kill=f"sandbox.started:{signal_name}")
    assert killed.returncode == (-signal.SIGKILL if signal_name == "KILL" else 130), killed.stderr
    assert _gone(token), "the sandboxed program outlived the command that started it"
    pid = int(markers.read_text().split()[0])
    if signal_name == "TERM":
        assert _sandbox_leftovers(pid) == []  # it had the time to clean up after itself
        return
    assert _sandbox_leftovers(pid)  # SIGKILL leaves no time to clean up: the next run does
    again = cli("tools", "run", "execute_code", "--args", json.dumps({"language": "python", "code": "print(6 * 7)"}),
                cache=tmp_path / "cache", markers=markers)
    assert again.returncode == 0 and json.loads(again.stdout)["stdout"] == "42\n"
    assert _sandbox_leftovers(pid) == []
