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


def default_specs() -> dict[str, ModelSpec]:
    specs = [
        ModelSpec("vad", _load_vad, "silero VAD (ONNX, bundled with faster-whisper)"),
        ModelSpec("asr", _load_asr, "speech recognition for preprocessing", wants_gpu=True),
        ModelSpec("ocr", _load_ocr, "scene-text recognition", wants_gpu=True),
    ]
    return {s.name: s for s in specs}
