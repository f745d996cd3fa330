import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def run(*args, cache=None, stdin=None):
    cmd = [sys.executable, "-m", "staragent", "--quiet"] + (["--cache-dir", str(cache)] if cache else []) + [str(a) for a in args]
    return subprocess.run(cmd, capture_output=True, text=True, errors="surrogateescape", cwd=ROOT, input=stdin, timeout=600)


def test_help_is_instant_and_imports_nothing_heavy():
    code = "import sys, staragent.cli; heavy = {'torch', 'langgraph', 'langchain_core', 'transformers', 'av', 'faiss', 'cv2', 'gradio', 'mcp', 'numpy', 'scipy', 'nltk', 'pydantic'} & set(sys.modules); print(sorted(heavy))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
    result = run("--help")
    assert result.returncode == 0 and "ask" in result.stdout and "chat" in result.stdout


def test_ask_json_prints_the_documented_object(foreign, session_cache, foreign_index):
    result = run("ask", foreign.path, "What is the price of the coffee grinder?", "--json", cache=session_cache)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert "$129.50" in data["answer"] and data["profile"] == "offline"
    assert data["trajectory"][0]["tool"] == "cross_modal_search" and data["evidence"][0]["end"] <= 10.5


def test_ask_trace_shows_steps_and_evidence(foreign, session_cache, foreign_index):
    result = run("ask", foreign.path, "Who is the keynote speaker?", "--trace", cache=session_cache)
    assert result.returncode == 0
    assert "[1] cross_modal_search" in result.stdout and "Evidence:" in result.stdout and "Amara Singh" in result.stdout
    assert "Models in memory:" in result.stdout  # the pool's report ends the trace


def test_index_then_search(foreign, tmp_path):
    first = run("index", foreign.path, cache=tmp_path)
    assert first.returncode == 0 and "segments" in first.stdout
    again = subprocess.run([sys.executable, "-m", "staragent", "--cache-dir", str(tmp_path), "index", str(foreign.path)], capture_output=True, text=True, cwd=ROOT)
    assert "up to date" in again.stderr
    found = run("search", foreign.path, "Nairobi", "-m", "speech", "--json", cache=tmp_path)
    hits = json.loads(found.stdout)["hits"]
    assert hits[0]["evidence"][0]["text"].startswith("Our keynote speaker")


def test_chat_reads_questions_from_stdin(foreign, session_cache, foreign_index):
    result = run("chat", foreign.path, cache=session_cache, stdin="What is the price of the coffee grinder?\nWhat was said right after that?\n")
    assert result.returncode == 0, result.stderr
    assert "129.50" in result.stdout and "Nairobi" in result.stdout
    assert "resume with --thread" in result.stderr


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: d / "missing.mp4", "no such file"),
        (lambda d: (d / "notes.mp4").write_text("hello") and d / "notes.mp4", "not a video"),
        (lambda d: (d / "empty.mp4").write_bytes(b"") or d / "empty.mp4", "empty"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_no_traceback(tmp_path, make, message):
    result = run("ask", make(tmp_path), "anything?", cache=tmp_path / "cache")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "cache" / "index").exists() or not any((tmp_path / "cache" / "index").iterdir())


def test_empty_question_and_bad_subtitles(foreign, tmp_path):
    empty = run("ask", foreign.path, "   ", cache=tmp_path)
    assert empty.returncode == 2 and "question is empty" in empty.stderr
    copy = tmp_path / "copy.mp4"
    copy.write_bytes(foreign.path.read_bytes())
    (tmp_path / "copy.srt").write_bytes(b"\x00\x00binary")
    bad = run("index", copy, cache=tmp_path)
    assert bad.returncode == 2 and "copy.srt" in bad.stderr and "Traceback" not in bad.stderr


def test_settings_that_cannot_work_are_one_line_exit_2(foreign, tmp_path):
    import os

    bad_steps = run("ask", foreign.path, "anything?", "--max-steps", "0", cache=tmp_path)
    assert bad_steps.returncode == 2 and "--max-steps" in bad_steps.stderr
    env = {**os.environ, "STARAGENT_MAX_STEPS": "many"}
    from_env = subprocess.run([sys.executable, "-m", "staragent", "index", str(foreign.path)], capture_output=True, text=True, cwd=ROOT, env=env)
    assert from_env.returncode == 2 and "max_steps = 'many'" in from_env.stderr and "STARAGENT_MAX_STEPS" in from_env.stderr
    (tmp_path / "a-file").write_text("")
    not_a_folder = run("index", foreign.path, cache=tmp_path / "a-file" / "cache")
    assert not_a_folder.returncode == 2 and "cannot be created" in not_a_folder.stderr
    for result in (bad_steps, from_env, not_a_folder):
        assert "Traceback" not in result.stderr
    zero = run("search", foreign.path, "price", "-k", "0", cache=tmp_path)
    assert zero.returncode == 2 and "-k" in zero.stderr


def test_ask_uses_exactly_the_tools_named_with_tools(lecture, lecture_index, session_cache):
    result = run("ask", lecture.path, "How many people appear on screen between 0:12 and 0:18?", "--tools", "count_objects", "--json", cache=session_cache)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [s["tool"] for s in data["trajectory"]] == ["count_objects"]  # offered although its model is missing ...
    assert "count_objects needs the 'detector' model" in data["answer"] and "'offline' profile" in data["answer"]  # ... and says so
    assert "count_objects was asked for but cannot work here" in result.stderr
    unknown = run("ask", lecture.path, "anything?", "--tools", "calculator, count_objekts", cache=session_cache)
    assert unknown.returncode == 2 and "no tool named 'count_objekts' (did you mean 'count_objects'?)" in unknown.stderr


def test_tools_run_says_that_its_notes_do_not_outlive_the_command():
    result = run("tools", "run", "memory_tool", "--args", '{"func": "add", "data": "the budget is 4000 euros"}', "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["output"] == "stored note #1: the budget is 4000 euros"
    assert "notes last only for this one command" in result.stderr
    plain = run("tools", "run", "calculator", "--args", '{"expression": "10 % 3"}', "--json")
    assert json.loads(plain.stdout)["result"] == 1 and "notes" not in plain.stderr


def test_config_file_mistakes_are_named(foreign, tmp_path):
    import os

    missing = {**os.environ, "STARAGENT_CONFIG": str(tmp_path / "nowhere.toml")}
    result = subprocess.run([sys.executable, "-m", "staragent", "--cache-dir", str(tmp_path), "index", str(foreign.path)], capture_output=True, text=True, cwd=ROOT, env=missing)
    assert result.returncode == 2 and "STARAGENT_CONFIG names" in result.stderr and "not a file" in result.stderr
    typo = tmp_path / "typo.toml"
    typo.write_text("max_step = 3\n[index]\nkeyframe_intervall = 5\n")
    from staragent.config import load_settings

    os.environ["STARAGENT_CONFIG"] = str(typo)
    try:
        import logging

        records = []
        handler = logging.Handler()
        handler.emit = records.append
        logging.getLogger("staragent.config").addHandler(handler)
        load_settings(cache_dir=tmp_path / "c")
    finally:
        logging.getLogger("staragent.config").removeHandler(handler)
        del os.environ["STARAGENT_CONFIG"]
    assert "max_step, index.keyframe_intervall" in records[0].getMessage()
    assert run("search", foreign.path, "price", "-m", ",", cache=tmp_path).returncode == 2


def _run_read_only(cache, *args):
    """The CLI over a read-only view of ``cache`` (a read-only bind mount as root, whom file modes
    do not stop; the folder's modes otherwise), or None where neither can be had."""
    import os
    import shutil
    import stat

    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [cache, *cache.rglob("*")]}
        for p in modes:
            p.chmod(modes[p] & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        try:
            return run(*args, cache=cache)
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
    if not shutil.which("unshare"):
        return None
    view = cache.parent / f"{cache.name}-ro"
    view.mkdir(exist_ok=True)
    script = 'mount --bind "$1" "$2" && mount -o remount,ro,bind "$2" || exit 99; shift 2; exec "$@"'
    cmd = [sys.executable, "-m", "staragent", "--quiet", "--cache-dir", str(view), *map(str, args)]
    done = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(cache), str(view), *cmd], capture_output=True, text=True, cwd=ROOT)
    return None if done.returncode == 99 else done


def test_an_up_to_date_index_is_never_rewritten_and_a_read_only_cache_serves_it(foreign, tmp_path):
    cache = tmp_path / "cache"
    assert run("index", foreign.path, cache=cache).returncode == 0
    manifest = next((cache / "index").glob("*/manifest.json"))
    before = manifest.stat()
    assert run("index", foreign.path, cache=cache).returncode == 0
    assert run("ask", foreign.path, "What is the price of the coffee grinder?", cache=cache).returncode == 0
    after = manifest.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    answered = _run_read_only(cache, "ask", foreign.path, "What is the price of the coffee grinder?", "--json")
    if answered is None:
        pytest.skip("no way to make a read-only cache here")
    assert answered.returncode == 0, answered.stderr
    assert "129.50" in json.loads(answered.stdout)["answer"]
    found = _run_read_only(cache, "search", foreign.path, "Nairobi", "--json")
    assert found.returncode == 0 and json.loads(found.stdout)["hits"]
    (tmp_path / "other.mp4").write_bytes(foreign.path.read_bytes() + b"\0")  # other bytes: a new index is needed
    refused = _run_read_only(cache, "index", tmp_path / "other.mp4")
    assert refused.returncode == 2 and "cannot be written" in refused.stderr and "Traceback" not in refused.stderr


def test_a_file_name_that_is_not_utf8_is_indexed_and_asked_about(foreign, tmp_path):
    import os

    name = tmp_path / os.fsdecode(b"lat\xe9in.mp4")
    name.write_bytes(foreign.path.read_bytes())
    (tmp_path / os.fsdecode(b"lat\xe9in.vtt")).write_bytes(foreign.path.with_suffix(".vtt").read_bytes())
    indexed = run("index", name, cache=tmp_path / "cache")
    assert indexed.returncode == 0, indexed.stderr
    answered = run("ask", name, "What is the price of the coffee grinder?", cache=tmp_path / "cache")
    assert answered.returncode == 0 and "129.50" in answered.stdout, answered.stderr


def test_a_symlink_loop_is_one_line_exit_2(tmp_path):
    (tmp_path / "a.mp4").symlink_to(tmp_path / "b.mp4")
    (tmp_path / "b.mp4").symlink_to(tmp_path / "a.mp4")
    for args in (("ask", tmp_path / "a.mp4", "hi", "--json"), ("search", tmp_path / "a.mp4", "hi"), ("index", tmp_path / "a.mp4")):
        result = run(*args, cache=tmp_path / "cache")
        assert result.returncode == 2 and "symbolic link" in result.stderr and "Traceback" not in result.stderr
