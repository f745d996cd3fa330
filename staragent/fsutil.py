"""Atomic writes and locks: nothing half-written is ever visible under its final name; whether
the process that left something behind (a lock, a folder) is still alive; and whether a failed write
came from a full disk."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` in one rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp_path, 0o644)  # mkstemp makes owner-only files; outputs are ordinary files
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


@contextlib.contextmanager
def atomic_dir(path: str | Path) -> Iterator[Path]:
    """Yield a temporary directory beside ``path``; on success it replaces ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    os.chmod(tmp, 0o755)  # mkdtemp makes owner-only directories; outputs are ordinary directories
    try:
        yield tmp
        if path.exists():
            old = path.with_name(f".{path.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_text(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def to_json(data: Any, **options: Any) -> str:
    """JSON text that UTF-8 can hold. A file name with a byte that is not UTF-8 reaches Python as a
    lone surrogate (PEP 383); it is written as a ``\\u`` escape, which reads back as the same name."""
    text = json.dumps(data, ensure_ascii=False, default=str, **options)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_json(path: str | Path, data: Any) -> None:
    write_text(path, to_json(data, indent=2) + "\n")


def write_jsonl(path: str | Path, rows: list[Any]) -> None:
    write_text(path, "".join(to_json(r) + "\n" for r in rows))


def read_json(path: str | Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def read_jsonl(path: str | Path) -> list[Any]:
    """Read a JSON-lines file, skipping a torn last line left by a crash mid-append."""
    rows = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if i == len(lines) - 1:
                break
            raise
    return rows


def append_jsonl(path: str | Path, row: Any) -> None:
    """Append one record and fsync, so a killed process loses at most the line being written."""
    line = to_json(row) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def stable_hash(data: Any, length: int = 16) -> str:
    """Hash of a JSON-serialisable value, independent of dict ordering."""
    blob = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:length]


def repair_jsonl(path: str | Path) -> None:
    """Cut a torn last line (a crash mid-append) so that the next append starts on a clean line."""
    path = Path(path)
    if not path.exists():
        return
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    cut = data.rfind(b"\n") + 1
    with open(path, "r+b") as fh:
        fh.truncate(cut)
        fh.flush()
        os.fsync(fh.fileno())


def process_started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from /proc), None when there is no such
    process or no /proc."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def process_alive(pid: int, started: str | None = None) -> bool:
    """Whether process ``pid`` exists; with ``started`` (``process_started`` of the process meant),
    a newer process that took the same number does not count."""
    if started is not None and Path("/proc/self/stat").exists():
        return process_started(pid) == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, but is not ours to signal
        return True
    return True


LOW_SPACE_BYTES = 2**20
SQLITE_FULL = 13


def out_of_space(exc: BaseException | None, where: str | Path) -> bool:
    """Whether ``exc``, or an error that led to it, comes from a full disk at ``where``: ENOSPC or
    EDQUOT, SQLite's "database or disk is full", or a write cut short without a reason (numpy's
    ``tofile``, SQLite's shared memory) while that disk has next to nothing free."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(exc, sqlite3.Error) and getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL:
            return True
        if isinstance(exc, (OSError, sqlite3.OperationalError)) and free_bytes(where) < LOW_SPACE_BYTES:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def free_bytes(where: str | Path) -> int:
    """Bytes free on the disk holding ``where`` (its nearest existing folder); a large number when unknown."""
    path = Path(where)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return 2**62
