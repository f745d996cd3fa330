from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from staragent.bench.agents import EchoAgent, ScriptedAgent, SimulatedTools, make_agent
from staragent.bench.execution import run_benchmark
from staragent.bench.harness_errors import AgentSpecError, RunDirError
from staragent.bench.rundir import SAMPLES_FILE, TRAJECTORIES_FILE, load_run
from staragent.datagen.synthetic import load_synthetic
from staragent.fsutil import read_json, write_json


def keys_of(run_dir):
    rows = [json.loads(line) for line in (run_dir / TRAJECTORIES_FILE).read_text().splitlines() if line.strip()]
    return [(r["sample_id"], r["turn"]) for r in rows]


def all_keys(dataset):
    return sorted((s.sample_id, p.index) for s in dataset.samples for p in s.qa_turns())


def test_run_writes_records_and_metadata(facts_file, tmp_path):
    ds = load_synthetic(facts_file)
    out = tmp_path / "run"
    summary = run_benchmark(ds, make_agent("scripted"), out, workers=3, dataset_spec=str(facts_file), agent_spec="scripted")
    assert summary.new == summary.total == len(all_keys(ds)) and summary.errors == 0
    assert sorted(keys_of(out)) == all_keys(ds)
    meta = read_json(out / "run.json")
    assert meta["status"] == "complete"
    assert meta["agent"]["name"] == "scripted" and meta["agent"]["config"]["oracle"] is True
    assert meta["dataset"]["kind"] == "synthetic" and meta["dataset"]["fingerprint"]
    env = meta["environment"]
    assert env["packages"]["pydantic"] and "revision" in env["git"] and env["python"]
    assert (out / SAMPLES_FILE).is_file()
    # running again does nothing: every turn is already recorded
    again = run_benchmark(ds, make_agent("scripted"), out)
    assert again.new == 0 and again.done_before == again.total


def test_history_is_the_ideal_trajectory_and_simulated_tools_reach_the_agent(facts_file, tmp_path):
    ds = load_synthetic(facts_file)
    seen = {}

    def answer(question, history, sample, turn):
        seen[(sample["sample_id"], turn)] = (history, sample["bench"])
        return "my own answer that must never enter a later history"

    run_benchmark(ds, ScriptedAgent(answer), tmp_path / "run", simulated_tools=True)
    multi = next(s for s in ds.samples if s.sample_type == "multi_turn")
    history, _ = seen[(multi.sample_id, 2)]
    pairs = multi.qa_turns()
    assert history == [
        {"role": "user", "content": pairs[0].question.content}, {"role": "assistant", "content": pairs[0].answer.content},
        {"role": "user", "content": pairs[1].question.content}, {"role": "assistant", "content": pairs[1].answer.content},
    ]  # fmt: skip
    agentic = next(s for s in ds.samples if s.is_agentic)
    _, opts = seen[(agentic.sample_id, 0)]
    assert opts["simulated_tools"] is True
    assert [c["tool"] for c in opts["expected_tool_calls"]] == [c.tool for c in agentic.qa_turns()[0].expected_tool_calls]
    tools = SimulatedTools(opts["expected_tool_calls"])
    first = opts["expected_tool_calls"][0]
    assert tools.call(first["tool"], {}) == first["expected_response"]
    assert tools.call("detect_faces", {})["status"] == "not_available"


def test_the_oracle_makes_the_expected_calls_without_simulated_tools(facts_file, tmp_path):
    """The scripted oracle follows the answer key in every run, so it scores 100% on trajectories
    whether or not --simulated-tools is given."""
    from staragent.bench.judges import make_judge
    from staragent.bench.scoring import score_run

    ds = load_synthetic(facts_file)
    agentic = [s for s in ds.samples if s.is_agentic]
    for simulated in (False, True):
        out = tmp_path / f"oracle-{simulated}"
        run_benchmark(ds.select([s.sample_id for s in agentic]), make_agent("scripted"), out, simulated_tools=simulated)
        records = {r.sample_id: r for r in load_run(out)[2]}
        for sample in agentic:
            assert [s.tool for s in records[sample.sample_id].trajectory] == [
                c.tool for c in sample.qa_turns()[0].expected_tool_calls
            ]
            assert records[sample.sample_id].simulated_tools is simulated
        summary = score_run(out, make_judge("heuristic"), ["trajectory"])["trajectory"]
        assert summary["turns"] == len(agentic) and summary["score"] == 100.0 and summary["tool_f1"] == 1.0


def test_agent_errors_are_recorded_and_can_be_retried(facts_file, tmp_path):
    ds = load_synthetic(facts_file)
    target = (ds.samples[0].sample_id, 0)
    out = tmp_path / "run"
    summary = run_benchmark(ds, ScriptedAgent(fail_on={target}), out)
    assert summary.errors == 1
    _, _, records = load_run(out)
    failed = [r for r in records if not r.ok]
    assert [(r.sample_id, r.turn) for r in failed] == [target] and "scripted failure" in failed[0].error
    assert read_json(out / "run.json")["progress"]["errors"] == 1
    retried = run_benchmark(ds, ScriptedAgent(), out, retry_errors=True)
    assert retried.new == 1 and retried.errors == 0
    assert sorted(keys_of(out)) == all_keys(ds)  # the error row was replaced, not duplicated


class InterruptingAgent(ScriptedAgent):
    def __init__(self, after):
        super().__init__()
        self.after = after
        self.count = 0

    def respond(self, *args, **kwargs):
        self.count += 1
        if self.count > self.after:
            raise KeyboardInterrupt
        return super().respond(*args, **kwargs)


def test_interrupted_run_resumes_without_loss_or_duplicates(facts_file, tmp_path):
    ds = load_synthetic(facts_file)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_benchmark(ds, InterruptingAgent(after=4), out)
    assert len(keys_of(out)) == 4 and read_json(out / "run.json")["status"] == "interrupted"
    # a crash mid-append leaves a torn last line
    with open(out / TRAJECTORIES_FILE, "a") as fh:
        fh.write('{"sample_id": "st-f3", "turn": 0, "quest')
    resumed = run_benchmark(ds, ScriptedAgent(), out, workers=2)
    assert resumed.done_before == 4 and resumed.new == len(all_keys(ds)) - 4
    keys = keys_of(out)
    assert len(keys) == len(set(keys)) and sorted(keys) == all_keys(ds)


def test_killed_subprocess_run_resumes(facts_file, tmp_path, subprocess_env):
    out = tmp_path / "run"
    code = "import sys; from staragent.bench.commands import bench; sys.exit(bench.main(prog_name='bench'))"
    cmd = [sys.executable, "-c", code, "run", str(facts_file), "--agent", "scripted,delay=0.25", "--out", str(out)]
    proc = subprocess.Popen(cmd, env=subprocess_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    traj = out / TRAJECTORIES_FILE
    deadline = time.time() + 60
    while time.time() < deadline and (not traj.is_file() or len(traj.read_text().splitlines()) < 3):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    before = traj.read_text().splitlines()
    assert len(before) >= 3
    ds = load_synthetic(facts_file)
    assert len(before) < len(all_keys(ds)), "the run finished before it could be killed"
    summary = run_benchmark(ds, make_agent("scripted,delay=0.25"), out)
    after = traj.read_text().splitlines()
    assert after[: len(before)] == before  # nothing written before the kill was lost or rewritten
    keys = keys_of(out)
    assert len(keys) == len(set(keys)) and sorted(keys) == all_keys(ds)
    assert summary.done_before == len(before)


def test_resume_refuses_another_agent_or_changed_samples(facts_file, tmp_path):
    ds = load_synthetic(facts_file)
    out = tmp_path / "run"
    run_benchmark(ds.select(limit=2), make_agent("scripted"), out)
    with pytest.raises(RunDirError, match="another configuration"):
        run_benchmark(ds, EchoAgent(), out)
    with pytest.raises(RunDirError, match="simulated_tools"):
        run_benchmark(ds, make_agent("scripted"), out, simulated_tools=True)
    changed = ds.select(limit=1)
    changed.samples[0] = changed.samples[0].model_copy(update={"scenario": "something else"})
    with pytest.raises(RunDirError, match="different version of sample"):
        run_benchmark(changed, make_agent("scripted"), out)
    # a larger selection extends the run
    more = run_benchmark(ds, make_agent("scripted"), out)
    assert more.done == more.total == len(all_keys(ds))


def test_agent_specs():
    assert make_agent("echo").name == "echo"
    assert make_agent("scripted,tools=false").use_tools is False
    offline = make_agent("profile:offline,max_steps=3,tools=calculator+transcribe_speech")
    assert offline.describe()["planner"] == "rules" and offline.describe()["max_steps"] == 3
    assert offline.settings.tools == ["calculator", "transcribe_speech"]
    with pytest.raises(AgentSpecError, match="unknown option"):
        make_agent("profile:offline,temperature=2")
    with pytest.raises(AgentSpecError, match="unknown agent"):
        make_agent("gpt-7")
    with pytest.raises(AgentSpecError):
        make_agent("scripted,delay=soon")


def test_videos_are_found_by_id_under_the_video_root(tmp_path):
    from staragent.bench.sample_records import Dataset, Sample

    (tmp_path / "videos" / "part1").mkdir(parents=True)
    video = tmp_path / "videos" / "part1" / "abc123.mkv"
    video.write_bytes(b"x")
    rows = [{"sample_id": sid, "video_id": vid, "conversations": [{"role": "user", "content": "q"},
                                                                   {"role": "assistant", "content": "a"}]}
            for sid, vid in (("s1", "abc123"), ("s2", "missing"))]  # fmt: skip
    ds = Dataset("d", "starbench", str(tmp_path / "d.json"), [Sample.model_validate(r) for r in rows])
    seen = {}
    run_benchmark(ds, ScriptedAgent(lambda q, h, s, t: seen.setdefault(s["sample_id"], "ok")), tmp_path / "run",
                  video_root=tmp_path / "videos")  # fmt: skip
    _, _, records = load_run(tmp_path / "run")
    by_id = {r.sample_id: r for r in records}
    assert by_id["s1"].video == str(video) and by_id["s2"].video is None


def _cli_run(facts_file, out, subprocess_env, delay="0.25"):
    code = "import sys; from staragent.bench.commands import bench; sys.exit(bench.main(prog_name='bench'))"
    cmd = [sys.executable, "-c", code, "run", str(facts_file), "--agent", f"scripted,delay={delay}", "--out", str(out)]
    return subprocess.Popen(cmd, env=subprocess_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_lines(path, n, proc):
    deadline = time.time() + 60
    while time.time() < deadline and (not path.is_file() or len(path.read_text().splitlines()) < n):
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)


def test_a_second_writer_on_the_same_run_directory_is_refused(facts_file, tmp_path, subprocess_env):
    out = tmp_path / "run"
    proc = _cli_run(facts_file, out, subprocess_env)
    try:
        _wait_for_lines(out / TRAJECTORIES_FILE, 1, proc)
        with pytest.raises(RunDirError, match=f"another run is writing {out}"):
            run_benchmark(load_synthetic(facts_file), make_agent("scripted"), out)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    keys = keys_of(out)
    assert len(keys) == len(set(keys))  # the refused run wrote nothing
    # once the writer is gone, the run resumes
    summary = run_benchmark(load_synthetic(facts_file), make_agent("scripted,delay=0.25"), out)
    assert summary.done == summary.total and sorted(keys_of(out)) == all_keys(load_synthetic(facts_file))


def test_sigterm_marks_the_run_interrupted_and_it_resumes(facts_file, tmp_path, subprocess_env):
    out = tmp_path / "run"
    proc = _cli_run(facts_file, out, subprocess_env)
    _wait_for_lines(out / TRAJECTORIES_FILE, 2, proc)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "interrupted" in stderr
    meta = read_json(out / "run.json")
    done = len(keys_of(out))
    assert meta["status"] == "interrupted" and meta["progress"]["done"] == done >= 2
    resumed = run_benchmark(load_synthetic(facts_file), make_agent("scripted,delay=0.25"), out)
    assert resumed.done_before == done and read_json(out / "run.json")["status"] == "complete"


def test_run_json_shows_progress_while_the_run_goes(facts_file, tmp_path):
    ds = load_synthetic(facts_file).select(limit=5)
    out = tmp_path / "run"
    seen = []

    def answer(question, history, sample, turn):
        seen.append(read_json(out / "run.json")["progress"]["done"])
        return "an answer"

    run_benchmark(ds, ScriptedAgent(answer), out, progress_every_s=0)
    assert seen == list(range(len(seen))) and len(seen) == len(all_keys(ds))
    meta = read_json(out / "run.json")
    assert meta["status"] == "complete" and meta["progress"]["done"] == len(seen)


def test_resuming_in_another_environment_keeps_the_history(facts_file, tmp_path):
    ds = load_synthetic(facts_file)
    out = tmp_path / "run"
    run_benchmark(ds.select(limit=1), make_agent("scripted"), out)
    meta = read_json(out / "run.json")
    assert len(meta["environment_history"]) == 1
    run_benchmark(ds.select(limit=2), make_agent("scripted"), out)  # same environment: nothing added
    assert len(read_json(out / "run.json")["environment_history"]) == 1
    meta["environment"]["git"] = {"revision": "0" * 40, "dirty": False}
    meta["environment_history"][0]["git"] = {"revision": "0" * 40, "dirty": False}
    write_json(out / "run.json", meta)
    run_benchmark(ds.select(limit=3), make_agent("scripted"), out)
    history = read_json(out / "run.json")["environment_history"]
    assert [h["git"]["revision"] for h in history][0] == "0" * 40 and len(history) == 2
    assert history[1] == {**read_json(out / "run.json")["environment"], "since": history[1]["since"]}


def test_a_damaged_line_in_the_middle_is_set_aside_and_its_turn_runs_again(facts_file, tmp_path, caplog):
    ds = load_synthetic(facts_file)
    out = tmp_path / "run"
    run_benchmark(ds.select(limit=3), make_agent("scripted"), out)
    lines = (out / TRAJECTORIES_FILE).read_bytes().split(b"\n")
    damaged = lines[1]
    lines[1] = damaged[: len(damaged) // 2] + b"\x00\xff garbage"  # a bad sector, a bad copy
    (out / TRAJECTORIES_FILE).write_bytes(b"\n".join(lines))
    with caplog.at_level("WARNING", logger="staragent.bench"):
        _, _, records = load_run(out)  # readers skip it and say so
    assert len(records) == len(lines) - 2 and "1 unreadable line (2)" in caplog.text
    summary = run_benchmark(ds, make_agent("scripted"), out)
    assert summary.unreadable == 1 and summary.done_before == len(lines) - 2
    keys = keys_of(out)
    assert len(keys) == len(set(keys)) and sorted(keys) == all_keys(ds)  # no turn lost, none twice
    assert (out / "trajectories.unreadable.jsonl").read_bytes().startswith(damaged[: len(damaged) // 2])
    kept = [line for n, line in enumerate(lines) if n != 1 and line]
    assert (out / TRAJECTORIES_FILE).read_bytes().split(b"\n")[: len(kept)] == kept  # good lines untouched
