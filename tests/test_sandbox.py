"""execute_code's sandbox is a security boundary: each test tries to break one of its limits and
checks that the limit held. Every test runs with each confinement method that works here."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from staragent.errors import ToolError
from staragent.sandbox import Limits, run_code
from staragent.sandbox import runner as sandbox_runner
from staragent.tools import ToolContext, ToolRegistry

METHODS = [m for m in ("unshare", "bwrap") if sandbox_runner.probe(m) is None]
LIMITS = Limits(wall_seconds=6, cpu_seconds=2, memory_mb=256, max_processes=16, max_output_bytes=20_000, max_file_mb=4, workdir_mb=10)
# With no working method the parametrised tests are skipped (pytest reports the empty parameter set);
# the refusal itself is tested at the end either way.


@pytest.fixture(params=METHODS)
def run(request):
    def go(code, language="python", inputs=None, limits=LIMITS):
        return run_code(code, language, inputs, limits, method=request.param)

    return go


def sandbox_processes() -> list[int]:
    """Processes running under the throw-away user ids the sandbox hands out."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if 200_000 <= entry.stat().st_uid < 1_200_000:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_python_runs_with_its_inputs_and_leaves_nothing_behind(run):
    result = run("print(sum(inputs['numbers']))\nopen('notes.txt', 'w').write('kept for the run only')", inputs={"numbers": [1, 2, 3.5]})
    assert result.stdout == "6.5\n" and result.exit_code == 0 and result.limit is None
    assert result.files == ["notes.txt"]
    bash = run("cat inputs.json; echo; echo $((6 * 7))", language="bash", inputs=[1, 2])
    assert bash.stdout == "[1, 2]\n42\n"
    assert list(Path(tempfile.gettempdir()).glob("staragent-code-*")) == []  # the mount points are gone too


def test_an_infinite_loop_hits_the_cpu_limit(run):
    result = run("while True:\n    pass")
    assert result.limit == "cpu time" and result.duration_s < LIMITS.wall_seconds


def test_a_sleeping_program_hits_the_wall_clock(run):
    result = run("import time\nprint('started', flush=True)\ntime.sleep(60)")
    assert result.limit == "wall time" and result.stdout == "started\n"
    assert LIMITS.wall_seconds <= result.duration_s < LIMITS.wall_seconds + 5
    assert sandbox_processes() == []


def test_a_fork_bomb_is_stopped_and_cleaned_up(run):
    result = run("import os\nwhile True:\n    os.fork()")
    assert result.limit == "processes" and result.duration_s < LIMITS.wall_seconds
    shell = run("bomb() { bomb | bomb & }; bomb; sleep 1; echo survived", language="bash")
    assert shell.duration_s < LIMITS.wall_seconds + 1
    assert sandbox_processes() == []  # nothing outlives the run


def test_a_memory_hog_hits_the_memory_limit(run):
    result = run("hog = []\nwhile True:\n    hog.append(bytearray(10_000_000))")
    assert result.limit == "memory" and "MemoryError" in result.stderr


def test_giant_output_is_cut_and_the_program_stopped(run):
    result = run("while True:\n    print('x' * 1000)")
    assert result.limit == "output" and len(result.stdout) <= LIMITS.max_output_bytes
    assert result.duration_s < LIMITS.wall_seconds
    big_file = run("open('big.bin', 'wb').write(b'0' * 5_000_000)")
    assert big_file.limit == "file size"
    many_files = run("for i in range(100):\n    open(f'part{i}.bin', 'wb').write(b'0' * 3_000_000)")
    assert many_files.limit == "disk space" and len(many_files.files) <= 4  # the work directory holds 10 MB, in memory


def test_nothing_outside_the_work_directory_can_be_written(run, tmp_path):
    marker = f"escape-{uuid.uuid4().hex}"
    targets = [f"/tmp/{marker}", str(tmp_path / marker), f"/dev/shm/{marker}", f"/etc/{marker}", str(Path.cwd() / marker), f"/root/{marker}"]
    code = (
        "import os\n"
        f"for path in {targets!r}:\n"
        "    try:\n"
        "        open(path, 'w').write('x'); print('WROTE', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.strerror)\n"
        "open('inside.txt', 'w').write('fine')\n"
    )
    result = run(code)
    assert "WROTE" not in result.stdout and result.stdout.count("refused") == len(targets)
    assert result.files == ["inside.txt"]
    assert not any(Path(t).exists() for t in targets)


def test_the_parents_secrets_are_out_of_reach(run, monkeypatch):
    secret = f"hunter2-{uuid.uuid4().hex}"
    monkeypatch.setenv("STARAGENT_TEST_SECRET", secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    code = (
        "import os, glob\n"
        "print(dict(os.environ))\n"
        "for path in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline'):\n"
        "    try:\n"
        "        print(path, open(path, 'rb').read())\n"
        "    except OSError as exc:\n"
        "        print(path, 'refused', exc.strerror)\n"
        "print(sorted(os.listdir('/proc')))\n"
    )
    result = run(code)
    assert result.exit_code == 0 and "STARAGENT_TEST_SECRET" not in result.stdout and secret not in result.stdout + result.stderr
    assert str(os.getpid()) not in result.stdout.split("[")[-1]  # our process is not even visible


def test_no_network_not_even_to_this_machine(run):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    code = (
        "import socket\n"
        f"for host, port in (('127.0.0.1', {port}), ('1.1.1.1', 53), ('8.8.8.8', 443)):\n"
        "    try:\n"
        "        socket.create_connection((host, port), timeout=2); print('CONNECTED', host)\n"
        "    except OSError as exc:\n"
        "        print('blocked', host, exc.strerror)\n"
        "try:\n"
        "    socket.getaddrinfo('example.com', 80); print('RESOLVED')\n"
        "except OSError as exc:\n"
        "    print('no dns', exc)\n"
    )
    result = run(code)
    assert "CONNECTED" not in result.stdout and "RESOLVED" not in result.stdout and result.stdout.count("blocked") == 3
    with pytest.raises(TimeoutError):
        listener.accept()  # nothing reached us
    listener.close()


@pytest.mark.skipif(not METHODS, reason="no sandbox method works on this machine")
def test_the_tool_reports_the_limit_to_the_planner(tmp_path):
    from staragent.config import load_settings

    settings = load_settings(cache_dir=tmp_path, toolset={"sandbox": {"cpu_seconds": 1, "wall_seconds": 5, "method": METHODS[0]}})
    tool = ToolRegistry.discover(plugins=False).get("execute_code")
    ok = tool(ToolContext(settings=settings), {"code": "print(inputs * 2)", "language": "Python", "inputs": 21})
    assert ok.stdout == "42\n" and ok.summary() == "exit 0: 42"
    spin = tool(ToolContext(settings=settings), {"code": "while true; do :; done", "language": "bash"})
    assert spin.limit == "cpu time" and "stopped by the cpu time limit" in spin.summary()


def test_refusal_when_no_sandbox_works(monkeypatch, tmp_path):
    from staragent.config import load_settings

    monkeypatch.setattr(sandbox_runner, "probe", lambda method: f"{method} is broken in this test")
    marker = tmp_path / "ran"
    with pytest.raises(ToolError, match="not run at all: unshare is broken in this test; bwrap is broken"):
        run_code(f"open({str(marker)!r}, 'w')", "python")
    assert not marker.exists()
    settings = load_settings(cache_dir=tmp_path)
    registry = ToolRegistry.discover(plugins=False)
    assert "no sandbox works here" in registry.get("execute_code").unavailable_reason(settings)
    assert "execute_code" not in [t.name for t in registry.select(None, settings)]


NOBODY_SCRIPT = """
import json, sys
from staragent.sandbox import Limits, run_code
limits = Limits(wall_seconds=6, cpu_seconds=2, memory_mb=256, max_processes=16, workdir_mb=10)
writes = run_code(
    "for p in ['/tmp/x', '/dev/shm/x', '/home/x', 'ok.txt']:\\n"
    "    try:\\n        open(p, 'w').write('1'); print('WROTE', p)\\n"
    "    except OSError as e:\\n        print('refused', p)\\n"
    "import os; print('uid', os.getuid())", "python", None, limits)
bomb = run_code("import os\\nwhile True:\\n    os.fork()", "python", None, limits)
net = run_code("import socket\\ntry:\\n    socket.create_connection(('1.1.1.1', 53), timeout=2); print('CONNECTED')\\nexcept OSError:\\n    print('blocked')", "python", None, limits)
print(json.dumps({"method": writes.sandbox, "writes": writes.stdout, "files": writes.files, "bomb": bomb.limit, "net": net.stdout}))
"""


def _python_for_nobody() -> str | None:
    """An interpreter of our Python version that an ordinary user may run (ours may sit in /root)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, shutil.which(version), f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        if candidate and os.path.exists(candidate):
            # The interpreter's real path must be reachable for that user (a bind mount needs it), not just runnable.
            check = "import os, sys; sys.exit(not os.path.exists(os.path.realpath(sys.executable)))"
            probe = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", candidate, "-c", check], capture_output=True)
            if probe.returncode == 0:
                return candidate
    return None


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv") or sandbox_runner.probe("bwrap") is not None,
                    reason="needs root (to become an ordinary user), setpriv and a working bubblewrap")
def test_an_ordinary_user_gets_the_same_confinement_through_bubblewrap():
    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python interpreter that an ordinary user may run")
    import pydantic

    paths = [str(Path(__file__).parent.parent), str(Path(pydantic.__file__).parent.parent)]
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "PYTHONPATH": os.pathsep.join(paths)}
    done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", NOBODY_SCRIPT],
                          capture_output=True, text=True, env=env, timeout=120, cwd="/")
    if done.returncode != 0 and "ModuleNotFoundError" in done.stderr:
        pytest.skip(f"staragent's dependencies are not readable by an ordinary user: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["method"] == "bwrap"
    assert "WROTE ok.txt" in report["writes"] and report["writes"].count("refused") == 3 and report["files"] == ["ok.txt"]
    assert report["bomb"] == "processes" and report["net"] == "blocked\n"
