"""The outside half of the sandbox: prepare a throw-away working directory, start the launcher in
fresh namespaces (inside a control group of the run's own where one can be made), feed nothing in,
read at most a fixed amount out, enforce the wall-clock limit, then name the limit that stopped the
program, if one did, from facts the program cannot forge.

What confines the code (each one is tested in ``tests/test_sandbox.py``):

- no network: a new network namespace holds only a loopback device that is down;
- no view of other processes: a new PID namespace (and a fresh /proc); when the program ends, or the
  wall clock runs out, the whole namespace is killed, children included;
- no life of its own: the sandbox dies with the process that started it (a parent-death signal on
  ``unshare``, which kills the launcher, PID 1 of the namespace, with it; ``bwrap --die-with-parent``),
  even when that process is killed with SIGKILL; and the launcher keeps a wall clock of its own,
  a little longer than ours, should nobody be left to enforce ours. Folders and control groups
  that a killed process could not remove are removed by the next run (``remove_stale``);
- a filesystem of its own (``view.py``): an allow-list of the system folders and the Pythons in use,
  read-only; nothing else of the host (``/tmp``, ``/var``, ``/run``, homes, the project, staragent's
  cache and config, the Unix sockets in them) exists for it. The program runs as a throw-away user id
  and its only writable place is a tmpfs of bounded size (and inode count) that exists only inside
  the namespace, so nothing written there survives the run or can fill the disk;
- no secrets: the environment is built from scratch, never copied from ours;
- memory: the whole run's, in a control group (``cgroup.py``) where one can be made, else by the
  launcher's watchdog, which sums the private memory of the namespace's processes and kills them
  all past the limit; each process also has an address-space limit (twice the run's) as a backstop;
- processes: the run's total, in the control group where there is one; always also RLIMIT_NPROC,
  which counts exactly the run's processes (a user id of its own as root; a user namespace of its
  own, counted apart since Linux 5.14, otherwise);
- CPU seconds per process, file size, open files;
- an output cap: reading stops and the program is killed past ``max_output_bytes``.

``unshare`` (util-linux) needs root; ``bwrap`` (bubblewrap) works for ordinary users. When neither
works the sandbox refuses to run anything.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import platform
import re
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
from ..faults import marker
from ..fsutil import process_alive
from .cgroup import RunCgroup
from .cgroup import remove_stale as remove_stale_groups
from .view import filesystem_view, interpreters

LAUNCHER = Path(__file__).with_name("launcher.py")
LANGUAGES = {"python": "python", "python3": "python", "py": "python", "bash": "bash", "sh": "bash", "shell": "bash"}
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
MB = 1024 * 1024
# Processes of a run besides the program's: unshare or bwrap, and the launcher.
RUN_OVERHEAD = 2
# The launcher's own clock runs this much longer than the runner's: it only matters when the runner is gone.
INNER_CLOCK_GRACE_S = 2.0
WATCH_EVERY = 0.005  # seconds between the launcher's looks at the namespace's processes (it also wakes when one ends)
PR_SET_PDEATHSIG = 1
# Throw-away folders carry the process id that made them, so a later run can tell which are stale
# (those of older versions do not: an hour-old one is stale).
FOLDER = re.compile(r"staragent-(?:code|probe)-(?:(\d+)-)?[^/]+")
UNNAMED_STALE_AFTER_S = 3600.0
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
    max_inputs_bytes: int = 1_000_000

    @classmethod
    def from_settings(cls, sandbox) -> Limits:
        return cls(sandbox.wall_seconds, sandbox.cpu_seconds, sandbox.memory_mb, sandbox.max_processes, sandbox.max_output_bytes,
                   sandbox.max_file_mb, sandbox.workdir_mb, sandbox.max_inputs_bytes)


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


def _counts_per_user_namespace() -> bool:
    """Since Linux 5.14 RLIMIT_NPROC counts a user's processes per user namespace."""
    try:
        major, minor = (int(part) for part in platform.release().split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


def _own_processes() -> int:
    """Processes of our user id, all of which an older kernel counts against RLIMIT_NPROC."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                continue
    return count


def _process_limit(max_processes: int, uid: int | None, group: RunCgroup | None) -> int:
    """RLIMIT_NPROC for the program. It counts the processes of the program's user: as root that is
    a fresh id, so exactly the program's; otherwise bubblewrap's user namespace, which holds the
    launcher too. When a control group caps the processes, this is one higher, a backstop, so the
    group (whose counter tells us it refused one) is what stops the program."""
    backstop = 1 if group is not None and group.pids is not None else 0
    if uid is not None:
        return max_processes + backstop
    if _counts_per_user_namespace():
        return max_processes + 1 + backstop
    # An older kernel counts every process of our user id, inside the namespace or not; the ones
    # running now are added, so a process started elsewhere meanwhile leaves the program one fewer.
    return _own_processes() + max_processes + backstop


def _bwrap_view(view: list[list], workdir_mb: int, workdir_mode: str) -> list[str]:
    """bubblewrap arguments that build the filesystem ``view.py`` describes."""
    args: list[str] = []
    made = {"/"}

    def folders_above(path: str) -> list[str]:
        # bwrap makes missing parents private (0700); they must be passable for the program's user.
        out = []
        for parent in reversed(Path(path).parents):
            if str(parent) not in made:
                made.add(str(parent))
                out += ["--perms", "0755", "--dir", str(parent)]
        return out

    covers = []
    for kind, path, *rest in view:
        args += folders_above(path)
        made.add(path)
        if kind == "bind":
            args += ["--ro-bind", path, path]
        elif kind == "symlink":
            args += ["--symlink", rest[0], path]
        elif kind == "proc":
            args += ["--proc", path]
        elif kind == "dev":
            args += ["--dev", path]
        elif kind == "cover":
            args += ["--perms", "0755", "--tmpfs", path]
            covers.append(path)
        elif kind == "workdir":
            args += ["--size", str(workdir_mb * MB), "--perms", workdir_mode, "--tmpfs", path]
    # The root and the covers are writable tmpfs mounts: freeze them, so the work directory stays the only place to write.
    return args + [arg for path in ["/", *covers] for arg in ("--remount-ro", path)]


def _command(method: str, config: dict) -> list[str]:
    launcher = [sys.executable, "-I", "-S", "-c", LAUNCHER.read_text()]
    if method == "unshare":
        return ["unshare", "--net", "--mount", "--pid", "--ipc", "--uts", "--cgroup", "--fork", "--kill-child", "--mount-proc", *launcher]
    namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if config["uid"] is not None:  # root, no user namespace: the launcher switches to the run's own id
        identity, workdir_mode = ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"], "0777"
    else:
        identity, workdir_mode = ["--unshare-user", "--uid", "65534", "--gid", "65534"], "0700"
    # --as-pid-1: the launcher itself is PID 1, so it reaps and sees every process, and the program cannot signal it.
    return ["bwrap", *namespaces, *identity, "--as-pid-1", "--die-with-parent", "--new-session",
            *_bwrap_view(config["view"], config["workdir_mb"], workdir_mode), "--clearenv", "--", *launcher]


def _interpreter(python: str | None) -> list[str]:
    return [python or sys.executable, "-I", "-B", "-c", PYTHON_BOOTSTRAP]


def _config(workdir: str, argv: list[str], limits: Limits, method: str, uid: int | None, view: list[list], report_fd: int,
            group: RunCgroup | None = None) -> dict:
    tmpfs = f"size={limits.workdir_mb}m,nr_inodes=4096,mode=0700" + (f",uid={uid},gid={uid}" if uid is not None else "")
    env = {"PATH": SAFE_PATH, "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
           "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return {
        "workdir": workdir, "argv": argv, "env": env, "uid": uid, "view": view,
        "stage": workdir if method == "unshare" else None,  # unshare: the launcher builds the view on this empty folder
        "workdir_mb": limits.workdir_mb, "workdir_options": tmpfs, "files": {}, "report_fd": report_fd,
        "cpu_seconds": limits.cpu_seconds, "address_space_mb": 2 * limits.memory_mb, "max_file_mb": limits.max_file_mb,
        "nproc": _process_limit(limits.max_processes, uid, group), "max_processes": limits.max_processes,
        "watch_memory_bytes": None if group is not None else limits.memory_mb * MB,
        "wall_seconds": limits.wall_seconds + INNER_CLOCK_GRACE_S, "watch_every": WATCH_EVERY,
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
    with tempfile.TemporaryDirectory(prefix=f"staragent-probe-{os.getpid()}-") as workdir:
        try:
            view = filesystem_view(interpreters(None), workdir)
        except ToolError as exc:
            return str(exc)
        config = _config(workdir, ["/bin/true"], Limits(), method, None, view, 2) | {"probe": True}
        try:
            done = subprocess.run(_command(method, config), input=json.dumps(config), capture_output=True, text=True, timeout=30,
                                  env={"PATH": SAFE_PATH}, preexec_fn=_dies_with(os.getpid()))
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


@dataclass
class _Ending:
    """What the runner, the kernel and the launcher saw of a run's end; none of it comes from the program."""

    exit_code: int
    timed_out: bool = False
    flooded: bool = False
    out_of_memory: bool = False  # the control group's OOM counter, or the launcher's watchdog
    refused_a_process: bool = False  # the control group's counter
    facts: dict | None = None  # the launcher's report

    def limit(self, limits: Limits) -> str | None:
        facts = self.facts or {}
        if self.timed_out or facts.get("wall_killed"):
            return "wall time"
        if self.flooded:
            return "output"
        if self.out_of_memory or facts.get("memory_killed"):
            return "memory"
        if self.exit_code == 0:
            return None
        # RLIMIT_CPU sends SIGXCPU, then SIGKILL to a program that ignores it.
        if self.exit_code == 128 + signal.SIGXCPU or (self.exit_code == 128 + signal.SIGKILL and facts.get("cpu_seconds", 0) >= limits.cpu_seconds):
            return "cpu time"
        # Python ignores SIGXFSZ and gets an error instead; the file it wrote then has the largest size allowed.
        if self.exit_code == 128 + signal.SIGXFSZ or facts.get("largest_file", 0) >= limits.max_file_mb * MB:
            return "file size"
        if facts.get("disk_full"):
            return "disk space"
        if self.refused_a_process or facts.get("peak_processes", 0) >= limits.max_processes:
            return "processes"
        return None


def run_code(
    code: str,
    language: str,
    inputs=None,
    limits: Limits = Limits(),
    method: str = "auto",
    python: str | None = None,
    hide: list[str] | tuple[str, ...] = (),
) -> RunResult:
    """Run ``code`` in the sandbox and return what it printed, how it ended, and which limit (if
    any) stopped it. ``hide`` names folders to show empty should they lie inside the sandbox's view.
    Raises ``ToolError`` when no sandbox works here or the request is out of bounds."""
    kind = LANGUAGES.get(language.strip().lower())
    if kind is None:
        raise ToolError(f"unknown language {language!r}; execute_code runs python or bash")
    files = {"main.py" if kind == "python" else "main.sh": code}
    if inputs is not None:
        files["inputs.json"] = json.dumps(inputs, ensure_ascii=False)
        size = len(files["inputs.json"].encode())
        if size > limits.max_inputs_bytes:
            raise ToolError(f"the inputs are {size:,} bytes as JSON, more than the {limits.max_inputs_bytes:,} execute_code accepts "
                            "(toolset.sandbox.max_inputs_bytes); pass a smaller excerpt or raise that setting")
    chosen = choose_method(method)
    remove_stale()
    uid = _identity()
    argv = _interpreter(python) if kind == "python" else ["/bin/bash", "--noprofile", "--norc", "main.sh"]
    # An empty folder: under unshare the launcher builds the run's filesystem on it; the work directory has its path.
    mountpoint = tempfile.mkdtemp(prefix=f"staragent-code-{os.getpid()}-")
    report_read, report_write = os.pipe()
    group = RunCgroup.create(limits.memory_mb * MB, limits.max_processes + RUN_OVERHEAD)
    try:
        view = filesystem_view(interpreters(python), mountpoint, [os.path.realpath(h) for h in hide])
        config = _config(mountpoint, argv, limits, chosen, uid, view, report_write, group)
        config["files"] = files
        return _supervise(_command(chosen, config), config, limits, chosen, report_read, report_write, group)
    finally:
        os.close(report_read)
        if group is not None:
            group.remove()
        with contextlib.suppress(OSError):
            os.rmdir(mountpoint)


@functools.lru_cache(maxsize=1)
def remove_stale() -> None:
    """Once per process: remove the throw-away folders and control groups of runs whose process was
    killed before it could (the ones of live processes are theirs)."""
    for folder in Path(tempfile.gettempdir()).glob("staragent-*-*"):
        made_by = FOLDER.fullmatch(folder.name)
        with contextlib.suppress(OSError):  # only empty ones go: what a run mounted lived in its own namespace
            if made_by and (not process_alive(int(made_by[1])) if made_by[1] else time.time() - folder.stat().st_mtime > UNNAMED_STALE_AFTER_S):
                folder.rmdir()
    remove_stale_groups()


@functools.lru_cache(maxsize=1)
def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _dies_with(parent: int, enter=None):
    """A ``preexec_fn``: into the run's control group (``enter``), then killed by the kernel the
    moment ``parent`` dies, SIGKILL included (checked once more after asking: it may be gone already)."""
    prctl = _libc().prctl  # looked up here: the child does as little as it can between fork and exec

    def preexec():
        if enter is not None:
            enter()
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


def _start(command: list[str], report_write: int, group: RunCgroup | None) -> subprocess.Popen:
    """Start the sandbox, inside the run's control group when there is one, bound to our life."""
    with group.entry() if group is not None else contextlib.nullcontext() as enter:
        return subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"PATH": SAFE_PATH},
            start_new_session=True, pass_fds=(report_write,), preexec_fn=_dies_with(os.getpid(), enter),
        )


def _supervise(command: list[str], config: dict, limits: Limits, method: str, report_read: int, report_write: int,
               group: RunCgroup | None) -> RunResult:
    started = time.monotonic()
    try:
        proc = _start(command, report_write, group)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ToolError(f"the sandbox could not be started: {exc}") from exc
    finally:
        os.close(report_write)  # the launcher holds the only writing end now

    def kill():
        with contextlib.suppress(ProcessLookupError):  # the namespace's PID 1 dies with it, and everything inside
            os.killpg(proc.pid, signal.SIGKILL)
        if group is not None:
            group.kill()

    def feed():
        with contextlib.suppress(BrokenPipeError, OSError):
            proc.stdin.write(json.dumps(config).encode())
            proc.stdin.close()

    threading.Thread(target=feed, daemon=True).start()
    out = _Capped(proc.stdout, limits.max_output_bytes, kill)
    err = _Capped(proc.stderr, limits.max_output_bytes, kill)
    deadline, timed_out = started + limits.wall_seconds, False
    try:
        marker("sandbox.started")
        while proc.poll() is None:
            if group is not None and group.out_of_memory():
                kill()  # the kernel killed one process for memory; the rest of the run goes with it
                proc.wait()
            elif time.monotonic() >= deadline:
                timed_out = True
                kill()
                proc.wait()
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=max(0.0, min(0.05, deadline - time.monotonic())))
    except BaseException:  # Ctrl-C or SIGTERM: the run ends with us
        kill()
        proc.wait()
        raise
    stdout, stderr = out.text(5), err.text(5)
    ending = _Ending(
        exit_code=proc.returncode if proc.returncode >= 0 else 128 - proc.returncode, timed_out=timed_out, flooded=out.over or err.over,
        out_of_memory=group is not None and group.out_of_memory(),
        refused_a_process=group is not None and group.refused_a_process(), facts=_report(report_read),
    )
    return RunResult(
        stdout=stdout, stderr=stderr, exit_code=ending.exit_code, limit=ending.limit(limits),
        duration_s=round(time.monotonic() - started, 3), files=[str(f) for f in (ending.facts or {}).get("files", [])][:100], sandbox=method,
    )


def _report(report_read: int) -> dict | None:
    """What the launcher saw (nothing when the run was killed before it could say)."""
    chunks = []
    os.set_blocking(report_read, False)
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(report_read, 65536):
            chunks.append(chunk)
    try:
        facts = json.loads(b"".join(chunks) or b"null")
    except ValueError:
        return None
    return facts if isinstance(facts, dict) else None
