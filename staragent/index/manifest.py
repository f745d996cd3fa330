"""``manifest.json``: what a VideoIndex was built from, with what, and which stages are done."""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel, Field

from ..fsutil import read_json, write_json
from ..version import __version__

MANIFEST = "manifest.json"
FORMAT = 1


class StageRecord(BaseModel):
    fingerprint: str
    params: dict = Field(default_factory=dict)
    seconds: float = 0.0
    finished_at: float = Field(default_factory=time.time)
    info: dict = Field(default_factory=dict)


class Manifest(BaseModel):
    format: int = FORMAT
    staragent: str = __version__
    video: dict = Field(default_factory=dict, description="path, fingerprint, size of the source file")
    media: dict = Field(default_factory=dict, description="what probing the file found")
    profile: str = "offline"
    models: dict[str, str] = Field(default_factory=dict, description="role -> backend:model that built the index (e.g. asr -> faster-whisper:small)")
    stages: dict[str, StageRecord] = Field(default_factory=dict)

    @classmethod
    def load(cls, directory: Path) -> Manifest | None:
        path = directory / MANIFEST
        if not path.exists():
            return None
        manifest = cls.model_validate(read_json(path))
        return manifest if manifest.format == FORMAT else None

    def save(self, directory: Path) -> None:
        write_json(directory / MANIFEST, self.model_dump())
