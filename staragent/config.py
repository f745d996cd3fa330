"""Settings: one object, read from (highest first) keyword arguments, ``STARAGENT_*`` environment
variables (nested fields with ``__``, e.g. ``STARAGENT_INDEX__KEYFRAME_INTERVAL=5``), a TOML file
(``STARAGENT_CONFIG`` or ``~/.config/staragent/config.toml``), and the defaults below."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

Profile = Literal["offline", "local", "openai"]
PROFILES: tuple[str, ...] = ("offline", "local", "openai")


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "staragent"


def _config_file() -> Path:
    return Path(os.environ.get("STARAGENT_CONFIG") or Path.home() / ".config" / "staragent" / "config.toml")


class IndexSettings(BaseModel):
    """Preprocessing parameters. Each stage fingerprints the fields it reads, so changing one
    re-runs only the stages that depend on it."""

    analysis_fps: float = Field(2.0, gt=0, description="frames per second examined for scene cuts")
    analysis_width: int = Field(192, ge=32, description="width of the downscaled frames used for scene cuts")
    scene_threshold: float = Field(
        27.0, gt=0, le=255, description="PySceneDetect content-detector score (0-255) that marks a cut"
    )
    min_scene_len: float = Field(1.0, ge=0, description="seconds; shorter scenes merge into the previous one")
    keyframe_interval: float = Field(10.0, gt=0, description="longest gap in seconds between two keyframes")
    keyframe_width: int = Field(960, ge=64, description="keyframes wider than this are downscaled")
    decode_nonref: bool = Field(True, description="skip decoding non-reference frames (faster, same keyframes)")
    vad_threshold: float = Field(0.5, gt=0, lt=1)
    min_silence: float = Field(0.5, ge=0, description="silences at least this long separate speech segments")
    segment_max: float = Field(30.0, gt=1, description="longest segment in seconds")
    segment_min: float = Field(2.0, ge=0, description="shorter segments merge into a neighbour")
    ocr_min_score: float = Field(0.5, ge=0, le=1)
    ocr_min_height: int = Field(720, ge=0, description="smaller keyframes are upscaled for OCR (small text loses its spaces)")
    ocr_reuse_threshold: float = Field(
        0.02, ge=0, description="a keyframe this close (0-1 mean change) to the previous one reuses its OCR"
    )
    acoustic_window: float = Field(0.5, gt=0, description="seconds per acoustic-statistics window")
    subtitles: bool = Field(True, description="use sidecar or embedded subtitles for speech when present")
    allow_silent: bool = Field(False, description="index videos without an audio stream (pictures only)")


class ModelSettings(BaseModel):
    """Which backend and which weights each expert uses. ``None`` means: what the profile picks."""

    device: str = Field("auto", description="auto | cpu | cuda | cuda:N")
    asr: str | None = Field(None, description="pocketsphinx | faster-whisper")
    ocr: str | None = Field(None, description="rapidocr | easyocr")
    ocr_languages: list[str] = Field(default_factory=lambda: ["en"])


class PlannerSettings(BaseModel):
    backend: str | None = Field(None, description="rules | transformers | openai (None: the profile's choice)")
    model: str = Field("Qwen/Qwen3-4B", description="Hugging Face id or local path for the transformers backend")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint for the openai backend")
    api_key: str | None = Field(None, description="key for the endpoint (or OPENAI_API_KEY)")
    openai_model: str = Field("gpt-4o-mini", description="model name served by the endpoint")
    temperature: float = 0.0
    max_tokens: int = 1024


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="STARAGENT_", env_nested_delimiter="__", extra="ignore")

    profile: Profile = "offline"
    cache_dir: Path = Field(default_factory=_default_cache_dir)
    max_steps: int = Field(6, ge=1, description="planner rounds with tool calls before it must answer")
    search_k: int = Field(5, ge=1)
    rrf_k: int = Field(60, ge=1, description="reciprocal-rank-fusion constant")
    tools: list[str] | None = Field(None, description="tool names the agent may use (None: all available)")
    progress: bool = Field(True, description="show progress bars on a terminal")
    index: IndexSettings = Field(default_factory=IndexSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    planner: PlannerSettings = Field(default_factory=PlannerSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=_config_file())

    @property
    def index_root(self) -> Path:
        return self.cache_dir / "index"

    @property
    def planner_backend(self) -> str:
        if self.planner.backend:
            return self.planner.backend
        return {"offline": "rules", "local": "transformers", "openai": "openai"}[self.profile]

    @property
    def asr_backend(self) -> str:
        return self.models.asr or ("pocketsphinx" if self.profile == "offline" else "faster-whisper")

    @property
    def ocr_backend(self) -> str:
        return self.models.ocr or ("rapidocr" if self.profile == "offline" else "easyocr")


def load_settings(**overrides) -> Settings:
    """Build settings, letting explicit keyword overrides win (``None`` values are ignored)."""
    return Settings(**{k: v for k, v in overrides.items() if v is not None})
