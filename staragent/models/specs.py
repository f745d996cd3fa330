"""The expert models the pool knows how to load, keyed by role. The profile and settings decide
which backend fills each role (``Settings.backend``); each loader imports its heavy library only
when called, finds the weights locally (``weights.locate``) and never downloads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..config import Settings
from ..errors import ModelUnavailable
from .pool import ModelSpec
from .weights import locate

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pth", ".pt")


def role_off(role: str, settings: Settings) -> ModelUnavailable:
    return ModelUnavailable(
        f"no {role} model in the {settings.profile!r} profile; use --profile local (weights from the Hugging Face cache) "
        f"or set STARAGENT_MODELS__{role.upper()} to a backend"
    )


def _unknown(role: str, backend: str, choices: str) -> ModelUnavailable:
    return ModelUnavailable(f"{role} backend {backend!r} is not known; choose {choices}")


def _pick(role: str, settings: Settings, builders: dict[str, Callable[[], object]]):
    """Build the backend the settings choose for a role that may also be switched off."""
    backend = settings.backend(role)
    if backend in builders:
        return builders[backend]()
    if backend == "none":
        raise role_off(role, settings)
    raise _unknown(role, backend, " or ".join([*builders, "none"]))


def _hf(settings: Settings, field: str, what: str, required: tuple[str, ...] = ("config.json",)) -> Path:
    return locate(getattr(settings.models, field), what=what, setting=f"STARAGENT_MODELS__{field.upper()}", cache_dir=settings.models.hf_cache, required=required)


def folder_bytes(folder: Path) -> int:
    """Size of the weight files in a model folder: what the model will roughly take in memory."""
    return sum(f.stat().st_size for f in Path(folder).rglob("*") if f.suffix in WEIGHT_SUFFIXES and f.is_file())


def _size_of(field: str, what: str) -> Callable[[Settings], int]:
    return lambda settings: folder_bytes(_hf(settings, field, what, required=()))


# ---------------------------------------------------------------- speech


def _load_vad(settings: Settings, device: str):
    from .vad import SileroVAD

    return SileroVAD(threshold=settings.index.vad_threshold)


def _whisper(settings: Settings, device: str, field: str, batched: bool):
    from .whisper import FasterWhisperRecognizer, locate_whisper

    m = settings.models
    model = getattr(m, field)
    folder = locate_whisper(model, m.hf_cache, f"STARAGENT_MODELS__{field.upper()}")
    return FasterWhisperRecognizer(folder, model, device, m.asr_compute_type, batched=batched, batch_size=m.asr_batch_size, beam_size=m.asr_beam_size)


def _load_asr(settings: Settings, device: str):
    backend = settings.backend("asr")
    if backend == "pocketsphinx":
        from .asr import PocketSphinxRecognizer

        return PocketSphinxRecognizer()
    if backend == "faster-whisper":
        return _whisper(settings, device, "asr_model", batched=True)
    raise _unknown("asr", backend, "pocketsphinx or faster-whisper")


def _load_asr_refine(settings: Settings, device: str):
    return _pick("asr_refine", settings, {"faster-whisper": lambda: _whisper(settings, device, "asr_refine_model", batched=False)})


# ---------------------------------------------------------------- pictures


def _load_ocr(settings: Settings, device: str):
    backend = settings.backend("ocr")
    index = settings.index
    if backend == "rapidocr":
        from .ocr import RapidOcrReader

        return RapidOcrReader(min_score=index.ocr_min_score, min_height=index.ocr_min_height)
    if backend == "easyocr":
        from .ocr import EasyOcrReader, easyocr_dir

        folder = easyocr_dir(settings.models.easyocr_dir)
        return EasyOcrReader(settings.models.ocr_languages, folder, device, min_score=index.ocr_min_score, min_height=index.ocr_min_height)
    raise _unknown("ocr", backend, "rapidocr or easyocr")


def _siglip(settings: Settings, device: str):
    from .siglip import SiglipEncoder

    m = settings.models
    folder = _hf(settings, "vision_model", "SigLIP model", required=("open_clip_config.json",))
    return SiglipEncoder(folder, m.vision_model, device, m.dtype, m.vision_batch_size)


def _qwen_vl(settings: Settings, device: str):
    from .video_refiner import QwenVideoRefiner

    m = settings.models
    return QwenVideoRefiner(
        _hf(settings, "vlm_model", "video refiner"), m.vlm_model, device, m.dtype, fps=m.vlm_fps, max_frames=m.vlm_max_frames,
        max_pixels=m.vlm_max_pixels, total_pixels=m.vlm_total_pixels, max_new_tokens=m.vlm_max_new_tokens,
    )


def _load_vision(settings: Settings, device: str):
    return _pick("vision", settings, {"siglip": lambda: _siglip(settings, device)})


def _load_vlm(settings: Settings, device: str):
    return _pick("vlm", settings, {"qwen2.5-vl": lambda: _qwen_vl(settings, device)})


# ---------------------------------------------------------------- sounds


def _audio_tagger(settings: Settings, device: str):
    from .audio_tagger import TransformersAudioTagger

    m = settings.models
    return TransformersAudioTagger(_hf(settings, "audio_tagger_model", "audio tagger"), m.audio_tagger_model, device, m.dtype, m.audio_tag_batch_size)


def _audio_lm(settings: Settings, device: str):
    from .audio_lm import AudioLanguageModel

    m = settings.models
    return AudioLanguageModel(_hf(settings, "audio_lm_model", "audio-language model"), m.audio_lm_model, device, m.dtype, m.audio_lm_max_new_tokens)


def _load_audio_tagger(settings: Settings, device: str):
    return _pick("audio_tagger", settings, {"transformers": lambda: _audio_tagger(settings, device)})


def _load_audio_lm(settings: Settings, device: str):
    return _pick("audio_lm", settings, {"transformers": lambda: _audio_lm(settings, device)})


def _load_chat(settings: Settings, device: str):
    from .chat_transformers import load_chat_engine

    return load_chat_engine(settings, device)


def _chat_size(settings: Settings) -> int:
    return folder_bytes(locate(settings.planner.model, what="chat model", setting="STARAGENT_PLANNER__MODEL", cache_dir=settings.models.hf_cache))


def _load_detector(settings: Settings, device: str):
    from .detection import TransformersDetector, detector_model

    model = detector_model(settings)
    if model is None:
        raise ModelUnavailable(
            "no object detector is configured; set toolset.detector.model to an OWLv2, OWL-ViT or Grounding DINO "
            "checkpoint (e.g. google/owlv2-base-patch16-ensemble)"
        )
    cfg = settings.toolset.detector
    return TransformersDetector(model, device, threshold=cfg.threshold, nms_iou=cfg.nms_iou)


def _load_faces(settings: Settings, device: str):
    from .faces import OpenCvFaces

    cfg = settings.toolset.faces
    return OpenCvFaces(cfg.detector, cfg.recognizer, cfg.gallery, cfg.score_threshold, cfg.match_threshold)


def _load_translator(settings: Settings, device: str):
    from .translation import Seq2SeqTranslator, multilingual_model

    cfg = settings.toolset.translation
    return Seq2SeqTranslator(cfg.models, multilingual_model(settings), device, cfg.max_new_tokens)


def _load_activity(settings: Settings, device: str):
    from .activity import VideoClassifier

    model = settings.toolset.activity.model
    if model is None:
        raise ModelUnavailable("no video classifier is configured; set toolset.activity.model (e.g. MCG-NJU/videomae-base-finetuned-kinetics)")
    return VideoClassifier(model, device)


def tool_specs() -> list[ModelSpec]:
    """Experts that only tools use (object detection, faces, translation, action recognition)."""
    return [
        ModelSpec("detector", _load_detector, "open-vocabulary object detection (OWLv2 / Grounding DINO)", wants_gpu=True),
        ModelSpec("faces", _load_faces, "face detection (YuNet) and recognition against a gallery (SFace)"),
        ModelSpec("translator", _load_translator, "text translation (Marian per pair, or NLLB / M2M100 / mBART-50)", wants_gpu=True),
        ModelSpec("activity", _load_activity, "action recognition with a video classifier", wants_gpu=True),
    ]


def default_specs() -> dict[str, ModelSpec]:
    specs = [
        ModelSpec("vad", _load_vad, "silero VAD (ONNX, bundled with faster-whisper)"),
        ModelSpec("asr", _load_asr, "speech recognition for preprocessing", wants_gpu=True),
        ModelSpec("asr_refine", _load_asr_refine, "speech recognition and translation of a time range", wants_gpu=True),
        ModelSpec("ocr", _load_ocr, "scene-text recognition", wants_gpu=True),
        ModelSpec("vision", _load_vision, "SigLIP image/text embeddings", wants_gpu=True, size_hint=_size_of("vision_model", "SigLIP model")),
        ModelSpec("vlm", _load_vlm, "video refiner (captions, visual questions)", wants_gpu=True, size_hint=_size_of("vlm_model", "video refiner")),
        ModelSpec("audio_tagger", _load_audio_tagger, "AudioSet sound-event tagger", wants_gpu=True, size_hint=_size_of("audio_tagger_model", "audio tagger")),
        ModelSpec("audio_lm", _load_audio_lm, "audio-language model", wants_gpu=True, size_hint=_size_of("audio_lm_model", "audio-language model")),
        ModelSpec("chat", _load_chat, "local orchestrator chat model", wants_gpu=True, size_hint=_chat_size),
        *tool_specs(),
    ]
    return {s.name: s for s in specs}
