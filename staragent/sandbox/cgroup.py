"""A control group of its own for each sandboxed run, where this machine lets us make one: it caps
the memory (swap included) and the number of processes of the whole run, and its event counters
say, from the kernel's side, whether the run was killed for memory or refused a process.

cgroup v2 is used where it offers the memory controller below our own group (or beside it, where
our parent delegates it to us); otherwise the v1 ``memory`` (and ``pids``) hierarchies. When
neither can be written (an ordinary user without delegation, a container without the
controllers), ``RunCgroup.create`` returns None and the launcher's watchdog keeps the memory limit.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import secrets
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..fsutil import process_alive

PREFIX = "staragent-run-"

def _mountinfo() -> list[tuple[str, str, str, set[str]]]:
    """(root inside the hierarchy, mount point, filesystem type, super options) of every mount."""
    found = []
    with open("/proc/self/mountinfo") as info:
        for line in info:
            before, _, after = line.partition(" - ")
            fields, rest = before.split(), after.split()
            if len(fields) >= 5 and len(rest) >= 3:
                found.append((fields[3], fields[4], rest[0], set(rest[2].split(","))))
    return found


def _own_groups() -> dict[str, str]:
    """Our group in each hierarchy, by controller ("" for v2), from /proc/self/cgroup."""
    groups = {}
    with open("/proc/self/cgroup") as lines:
        for line in lines:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                groups[controller] = path
    return groups


def _folder(mount_root: str, mount_point: str, group: str) -> Path | None:
    """Where ``group`` lies in a mounted hierarchy (None when the mount does not show it)."""
    if group != mount_root and not group.startswith(mount_root.rstrip("/") + "/"):
        return None
    return Path(mount_point) / group[len(mount_root):].lstrip("/")


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _counter(path: Path, key: str) -> int:
    """A value of a flat-keyed file such as memory.events ("oom_kill 3")."""
    for line in _read(path).splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _candidates() -> list[tuple[str, Path, Path | None]]:
    """Where run groups could go: ("v2", folder, folder or None for pids) or ("v1", memory folder, pids folder or None)."""
    mounts, groups, found = _mountinfo(), _own_groups(), []
    for root, point, fstype, _ in mounts:
        own = _folder(root, point, groups[""]) if fstype == "cgroup2" and "" in groups else None
        if own is None:
            continue
        # Below our group where it may hand out controllers (the root of a hierarchy), else beside it.
        with contextlib.suppress(OSError):
            (own / "cgroup.subtree_control").write_text("+memory +pids")
        for base in (own, own.parent):
            offered = _read(base / "cgroup.subtree_control").split()
            if "memory" in offered and os.access(base, os.W_OK):
                found.append(("v2", base, base if "pids" in offered else None))
    v1 = {}
    for root, point, fstype, options in mounts:
        for controller in ("memory", "pids"):
            if fstype == "cgroup" and controller in options and controller in groups:
                folder = _folder(root, point, groups[controller])
                if folder is not None and os.access(folder, os.W_OK):
                    v1.setdefault(controller, folder)
    if "memory" in v1:
        found.append(("v1", v1["memory"], v1.get("pids")))
    return found


@functools.lru_cache(maxsize=1)
def _place() -> tuple[str, Path, Path | None] | None:
    """The first place where a group can be made and a process moved into it (tried once)."""
    try:
        candidates = _candidates()
    except OSError:
        return None
    for version, memory, pids in candidates:
        trial = RunCgroup._make(version, memory, pids, 256 * 1024 * 1024, 4)
        if trial is None:
            continue
        try:
            with trial.entry() as enter:
                subprocess.run(["/bin/true"], preexec_fn=enter, check=True, env={})
            return version, memory, pids
        except (OSError, subprocess.SubprocessError):
            continue
        finally:
            trial.remove()
    return None


@dataclass
class RunCgroup:
    version: str
    memory: Path
    pids: Path | None

    @classmethod
    def create(cls, memory_bytes: int, max_tasks: int) -> RunCgroup | None:
        """A fresh group holding at most ``memory_bytes`` and ``max_tasks`` processes, or None."""
        place = _place()
        return cls._make(*place, memory_bytes, max_tasks) if place else None

    @classmethod
    def _make(cls, version: str, memory_base: Path, pids_base: Path | None, memory_bytes: int, max_tasks: int) -> RunCgroup | None:
        name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        group = cls(version, memory_base / name, pids_base / name if pids_base else None)
        try:
            for folder in group.folders():
                folder.mkdir()
            if version == "v2":
                (group.memory / "memory.max").write_text(str(memory_bytes))
                group._try_write(group.memory / "memory.swap.max", "0")
                group._try_write(group.memory / "memory.oom.group", "1")  # an OOM kill takes the whole run
            else:
                (group.memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
                group._try_write(group.memory / "memory.memsw.limit_in_bytes", str(memory_bytes))
            if group.pids:
                (group.pids / "pids.max").write_text(str(max_tasks))
        except OSError:
            group.remove()
            return None
        return group

    @staticmethod
    def _try_write(path: Path, value: str) -> None:
        with contextlib.suppress(OSError):  # an optional knob (no swap accounting, an older kernel)
            path.write_text(value)

    def folders(self) -> list[Path]:
        return list(dict.fromkeys(f for f in (self.memory, self.pids) if f is not None))

    @contextlib.contextmanager
    def entry(self):
        """A ``preexec_fn`` that moves the new child into this group before it runs anything, so
        every process it starts is born inside. It only writes to files opened here beforehand."""
        fds = [os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for folder in self.folders()]

        def enter():
            for fd in fds:
                os.write(fd, b"0")

        try:
            yield enter
        finally:
            for fd in fds:
                os.close(fd)

    def out_of_memory(self) -> bool:
        """Did the kernel kill a process of the run for going over the memory limit?"""
        if self.version == "v2":
            return _counter(self.memory / "memory.events", "oom_kill") > 0
        return _counter(self.memory / "memory.oom_control", "oom_kill") > 0

    def refused_a_process(self) -> bool:
        """Did the run try to start a process past its limit?"""
        return self.pids is not None and _counter(self.pids / "pids.events", "max") > 0

    def _members(self) -> set[int]:
        return {int(p) for f in self.folders() for p in _read(f / "cgroup.procs").split()}

    def kill(self) -> None:
        if self.version == "v2" and (self.memory / "cgroup.kill").exists():
            self._try_write(self.memory / "cgroup.kill", "1")
        for pid in self._members():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Delete the group once its processes are gone (they are: the run's namespace is dead)."""
        for attempt in range(100):
            left = [f for f in self.folders() if f.exists()]
            for folder in left:
                with contextlib.suppress(OSError):
                    folder.rmdir()
            if not any(f.exists() for f in left):
                return
            if attempt % 10 == 9:
                self.kill()
            time.sleep(0.02)


def remove_stale() -> int:
    """Remove the run groups that processes killed before they could clean up left behind (their
    name carries the process id that made them; a group of a live process is left alone). Returns
    how many groups were removed."""
    try:
        bases = {folder for _, memory, pids in _candidates() for folder in (memory, pids) if folder is not None}
    except OSError:
        return 0
    removed = 0
    for base in bases:
        with contextlib.suppress(OSError):
            for folder in base.iterdir():
                made_by = re.fullmatch(re.escape(PREFIX) + r"(\d+)-[0-9a-f]+", folder.name)
                if made_by and folder.is_dir() and not process_alive(int(made_by[1])):
                    RunCgroup("v2" if (folder / "cgroup.kill").exists() else "v1", folder, None).remove()  # kills what is left inside
                    removed += not folder.exists()
    return removed
