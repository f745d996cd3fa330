"""The outside half of the sandbox: prepare a throw-away working directory, start the launcher in
fresh namespaces, feed nothing in, read at most a fixed amount out, enforce the wall-clock limit,
then delete the directory.

What confines the code (each one is tested in ``tests/test_sandbox.py``):

- no network: a new network namespace holds only a loopback device that is down;
- no view of other processes: a new PID namespace (and a fresh /proc); when the program ends, or the
  wall clock runs out, the whole namespace is killed, children included;
- no writes outside the work directory: every mount is read-only in a private mount namespace,
  ``/root`` and ``/home`` are covered by empty folders, and the program runs as a throw-away user id;
  the work directory itself is a tmpfs of bounded size (and inode count) that exists only inside
  the namespace, so nothing written there survives the run or can fill the disk;
- no secrets: the environment is built from scratch, never copied from ours;
- limits: CPU seconds, address space, processes (for that user id), file size, open files;
- an output cap: reading stops and the program is killed past ``max_output_bytes``.

``unshare`` (util-linux) needs root; ``bwrap`` (bubblewrap) works for ordinary users. When neither
works the sandbox refuses to run anything.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from ..errors import ToolError

LAUNCHER = Path(__file__).with_name("launcher.py")
LANGUAGES = {"python": "python", "python3": "python", "py": "python", "bash": "bash", "sh": "bash", "shell": "bash"}
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
# Run the code as __main__ with the caller's inputs bound to ``inputs`` (also in inputs.json).
PYTHON_BOOTSTRAP = (
    "import builtins, json, os, runpy, sys\n"
    "builtins.inputs = json.load(open('inputs.json')) if os.path.exists('inputs.json') else None\n"
    "sys.argv = ['main.py']\n"
    "runpy.run_path('main.py', run_name='__main__')\n"
)


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 10.0
    cpu_seconds: int = 10
    memory_mb: int = 512
    max_processes: int = 32
    max_output_bytes: int = 64_000
    max_file_mb: int = 16
    workdir_mb: int = 64

    @classmethod
    def from_settings(cls, sandbox) -> Limits:
        return cls(sandbox.wall_seconds, sandbox.cpu_seconds, sandbox.memory_mb, sandbox.max_processes, sandbox.max_output_bytes,
                   sandbox.max_file_mb, sandbox.workdir_mb)


class RunResult(BaseModel):
    stdout: str
    stderr: str
    exit_code: int | None = Field(description="the program's exit status (128+N: killed by signal N)")
    limit: str | None = Field(
        None, description="the limit that stopped it: wall time, cpu time, memory, processes, output, file size, disk space"
    )
    duration_s: float
    files: list[str] = Field(default_factory=list, description="files the code left in its working directory")
    sandbox: str


def _identity() -> int | None:
    """As root: a user id nobody else has, for this run only (the process limit then counts only
    this run's processes; root itself is exempt from it). Otherwise the program keeps our id, as
    "nobody" inside bubblewrap's user namespace."""
    return 200_000 + secrets.randbelow(1_000_000) if os.geteuid() == 0 else None


def _own_processes() -> int:
    """Processes of our user id: RLIMIT_NPROC counts them too when we cannot switch to a fresh id."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                continue
    return count


def _command(method: str, config: dict) -> list[str]:
    launcher = [sys.executable, "-I", "-S", str(LAUNCHER)]
    if method == "unshare":
        return ["unshare", "--net", "--mount", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc", *launcher]
    namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if config["uid"] is not None:  # root, no user namespace: the launcher switches to the run's own id
        identity, workdir_mode = ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"], "0777"
    else:
        identity, workdir_mode = ["--unshare-user", "--uid", "65534", "--gid", "65534"], "0700"
    cmd = ["bwrap", *namespaces, *identity, "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
           "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    for path in config["hide"]:
        if os.path.isdir(path):
            cmd += ["--tmpfs", path]
    for kept in config["keep"]:  # bwrap applies its arguments in order: these reappear inside the covers
        if os.path.isdir(kept):
            # bwrap makes missing parents private (0700); they must be passable for the program's user.
            parents = [str(p) for p in reversed(Path(kept).parents) if str(p) != "/"]
            for parent in parents:
                cmd += ["--perms", "0755", "--dir", parent]
            cmd += ["--ro-bind", kept, kept]
    workdir = ["--size", str(config["workdir_mb"] * 1024 * 1024), "--perms", workdir_mode, "--tmpfs", config["workdir"]]
    # The covers bwrap made are writable tmpfs mounts: freeze them, so the work directory stays the only place to write.
    frozen = [arg for path in ["/tmp", "/dev/shm", *(h for h in config["hide"] if os.path.isdir(h))] for arg in ("--remount-ro", path)]
    return [*cmd, *workdir, *frozen, "--clearenv", "--", *launcher]


def _interpreter(python: str | None) -> list[str]:
    return [python or sys.executable, "-I", "-B", "-c", PYTHON_BOOTSTRAP]


def _kept_folders(python: str | None) -> list[str]:
    """What the program needs even inside hidden folders: the interpreter, its installation, the
    virtual environment and the launcher (covering /home must not hide a venv in a home folder)."""
    paths = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(python or sys.executable)), str(LAUNCHER.parent)]
    if python:
        paths.append(os.path.dirname(os.path.dirname(os.path.realpath(python))))
    return sorted({os.path.realpath(p) for p in paths})


def _config(workdir: str, argv: list[str], limits: Limits, method: str, uid: int | None, hide: list[str], keep: list[str], report_fd: int) -> dict:
    nproc = limits.max_processes if uid is not None else _own_processes() + limits.max_processes
    tmpfs = f"size={limits.workdir_mb}m,nr_inodes=4096,mode=0700" + (f",uid={uid},gid={uid}" if uid is not None else "")
    env = {"PATH": SAFE_PATH, "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
           "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return {
        "workdir": workdir, "argv": argv, "env": env, "uid": uid, "lock_down": method == "unshare", "hide": hide, "keep": keep,
        "workdir_mb": limits.workdir_mb, "workdir_options": tmpfs, "files": {}, "report_fd": report_fd,
        "cpu_seconds": limits.cpu_seconds, "memory_mb": limits.memory_mb, "nproc": nproc, "max_file_mb": limits.max_file_mb,
    }


@functools.lru_cache(maxsize=8)
def probe(method: str) -> str | None:
    """None when ``method`` can confine code on this machine, else why not."""
    if method == "unshare":
        if os.geteuid() != 0:
            return "unshare needs root (for the mount and network namespaces)"
        if not shutil.which("unshare"):
            return "the unshare command (util-linux) is not installed"
    elif method == "bwrap":
        if not shutil.which("bwrap"):
            return "bubblewrap (bwrap) is not installed"
    else:
        return f"unknown sandbox method {method!r}"
    with tempfile.TemporaryDirectory(prefix="staragent-probe-") as workdir:
        config = _config(workdir, ["/bin/true"], Limits(), method, None, [], _kept_folders(None), 2) | {"probe": True}
        try:
            done = subprocess.run(_command(method, config), input=json.dumps(config), capture_output=True, text=True, timeout=30,
                                  env={"PATH": SAFE_PATH})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{method} failed to start: {exc}"
    if done.returncode != 0:
        return f"{method} does not work here: {(done.stderr.strip() or f'exit {done.returncode}')[:300]}"
    return None


def choose_method(preference: str = "auto") -> str:
    """The sandbox method to use, or a ``ToolError`` saying why none can confine code here."""
    candidates = ["unshare", "bwrap"] if preference == "auto" else [preference]
    problems = []
    for method in candidates:
        why = probe(method)
        if why is None:
            return method
        problems.append(why)
    raise ToolError("code cannot be run safely here, so it is not run at all: " + "; ".join(problems))


class _Capped:
    """Reads a pipe to the end, keeping at most ``cap`` bytes; calls ``overflow`` once past it."""

    def __init__(self, pipe, cap: int, overflow):
        self.data = bytearray()
        self.over = False
        self._thread = threading.Thread(target=self._read, args=(pipe, cap, overflow), daemon=True)
        self._thread.start()

    def _read(self, pipe, cap, overflow):
        while chunk := pipe.read(65536):
            room = cap - len(self.data)
            self.data += chunk[: max(0, room)]
            if len(chunk) > room and not self.over:
                self.over = True
                overflow()

    def text(self, timeout: float) -> str:
        self._thread.join(timeout)
        return self.data.decode("utf-8", errors="replace")


def _which_limit(code: int | None, stderr: str, timed_out: bool, flooded: bool) -> str | None:
    if timed_out:
        return "wall time"
    if flooded:
        return "output"
    if code == 128 + signal.SIGXCPU:
        return "cpu time"
    if code == 128 + signal.SIGXFSZ or "File too large" in stderr:
        return "file size"
    if "No space left on device" in stderr:
        return "disk space"
    if "MemoryError" in stderr or "Cannot allocate memory" in stderr or "cannot allocate" in stderr:
        return "memory"
    if "Resource temporarily unavailable" in stderr and ("fork" in stderr or "BlockingIOError" in stderr):
        return "processes"
    return None


def run_code(
    code: str,
    language: str,
    inputs=None,
    limits: Limits = Limits(),
    method: str = "auto",
    python: str | None = None,
    hide: list[str] | tuple[str, ...] = ("/root", "/home"),
) -> RunResult:
    """Run ``code`` in the sandbox and return what it printed, how it ended, and which limit (if
    any) stopped it. Raises ``ToolError`` when no sandbox works here."""
    kind = LANGUAGES.get(language.strip().lower())
    if kind is None:
        raise ToolError(f"unknown language {language!r}; execute_code runs python or bash")
    chosen = choose_method(method)
    uid = _identity()
    files = {"main.py" if kind == "python" else "main.sh": code}
    if inputs is not None:
        files["inputs.json"] = json.dumps(inputs, ensure_ascii=False)
    argv = _interpreter(python) if kind == "python" else ["/bin/bash", "--noprofile", "--norc", "main.sh"]
    # An empty folder that only serves as the mount point of the run's own small filesystem.
    mountpoint = tempfile.mkdtemp(prefix="staragent-code-")
    report_read, report_write = os.pipe()
    try:
        config = _config(mountpoint, argv, limits, chosen, uid, [os.path.realpath(h) for h in hide], _kept_folders(python), report_write)
        config["files"] = files
        return _supervise(_command(chosen, config), json.dumps(config), limits, chosen, report_read, report_write)
    finally:
        os.close(report_read)
        with contextlib.suppress(OSError):
            os.rmdir(mountpoint)


def _supervise(command: list[str], config: str, limits: Limits, method: str, report_read: int, report_write: int) -> RunResult:
    started = time.monotonic()
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={"PATH": SAFE_PATH}, start_new_session=True, pass_fds=(report_write,),
    )
    os.close(report_write)  # the launcher holds the only writing end now

    def kill():
        with contextlib.suppress(ProcessLookupError):  # the namespace's PID 1 dies with it, and everything inside
            os.killpg(proc.pid, signal.SIGKILL)

    def feed():
        with contextlib.suppress(BrokenPipeError, OSError):
            proc.stdin.write(config.encode())
            proc.stdin.close()

    threading.Thread(target=feed, daemon=True).start()
    out = _Capped(proc.stdout, limits.max_output_bytes, kill)
    err = _Capped(proc.stderr, limits.max_output_bytes, kill)
    timed_out = False
    try:
        proc.wait(timeout=limits.wall_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill()
        proc.wait()
    stdout, stderr = out.text(5), err.text(5)
    code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    return RunResult(
        stdout=stdout, stderr=stderr, exit_code=code, limit=_which_limit(code, stderr, timed_out, out.over or err.over),
        duration_s=round(time.monotonic() - started, 3), files=_reported_files(report_read), sandbox=method,
    )


def _reported_files(report_read: int) -> list[str]:
    """The files the launcher says the program left (none when the run was killed first)."""
    chunks = []
    os.set_blocking(report_read, False)
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(report_read, 65536):
            chunks.append(chunk)
    try:
        return [str(f) for f in json.loads(b"".join(chunks) or b"[]")][:100]
    except ValueError:
        return []
