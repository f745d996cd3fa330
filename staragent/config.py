"""Settings: one object, read from (highest first) keyword arguments, ``STARAGENT_*`` environment
variables (nested fields with ``__``, e.g. ``STARAGENT_INDEX__KEYFRAME_INTERVAL=5``), a TOML file
(``STARAGENT_CONFIG`` or ``~/.config/staragent/config.toml``), and the defaults below."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator
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


def env_cache_dir() -> Path:
    """The cache folder as the environment names it (``STARAGENT_CACHE_DIR``, else the XDG default),
    for code that derives data once and has no Settings at hand."""
    return Path(os.environ["STARAGENT_CACHE_DIR"]) if os.environ.get("STARAGENT_CACHE_DIR") else _default_cache_dir()


INDEX_LANES = 3
"""the index builds its audio, video and on-screen text lanes side by side (``index.builder``)"""


def usable_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def lane_threads(setting: int = 0) -> int:
    """Threads for work inside one lane of the index (a model, the video decoder): ``setting`` when
    given, else the lane's share of the cores, at least one. The lanes already keep every core busy;
    threads beyond a lane's share wait on one another and cost more CPU than they save."""
    return setting or max(1, usable_cores() // INDEX_LANES)


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
    captions: bool = Field(False, description="caption the video densely with the video refiner while indexing (slow)")
    caption_window: float = Field(30.0, gt=1, description="longest stretch of a scene described by one caption")
    audio_tag_window: float = Field(10.0, gt=0.5, description="seconds of audio per audio-tagger call")
    keyframe_reuse_threshold: float = Field(
        0.02, ge=0, description="a keyframe this close (0-1 mean change) to the previous one shares its picture"
    )
    ocr_fps: float = Field(1.0, gt=0, le=10, description="frames per second examined for on-screen text (only changed ones are read)")
    ocr_detect_width: int = Field(960, ge=160, description="frames are downscaled to this width for text detection (recognition reads the full frame)")
    ocr_min_score: float = Field(0.5, ge=0, le=1)
    ocr_min_height: int = Field(720, ge=0, description="text from frames less tall than this is enlarged before it is read (small text loses its spaces)")
    picture_labels: Literal["auto", "always", "never"] = Field(
        "auto", description="label keyframes with the coarse object classifier and count faces: auto = when no SigLIP model can run"
    )
    acoustic_window: float = Field(0.5, gt=0, description="seconds per acoustic-statistics window")
    subtitles: bool = Field(True, description="use sidecar or embedded subtitles for speech when present")
    require_audio: bool = Field(
        False, description="refuse a video without an audio stream (by default it is indexed from its pictures alone, with a note)"
    )


class ModelSettings(BaseModel):
    """Which backend and which weights each expert uses. A backend of ``None`` means: what the
    profile picks (see ``Settings.backend``); ``"none"`` turns a role off. Model ids are Hugging
    Face ids (read from the local cache, never downloaded) or paths to local copies."""

    device: str = Field("auto", description="auto | cpu | cuda | cuda:N")
    dtype: str = Field("auto", description="auto (bfloat16/float16 on a GPU, float32 on the CPU) | bfloat16 | float16 | float32")
    memory_budget_gb: float | None = Field(
        None, gt=0, description="keep the resident experts under this many GB; the least recently used are unloaded first"
    )
    hf_cache: Path | None = Field(None, description="Hugging Face hub cache to read weights from (default: HF_HUB_CACHE)")
    pack_cache: Path | None = Field(
        None, description="folder whose packs/ holds the model packs, assembled from their packages on first use (default: cache_dir)"
    )

    asr: str | None = Field(None, description="faster-whisper | pocketsphinx (the last resort)")
    asr_model: str | None = Field(
        None,
        description="faster-whisper model for preprocessing: base or tiny.en (served by the bundled model packs), another size, "
        "a CTranslate2 repo id or a path (None: base in the offline profile, small in the others)",
    )
    asr_refine_model: str = Field("large-v3", description="faster-whisper model for refining a time range and translating")
    asr_compute_type: str = Field("auto", description="CTranslate2 compute type (auto: float16 on a GPU, int8 on the CPU)")
    asr_refine: str | None = Field(None, description="none | faster-whisper (re-transcribing and translating a range)")
    asr_refine_max_seconds: float = Field(
        600.0, gt=0, description="longest range transcribe_speech re-transcribes with asr_refine (longer ones show the index transcript)"
    )
    asr_batch_size: int = Field(16, ge=1, description="speech chunks decoded together while indexing")
    asr_beam_size: int = Field(
        0, ge=0, description="beam width of the speech recognition that indexes a video (0: 3 on the CPU, 5 on a GPU; docs/performance.md)"
    )
    cpu_threads: int = Field(
        0, ge=0, description="threads each CPU model may use (0: every core for a model that runs alone; the index's OCR, sound tagger and video decoder take their lane's share)"
    )

    ocr: str | None = Field(None, description="rapidocr | easyocr")
    ocr_languages: list[str] = Field(default_factory=lambda: ["en"])
    easyocr_dir: Path | None = Field(None, description="folder with easyocr's .pth files (default: EASYOCR_MODULE_PATH/model or ~/.EasyOCR/model)")

    vision: str | None = Field(None, description="none | siglip")
    vision_model: str = Field("timm/ViT-SO400M-14-SigLIP-384", description="open_clip SigLIP: a hub id with open_clip_config.json, or a local folder")
    vision_batch_size: int = Field(32, ge=1, description="keyframes embedded per forward pass")

    vlm: str | None = Field(None, description="none | qwen2.5-vl")
    vlm_model: str = Field("Qwen/Qwen2.5-VL-7B-Instruct")
    vlm_fps: float = Field(1.0, gt=0, description="frames per second the video refiner looks at")
    vlm_max_frames: int = Field(64, ge=2, description="most frames for one range (longer ranges are sampled more sparsely)")
    vlm_max_pixels: int = Field(360 * 420, ge=28 * 28, description="pixels per frame after resizing")
    vlm_total_pixels: int = Field(24576 * 28 * 28, ge=28 * 28, description="pixel budget of all frames together")
    vlm_max_new_tokens: int = Field(512, ge=1)

    audio_tagger: str | None = Field(None, description="yamnet (the bundled model pack) | transformers (an AudioSet classifier) | none")
    audio_tagger_model: str = Field("MIT/ast-finetuned-audioset-10-10-0.4593", description="the transformers backend's checkpoint")
    audio_tag_threshold: float = Field(0.25, ge=0, le=1, description="lowest sigmoid score kept as a sound label")
    audio_tag_top_k: int = Field(5, ge=1, description="most labels kept per window")
    audio_tag_batch_size: int = Field(16, ge=1)

    picture_labels: str | None = Field(None, description="efficientnet-lite (the bundled ImageNet classifier and dlib's face detector) | none")
    picture_label_threshold: float = Field(
        0.8, gt=0, le=1, description="summed class probability a picture label needs to be stated (set on the dev media: docs/models.md)"
    )
    face_threshold: float = Field(0.5, description="dlib HOG detection score a face needs to be counted (set on the dev media)")

    text_embedder: str | None = Field(None, description="e5 (the bundled multilingual-e5-small pack) | none: dense text search beside BM25")

    audio_lm: str | None = Field(None, description="none | transformers (Audio Flamingo 3 or Qwen2-Audio)")
    audio_lm_model: str = Field("nvidia/audio-flamingo-3-hf")
    audio_lm_max_new_tokens: int = Field(256, ge=1)
    audio_lm_max_windows: int = Field(
        8, ge=1, description="most windows refine_audio listens to in one range (a window is what the model hears at once)"
    )

    chat: str | None = Field(
        None, description="none | transformers: the local chat model (planner.model) tools use for summaries and translation (None: when the planner is transformers)"
    )


class PlannerSettings(BaseModel):
    backend: str | None = Field(None, description="rules | transformers | openai (None: the profile's choice)")
    model: str = Field("Qwen/Qwen3-4B", description="Hugging Face id or local path for the transformers backend")
    base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint for the openai backend (None: OpenAI with an API key, else `staragent llm serve` at http://127.0.0.1:8765/v1)"
    )
    api_key: str | None = Field(None, description="key for the endpoint (or OPENAI_API_KEY)")
    openai_model: str | None = Field(
        None, description="model name at the endpoint (None: the one model a local server serves, asked at /models; gpt-4o-mini at OpenAI)"
    )
    temperature: float = 0.0
    max_tokens: int = 1024
    thinking: bool = Field(False, description="let a local Qwen3 reason in <think> blocks before it acts (slower)")
    static_cache_tokens: int | None = Field(
        None, ge=0,
        description="a local model on a GPU decodes from a preallocated cache this many tokens long, which lets transformers "
        "capture each decoding step as CUDA graphs (None: 8192 on a GPU, off on the CPU; 0: off)",
    )
    small_model: bool | None = Field(
        None,
        description="plan as a small model needs: a short prompt, tools chosen for the question, a search first "
        "(None: when the model's name gives at most 3B parameters, e.g. qwen2.5-coder-1.5b-instruct)",
    )
    answer_retries: int = Field(
        2, ge=0, le=5, description="times a language model's answer that cites nothing or times outside the video is sent back"
    )


class DetectorSettings(BaseModel):
    """Open-vocabulary object detection (object_detection, count_objects)."""

    model: str | None = Field(
        None, description="Hugging Face id or local path of an OWLv2 / OWL-ViT / Grounding DINO checkpoint (None: the profile's default)"
    )
    threshold: float = Field(0.2, ge=0, le=1, description="lowest detection score kept")
    nms_iou: float = Field(0.5, gt=0, le=1, description="boxes of one label overlapping more than this are merged")
    max_frames: int = Field(8, ge=1, description="most frames examined per time range")


class FaceSettings(BaseModel):
    """Face detection (OpenCV YuNet) and recognition (OpenCV SFace) against a gallery of named faces."""

    detector: Path | None = Field(None, description="YuNet ONNX file (face_detection_yunet_*.onnx)")
    recognizer: Path | None = Field(None, description="SFace ONNX file (face_recognition_sface_*.onnx); without it faces stay unnamed")
    gallery: Path | None = Field(
        None, description="folder of face images named after the person (alice.jpg or alice/*.jpg); roles.json maps names to roles"
    )
    score_threshold: float = Field(0.6, ge=0, le=1, description="lowest face-detection score kept")
    match_threshold: float = Field(0.363, ge=-1, le=1, description="lowest cosine similarity that names a face")
    max_frames: int = Field(8, ge=1)


class TranslationSettings(BaseModel):
    """Machine translation of text (translate_text, and translate_speech when Whisper cannot do it)."""

    models: dict[str, str] = Field(
        default_factory=dict, description='per language pair, e.g. {"fr-en": "Helsinki-NLP/opus-mt-fr-en"}'
    )
    multilingual: str | None = Field(
        None, description="one model for every pair (NLLB, M2M100 or mBART-50); None: the profile's default"
    )
    max_new_tokens: int = Field(256, ge=1)


class ActivitySettings(BaseModel):
    """Action recognition (detect_activities): a video classifier, else the VLM."""

    model: str | None = Field(None, description="a transformers video classifier, e.g. MCG-NJU/videomae-base-finetuned-kinetics")
    clip_seconds: float = Field(8.0, gt=0, description="length of each clip that is classified")
    max_clips: int = Field(8, ge=1)
    top_k: int = Field(3, ge=1)
    threshold: float = Field(0.15, ge=0, le=1, description="lowest class probability reported")


class SandboxSettings(BaseModel):
    """Limits of execute_code's sandbox. Code runs in fresh namespaces (no network), sees only the
    system folders and the Python installation (read-only) and a throw-away directory, as an
    unprivileged user, under these limits."""

    method: Literal["auto", "unshare", "bwrap"] = Field("auto", description="unshare needs root; bwrap works for other users")
    wall_seconds: float = Field(10.0, gt=0, le=600)
    cpu_seconds: int = Field(10, ge=1, le=600)
    memory_mb: int = Field(512, ge=64, description="memory of the whole run, all its processes together")
    max_processes: int = Field(32, ge=1, description="processes of the whole run at once")
    max_output_bytes: int = Field(64_000, ge=1024, description="stdout and stderr are each cut at this size")
    max_file_mb: int = Field(16, ge=1, description="largest file the code may write")
    workdir_mb: int = Field(64, ge=1, description="size of the throw-away working directory (a tmpfs, so it uses memory)")
    python: str | None = Field(None, description="interpreter for Python code (default: the one running staragent)")
    shell: bool = Field(True, description="offer bash as well as Python")
    max_inputs_bytes: int = Field(1_000_000, ge=0, description="largest `inputs` (as JSON) execute_code accepts")
    hide: list[str] = Field(default_factory=list, description="folders to show empty should they lie in the sandbox's view")


class WebSettings(BaseModel):
    enabled: bool = Field(True, description="offer web_search (it needs network access)")
    timeout: float = Field(10.0, gt=0)
    region: str = Field("wt-wt", description="DuckDuckGo region code")
    max_results: int = Field(10, ge=1, le=50)


class McpServerSettings(BaseModel):
    """An MCP server whose tools the agent may call: a program started with its standard input and
    output as the channel, or the URL of a server that speaks streamable HTTP."""

    command: list[str] | None = Field(None, description='the program and its arguments, e.g. ["python", "my_server.py"]')
    url: str | None = Field(None, description="a streamable-HTTP endpoint, e.g. http://127.0.0.1:8766/mcp")
    env: dict[str, str] = Field(default_factory=dict, description="environment variables added for the program")
    headers: dict[str, str] = Field(default_factory=dict, description="HTTP headers sent to the URL (e.g. Authorization)")
    timeout: float = Field(60.0, gt=0, description="seconds one tool call may take")

    @field_validator("command", mode="before")
    @classmethod
    def _split_command(cls, value):
        import shlex

        return shlex.split(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _one_channel(self) -> McpServerSettings:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either command (a program to start) or url (a streamable-HTTP endpoint), not both or neither")
        return self


class ToolsetSettings(BaseModel):
    """Settings of the agent's tools and of the expert models only tools use."""

    detector: DetectorSettings = Field(default_factory=DetectorSettings)
    faces: FaceSettings = Field(default_factory=FaceSettings)
    translation: TranslationSettings = Field(default_factory=TranslationSettings)
    activity: ActivitySettings = Field(default_factory=ActivitySettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    summary_method: Literal["auto", "extractive", "llm", "vlm"] = Field(
        "auto", description="summarize_segment: auto uses the chat model, else the VLM, else picks sentences"
    )
    offer: Literal["runnable", "all"] = Field(
        "runnable", description="tools offered when none are named: those whose models are here, or all (e.g. for benchmark runs)"
    )
    mcp_servers: dict[str, McpServerSettings] = Field(
        default_factory=dict, description="MCP servers whose tools are offered beside the built-in ones, by a name of your choice"
    )


class ServeSettings(BaseModel):
    """What the page (`staragent ui`), the MCP server (`staragent mcp`) and the LangGraph HTTP server
    may open, and who may talk to them."""

    video_dirs: list[Path] = Field(
        default_factory=list,
        description="folders (or single videos) the page, the MCP server and the HTTP API may open; empty: the current folder",
    )
    max_upload_mb: float = Field(4096, gt=0, description="largest video the page accepts as an upload")
    upload_types: list[str] = Field(
        default_factory=lambda: [".mp4", ".mkv", ".webm", ".mov", ".avi", ".m4v"], description="file endings an upload may have"
    )
    token: str | None = Field(None, description="the secret clients must present; required when serving beyond this machine")


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
    toolset: ToolsetSettings = Field(default_factory=ToolsetSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)

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


def load_settings(**overrides) -> Settings:
    """Build settings, letting explicit keyword overrides win (``None`` values are ignored).

    A value that does not fit, a config file that is not TOML, or a cache folder that cannot be
    used raises ``ConfigError`` naming the setting and where to change it."""
    import tomllib

    from pydantic import ValidationError

    from .errors import ConfigError

    named = os.environ.get("STARAGENT_CONFIG")
    if named and not Path(named).is_file():
        raise ConfigError(f"STARAGENT_CONFIG names {named}, which is not a file; create it or unset STARAGENT_CONFIG")
    try:
        settings = Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the config file {_config_file()} is not valid TOML ({exc}); fix it or point STARAGENT_CONFIG elsewhere") from None
    _warn_unknown_keys(_config_file())
    _check_cache_dir(settings.cache_dir)
    return settings


def _warn_unknown_keys(path: Path) -> None:
    """A misspelt key in the config file would otherwise be ignored without a word."""
    import logging
    import tomllib

    if not path.is_file():
        return
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    unknown = _unknown_keys(data, Settings)
    if unknown:
        logging.getLogger("staragent.config").warning("%s: unknown setting(s) %s are ignored (see staragent/config.py)", path, ", ".join(unknown))


def _unknown_keys(data: dict, model: type[BaseModel], prefix: str = "") -> list[str]:
    unknown = []
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is None:
            unknown.append(prefix + key)
        elif isinstance(value, dict) and isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            unknown += _unknown_keys(value, field.annotation, f"{prefix}{key}.")
    return unknown


def _describe(exc) -> str:
    problems = []
    for error in exc.errors():
        name = ".".join(str(part) for part in error["loc"])
        env = "STARAGENT_" + "__".join(str(part).upper() for part in error["loc"])
        problems.append(f"{name} = {error.get('input')!r}: {error['msg'].lower()} (set by a flag, {env} or {name} in {_config_file()})")
    return "invalid setting: " + "; ".join(problems)


def _check_cache_dir(path: Path) -> None:
    """The cache folder exists as a folder, or can be made."""
    from .errors import ConfigError

    if path.exists() and not path.is_dir():
        raise ConfigError(f"the cache folder {path} is not a folder; choose another with --cache-dir or STARAGENT_CACHE_DIR")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"the cache folder {path} cannot be created ({exc.strerror}); choose another with --cache-dir or STARAGENT_CACHE_DIR") from None
