"""Which videos a server may open: the folders (or single files) it was given, and the uploads kept
in the cache. Everything a client names — a path typed in the page, a LangGraph run's context, an
MCP tool's argument — goes through ``VideoFolders.resolve``, so nothing outside them is reachable
(``..``, absolute paths elsewhere, and links that lead outside are all refused)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from ..config import Settings
from ..errors import InputError
from ..limits import check_path, quoted

UPLOADS = "uploads"


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class VideoFolders:
    def __init__(self, roots: Iterable[str | Path], uploads: Path | None = None, suffixes: Iterable[str] | None = None):
        from ..index.batch import VIDEO_SUFFIXES

        self.roots = [Path(r).expanduser().resolve() for r in roots]
        self.uploads = uploads.resolve() if uploads is not None else None
        self.suffixes = tuple(s.lower() for s in (suffixes or VIDEO_SUFFIXES))

    @classmethod
    def from_settings(cls, settings: Settings, given: Iterable[str | Path] = ()) -> VideoFolders:
        """The folders named on the command line, else ``serve.video_dirs``, else the current folder;
        uploads live in ``<cache>/uploads``."""
        given = list(given)
        for path in given:
            if not Path(path).exists():
                raise InputError(f"{path} does not exist; name folders or videos that do")
        roots = given or list(settings.serve.video_dirs) or [Path.cwd()]
        return cls(roots, settings.cache_dir / UPLOADS)

    @property
    def all_roots(self) -> list[Path]:
        return [*self.roots, *([self.uploads] if self.uploads else [])]

    def resolve(self, name: str | Path) -> Path:
        """The video ``name`` refers to, if it lies inside an allowed folder (a relative name is
        looked up in each folder in turn); otherwise an ``InputError`` that reveals nothing about
        what exists outside."""
        text = str(name).strip()
        if not text:
            raise InputError("no video was named; pick one of the listed videos")
        check_path(text)
        raw = Path(text).expanduser()
        candidates = [raw] if raw.is_absolute() else [root / raw for root in self.all_roots if root.is_dir()]
        candidates += [] if raw.is_absolute() else [root for root in self.roots if root.is_file() and root.name == text]
        for candidate in candidates:
            try:
                real = candidate.resolve()
                found = any(_within(real, root) for root in self.all_roots) and real.is_file()
            except OSError:  # a name too long for the file system: no video of ours
                continue
            if found:
                if real.suffix.lower() not in self.suffixes:
                    opens = ", ".join(self.suffixes)
                    raise InputError(f"{quoted(raw.name)} is not a video file this server opens ({opens})")
                return real
        raise InputError(
            f"{quoted(text)} is not one of the videos this server may open; pick one inside {self.describe()}"
        )

    def describe(self) -> str:
        return ", ".join(str(r) for r in self.roots) + (" or an upload" if self.uploads else "")

    def videos(self) -> list[Path]:
        """Every video in the allowed folders and the uploads, sorted by path."""
        found: set[Path] = set()
        for root in self.all_roots:
            if root.is_file() and root.suffix.lower() in self.suffixes:
                found.add(root)
            elif root.is_dir():
                for path in root.rglob("*"):
                    if path.suffix.lower() in self.suffixes and not path.name.startswith(".") and path.is_file():
                        real = path.resolve()
                        if any(_within(real, r) for r in self.all_roots):
                            found.add(real)
        return sorted(found)

    def save_upload(self, source: str | Path, filename: str, max_bytes: int, types: Iterable[str]) -> Path:
        """Keep an uploaded file in the uploads folder under a name made from its content, written
        atomically (a rename of a complete file). ``source`` is moved when it can be, else copied."""
        from ..fsutil import atomic_path

        if self.uploads is None:
            raise InputError("this server takes no uploads")
        source = Path(source)
        suffix = Path(filename).suffix.lower()
        allowed = tuple(t.lower() for t in types)
        if suffix not in allowed:
            raise InputError(f"{Path(filename).name} is not an accepted upload; send one of {', '.join(allowed)}")
        size = source.stat().st_size
        if size > max_bytes:
            raise InputError(f"the upload is {size / 2**20:.0f} MB, above the limit of {max_bytes / 2**20:.0f} MB (serve.max_upload_mb)")
        if size == 0:
            raise InputError(f"{Path(filename).name} is empty")
        digest = hashlib.sha256()
        with open(source, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(filename).stem)[:48].strip("._") or "video"
        target = self.uploads / f"{stem}-{digest.hexdigest()[:12]}{suffix}"
        if target.exists():
            return target
        with atomic_path(target) as tmp:
            try:
                os.replace(source, tmp)
            except OSError:  # another file system
                shutil.copyfile(source, tmp)
        return target
