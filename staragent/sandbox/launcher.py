"""The inside half of the sandbox: started as PID 1 of fresh namespaces (by ``unshare`` or
``bwrap --as-pid-1``). Under ``unshare`` it first builds the run's filesystem (``view.py``: only
the system folders and the Pythons, read-only, plus a small private working directory) and makes it
the root. Then it writes the program's files, forks the program under resource limits and an
unprivileged user id, reaps every process, watches how many there are and (where no control group
does it) how much memory they hold, and finally reports to the runner what it saw: the files left,
the program's CPU time, whether it killed the run for memory, the most processes at once, the
largest file and whether the working directory filled up. The runner names the limit that stopped
the program from this report and the kernel's counters, never from what the program printed.

When the launcher exits, the kernel kills whatever the program left running in the namespace, and
the working directory (a tmpfs of bounded size) disappears with it.

Standard library only: it runs with ``python -I -S -c``, before and apart from staragent.
Its JSON config comes on stdin (see ``runner.py``).
"""

import contextlib
import ctypes
import json
import os
import platform
import resource
import signal
import sys
import time

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "loongarch64": 41, "ppc64le": 203, "ppc64": 203, "s390x": 217,
              "i386": 217, "i686": 217, "armv7l": 218, "armv6l": 218}  # syscall numbers: the C library has no wrapper
SETTLE_S = 0.2  # how long a failed program's leftover processes are counted, reaping none (see _settle)
DEVICES = ("null", "zero", "full", "random", "urandom")
# Kernel filesystems that refuse a read-only remount (and hold nothing a program could fill).
SPECIAL_FS = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "securityfs", "debugfs", "tracefs",
              "pstore", "bpf", "configfs", "fusectl", "hugetlbfs", "binfmt_misc", "efivarfs", "autofs", "nsfs"}

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), what)


def _mount(source, target, fstype, flags, data=None):
    encode = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(_libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)), target)


def _unescape(path):
    """mountinfo writes spaces, tabs, newlines and backslashes as octal escapes."""
    for code in ("\\040", "\\011", "\\012", "\\134"):
        path = path.replace(code, chr(int(code[1:], 8)))
    return path


def _mounts():
    with open("/proc/self/mountinfo") as info:
        for line in info:
            before, _, after = line.partition(" - ")
            fields = before.split()
            yield _unescape(fields[4]), fields[5].split(","), after.split()[0]


def _inside(path, folder):
    return (path.rstrip("/") + "/").startswith(folder.rstrip("/") + "/")


def _mount_point(target, like):
    """An empty folder or file at ``target`` to mount ``like`` onto."""
    os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
    if os.path.isdir(like):
        os.makedirs(target, mode=0o755, exist_ok=True)
    elif not os.path.exists(target):
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))


def _add(stage, entry, workdir_options):
    kind, path = entry[0], entry[1]
    target = stage + path
    if kind == "symlink":
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        os.symlink(entry[2], target)
    elif kind == "bind":
        _mount_point(target, path)
        _mount(path, target, None, MS_BIND | MS_REC)
    elif kind == "proc":
        os.makedirs(target, mode=0o755, exist_ok=True)
        _mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    elif kind == "dev":
        os.makedirs(target, mode=0o755, exist_ok=True)
        _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=755")
        for name in DEVICES:
            _mount_point(os.path.join(target, name), "/dev/" + name)
            _mount("/dev/" + name, os.path.join(target, name), None, MS_BIND)
        for name, points_to in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
            os.symlink(points_to, os.path.join(target, name))
    elif kind == "cover":
        os.makedirs(target, mode=0o755, exist_ok=True)
        _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k,mode=755")
    elif kind == "workdir":
        os.makedirs(target, mode=0o755, exist_ok=True)
        _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, workdir_options)
    else:
        raise OSError(0, f"unknown entry {kind!r} of the filesystem view")


def build_root(stage, view, workdir, workdir_options):
    """Assemble the run's filesystem on a tmpfs at ``stage``, make every part of it read-only but
    the working directory, and make it our root; the host's filesystem is then out of reach."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here leaks to the host
    _mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    for entry in view:
        _add(stage, entry, workdir_options)
    for mountpoint, options, fstype in list(_mounts()):
        if not _inside(mountpoint, stage) or mountpoint == stage + workdir or "ro" in options:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        flags |= (MS_NOSUID if "nosuid" in options else 0) | (MS_NODEV if "nodev" in options else 0) | (MS_NOEXEC if "noexec" in options else 0)
        try:
            _mount(None, mountpoint, None, flags)
        except OSError:
            if fstype not in SPECIAL_FS:
                raise
    number = PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError(0, f"no pivot_root system call number known for {platform.machine()}")
    os.chdir(stage)
    _check(_libc.syscall(number, b".", b"."), "pivot_root")  # the old root now lies under the new one...
    _check(_libc.umount2(b".", MNT_DETACH), "old root")  # ...and is detached from it
    os.chdir("/")


def prepare(config):
    """Write the program and its inputs into the (fresh, empty) working directory."""
    for name, text in config["files"].items():
        path = os.path.join(config["workdir"], name)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(path, 0o644)


def limit(config):
    mb = 1024 * 1024
    for kind, soft, hard in (
        (resource.RLIMIT_CPU, config["cpu_seconds"], config["cpu_seconds"] + 1),  # SIGXCPU, then SIGKILL
        (resource.RLIMIT_AS, config["address_space_mb"] * mb, config["address_space_mb"] * mb),
        (resource.RLIMIT_NPROC, config["nproc"], config["nproc"]),
        (resource.RLIMIT_FSIZE, config["max_file_mb"] * mb, config["max_file_mb"] * mb),
        (resource.RLIMIT_NOFILE, 256, 256),
        (resource.RLIMIT_CORE, 0, 0),
    ):
        resource.setrlimit(kind, (soft, hard))


def start(config):
    """In the child: limits, an unprivileged identity, no way to regain privileges, then the program."""
    try:
        os.close(config["report_fd"])  # the report channel is the launcher's, not the program's
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.setsid()
        limit(config)
        uid = config.get("uid")
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        os.chdir(config["workdir"])
        os.execve(config["argv"][0], config["argv"], config["env"])
    except BaseException as exc:  # noqa: BLE001 - report whatever stopped the start, then leave
        os.write(2, f"sandbox: cannot start the program: {exc}\n".encode())
        os._exit(126)


def _others():
    """The namespace's processes other than this one (our /proc shows only the namespace)."""
    me = os.getpid()
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) != me]


def _anonymous_memory(pids):
    """Bytes of private memory the processes hold: resident minus file-backed pages, from statm
    (cheap to read). Pages a fork still shares with its parent count once per process, so the sum
    errs on the strict side."""
    page, total = os.sysconf("SC_PAGE_SIZE"), 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as statm:
                fields = statm.read().split()
        except OSError:
            continue  # gone meanwhile
        total += (int(fields[1]) - int(fields[2])) * page
    return total


def _reap(child):
    """Reap every process that has ended. Returns the pids reaped, and the program's wait status and
    resource usage once it is among them (else None)."""
    reaped, ended = [], None
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:  # no child left: the program was among those just reaped
            if ended is None:
                os._exit(125)
            return reaped, ended
        if not pid:
            return reaped, ended
        reaped.append(pid)
        if pid == child:
            ended = status, usage


def _failed(child):
    """Whether the program has ended with a failure; it is left waiting to be reaped."""
    ended = os.waitid(os.P_PID, child, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return ended is not None and not (ended.si_code == os.CLD_EXITED and ended.si_status == 0)


def _settle(seen, program, enough, at_most_s):
    """Count the processes again and again, reaping none, until ``enough`` show or the time is up.

    A process being born is counted by the kernel before /proc shows it. The look that finds the
    program's end could miss such a process, and a fork bomb would then seem one short of the
    limit that stopped it. A fork bomb's processes reap nothing, so while the launcher reaps
    none either, the kernel's count cannot fall: each process being born shows up or gives its
    place back, and the count seen here reaches the kernel's. A program that ends well does not
    need this (its limit is never named), nor one that leaves no process behind (only its own,
    waiting to be reaped); the others wait at most ``at_most_s``."""
    until = time.monotonic() + at_most_s
    while True:
        others = _others()
        seen["peak_processes"] = max(seen["peak_processes"], len(others))
        if others == [program] or seen["peak_processes"] >= enough or time.monotonic() >= until:
            return
        time.sleep(0.001)


def watch(config, child):
    """PID 1's loop: reap every process until the program ends; meanwhile count the processes and,
    when asked to, kill them all once their memory passes the limit, or once the wall clock runs out
    (the runner's clock ends runs first; this one holds should the runner be gone). Returns the
    program's wait status, its resource usage, and what was seen.

    The count includes the processes that ended since the last look and wait for us (the kernel
    counts those against the process limit too): the ones still in /proc, and those that arrived
    between that look and the reaping just after it. A program whose processes do not reap each
    other (a fork bomb) is then seen at its peak however short it was; sampling only the living
    missed it on a busy machine. Once the program has failed, ``_settle`` takes a last count
    before anything more is reaped."""
    seen = {"memory_killed": False, "wall_killed": False, "peak_processes": 0}
    memory_cap = config.get("watch_memory_bytes")
    settled = False
    # Wake on SIGCHLD, not only on the clock, so the program's end is seen at once. Blocked only
    # here: the program, forked already, keeps its own signal mask.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    deadline = time.monotonic() + config["wall_seconds"]
    while True:
        if not settled and _failed(child):
            settled = True
            _settle(seen, child, config["max_processes"], SETTLE_S)
        others = _others()
        reaped, ended = _reap(child)
        seen["peak_processes"] = max(seen["peak_processes"], len(set(others) | set(reaped)))
        if ended:
            return (*ended, seen)
        if memory_cap and not seen["memory_killed"] and _anonymous_memory(others) > memory_cap:
            seen["memory_killed"] = True
            os.kill(-1, signal.SIGKILL)  # from PID 1: every other process of the namespace
        if not seen["wall_killed"] and time.monotonic() >= deadline:
            seen["wall_killed"] = True
            os.kill(-1, signal.SIGKILL)
        signal.sigtimedwait({signal.SIGCHLD}, config["watch_every"])


def report(config, usage, seen):
    """Tell the runner what happened; the program cannot write here (the pipe is ours alone, and we
    are not dumpable, so /proc/1/fd is closed to it)."""
    workdir, found, largest = config["workdir"], [], 0
    for folder, _, names in os.walk(workdir):
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, workdir)
            with contextlib.suppress(OSError):  # removed meanwhile by a process still running
                largest = max(largest, os.lstat(path).st_size)
            if rel not in config["files"] and len(found) < 100:
                found.append(rel)
    space = os.statvfs(workdir)
    facts = {
        "files": sorted(found), "largest_file": largest, "disk_full": space.f_bavail == 0 or space.f_favail == 0,
        "cpu_seconds": usage.ru_utime + usage.ru_stime, **seen,
    }
    os.write(config["report_fd"], json.dumps(facts).encode())
    os.close(config["report_fd"])


def _exit_code(status):
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def main():
    config = json.loads(sys.stdin.read())
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    try:
        if config.get("stage"):
            build_root(config["stage"], config["view"], config["workdir"], config["workdir_options"])
        prepare(config)
    except OSError as exc:
        os.write(2, f"sandbox: cannot set up the filesystem: {exc}\n".encode())
        os._exit(125)
    if config.get("probe"):
        os._exit(0)
    child = os.fork()
    if child == 0:
        start(config)
    status, usage, seen = watch(config, child)
    report(config, usage, seen)
    os._exit(_exit_code(status))


if __name__ == "__main__":
    main()
