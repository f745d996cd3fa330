"""The inside half of the sandbox: started as PID 1 of fresh namespaces (by ``unshare`` or
``bwrap``), it locks the filesystem down, gives the program a small private filesystem as its
working directory, forks the program under resource limits and an unprivileged user id, reaps every
process, reports the files the program left, and exits with the program's status. When it exits,
the kernel kills whatever the program left running in the namespace, and the working directory
(a tmpfs of bounded size) disappears with it.

Standard library only: it runs with ``python -I -S``, before and apart from staragent.
Usage: ``python -I -S launcher.py`` with its JSON config on stdin (see ``runner.py``).
"""

import ctypes
import json
import os
import resource
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS = 38
# Kernel filesystems that refuse a read-only remount (and hold nothing a program could fill).
SPECIAL_FS = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "securityfs", "debugfs", "tracefs",
              "pstore", "bpf", "configfs", "fusectl", "hugetlbfs", "binfmt_misc", "efivarfs", "autofs", "nsfs"}

_libc = ctypes.CDLL(None, use_errno=True)


def _mount(source, target, fstype, flags, data=None):
    encode = lambda s: s.encode() if s is not None else None  # noqa: E731
    if _libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), target)


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


def lock_down(workdir, hide, keep, workdir_options):
    """Make every mount read-only, cover each folder in ``hide`` with an empty one (except for the
    folders in ``keep`` below it: the interpreter must stay reachable), and mount a small tmpfs, the
    only writable place, on ``workdir``."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here leaks to the host
    for path in hide:
        if not os.path.isdir(path):
            continue
        # Hold on to what must stay visible before covering its parent, then bind it back in place.
        held = [(k, os.open(k, os.O_PATH | os.O_DIRECTORY)) for k in [workdir, *keep] if _inside(k, path) and os.path.isdir(k)]
        _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755")
        for kept, fd in held:
            os.makedirs(kept, mode=0o755, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", kept, None, MS_BIND | MS_REC)
            os.close(fd)
    for mountpoint, options, fstype in list(_mounts()):
        if "ro" in options:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        flags |= (MS_NOSUID if "nosuid" in options else 0) | (MS_NODEV if "nodev" in options else 0) | (MS_NOEXEC if "noexec" in options else 0)
        try:
            _mount(None, mountpoint, None, flags)
        except OSError:
            if fstype not in SPECIAL_FS:
                raise
    _mount("tmpfs", workdir, "tmpfs", MS_NOSUID | MS_NODEV, workdir_options)


def prepare(config):
    """Write the program and its inputs into the (fresh, empty) working directory."""
    for name, text in config["files"].items():
        path = os.path.join(config["workdir"], name)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(path, 0o644)


def report(config):
    """Tell the runner which files the program left (they vanish with the namespace)."""
    workdir, found = config["workdir"], []
    for folder, _, names in os.walk(workdir):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), workdir)
            if rel not in config["files"] and len(found) < 100:
                found.append(rel)
    os.write(config["report_fd"], json.dumps(sorted(found)).encode())
    os.close(config["report_fd"])


def limit(config):
    mb = 1024 * 1024
    for kind, soft, hard in (
        (resource.RLIMIT_CPU, config["cpu_seconds"], config["cpu_seconds"] + 1),  # SIGXCPU, then SIGKILL
        (resource.RLIMIT_AS, config["memory_mb"] * mb, config["memory_mb"] * mb),
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


def main():
    config = json.loads(sys.stdin.read())
    try:
        if config.get("lock_down"):
            lock_down(config["workdir"], config.get("hide", []), config.get("keep", []), config["workdir_options"])
        prepare(config)
    except OSError as exc:
        os.write(2, f"sandbox: cannot set up the filesystem: {exc}\n".encode())
        os._exit(125)
    if config.get("probe"):
        os._exit(0)
    child = os.fork()
    if child == 0:
        start(config)
    while True:  # PID 1 of the namespace: reap everything, leave with the program's status
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(125)
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            report(config)
            os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
