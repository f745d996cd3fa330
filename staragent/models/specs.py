"""The expert models the pool knows how to load, keyed by role. The profile and settings decide
which backend fills each role; each loader imports its heavy library only when called."""

from __future__ import annotations

from ..config import Settings
from ..errors import ModelUnavailable
from .pool import ModelSpec


def _load_vad(settings: Settings, device: str):
    from .vad import SileroVAD

    return SileroVAD(threshold=settings.index.vad_threshold)


def _load_asr(settings: Settings, device: str):
    backend = settings.asr_backend
    if backend == "pocketsphinx":
        from .asr import PocketSphinxRecognizer

        return PocketSphinxRecognizer()
    raise ModelUnavailable(f"speech backend {backend!r} is not available in this build; use 'pocketsphinx'")


def _load_ocr(settings: Settings, device: str):
    backend = settings.ocr_backend
    if backend == "rapidocr":
        from .ocr import RapidOcrReader

        return RapidOcrReader(min_score=settings.index.ocr_min_score, min_height=settings.index.ocr_min_height)
    raise ModelUnavailable(f"OCR backend {backend!r} is not available in this build; use 'rapidocr'")


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
        ModelSpec("ocr", _load_ocr, "scene-text recognition", wants_gpu=True),
        *tool_specs(),
    ]
    return {s.name: s for s in specs}
