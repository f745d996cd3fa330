"""``staragent doctor``: every backend of every role, whether it can run here, and why not.

Nothing is loaded and nothing is downloaded: a check looks for the Python package, for the
weights (Hugging Face cache, local folder, easyocr folder) and for a GPU.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..config import Settings

HEAVY = "runs on the CPU here (no CUDA GPU): expect it to be slow"


@dataclass
class BackendCheck:
    role: str
    backend: str
    model: str
    selected: bool
    """the current profile/settings use this backend for the role"""
    available: bool
    detail: str


def _missing_packages(*modules: str) -> list[str]:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def gpu_summary() -> dict:
    try:
        import torch
    except ImportError:
        return {"cuda": False, "detail": "torch is not installed"}
    if not torch.cuda.is_available():
        return {"cuda": False, "detail": "no CUDA device: local models run on the CPU"}
    props = torch.cuda.get_device_properties(0)
    return {"cuda": True, "detail": f"{props.name}, {props.total_memory / 1024**3:.0f} GB", "devices": torch.cuda.device_count()}


class _Doctor:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.gpu = gpu_summary()
        self.rows: list[BackendCheck] = []

    def add(self, role: str, backend: str, model: str, packages: tuple[str, ...], weights: Callable[[], tuple[bool, str]] | None, heavy: bool) -> None:
        selected = self._selected(role, backend)
        missing = _missing_packages(*packages)
        if missing:
            self.rows.append(BackendCheck(role, backend, model, selected, False, f"missing package: {', '.join(missing)} (pip install {' '.join(missing)})"))
            return
        found, where = weights() if weights else (True, "no weights needed")
        if not found:
            self.rows.append(BackendCheck(role, backend, model, selected, False, where))
            return
        detail = where if not heavy or self.gpu["cuda"] else f"{where}; {HEAVY}"
        self.rows.append(BackendCheck(role, backend, model, selected, True, detail))

    def _selected(self, role: str, backend: str) -> bool:
        s = self.settings
        if role == "planner":
            return s.planner_backend == backend
        if role in ("vad", "acoustics"):
            return True
        return s.backend(role) == backend


def _hf_weights(settings: Settings, field: str, what: str, required: tuple[str, ...] = ("config.json",)) -> Callable[[], tuple[bool, str]]:
    from .weights import is_available

    model = getattr(settings.models, field)
    return lambda: is_available(model, what=what, setting=f"STARAGENT_MODELS__{field.upper()}", cache_dir=settings.models.hf_cache, required=required)


def _whisper_weights(settings: Settings, field: str) -> Callable[[], tuple[bool, str]]:
    def check() -> tuple[bool, str]:
        from ..errors import ModelUnavailable
        from .whisper import locate_whisper

        try:
            return True, str(locate_whisper(getattr(settings.models, field), settings.models.hf_cache, f"STARAGENT_MODELS__{field.upper()}"))
        except ModelUnavailable as exc:
            return False, str(exc)

    return check


def _easyocr_weights(settings: Settings) -> Callable[[], tuple[bool, str]]:
    def check() -> tuple[bool, str]:
        from .ocr import EASYOCR_RELEASES, easyocr_dir, easyocr_files

        folder = easyocr_dir(settings.models.easyocr_dir)
        missing = [f for f in easyocr_files(settings.models.ocr_languages) if not (folder / f).exists()]
        if missing:
            return False, f"{', '.join(missing)} not in {folder}; fetch them from {EASYOCR_RELEASES} or set STARAGENT_MODELS__EASYOCR_DIR"
        return True, str(folder)

    return check


def _openai_endpoint(settings: Settings) -> Callable[[], tuple[bool, str]]:
    import os

    planner = settings.planner

    def check() -> tuple[bool, str]:
        if planner.base_url:
            return True, f"endpoint {planner.base_url} (not contacted)"
        if planner.api_key or os.environ.get("OPENAI_API_KEY"):
            return True, "api.openai.com with OPENAI_API_KEY (not contacted)"
        return False, "no endpoint: set STARAGENT_PLANNER__BASE_URL (and STARAGENT_PLANNER__API_KEY for hosted APIs)"

    return check


def diagnose(settings: Settings) -> dict:
    """The report ``staragent doctor`` prints: the GPU, and one row per role and backend."""
    from .weights import is_available

    m = settings.models
    d = _Doctor(settings)
    d.add("vad", "silero", "silero_vad (bundled)", ("faster_whisper", "onnxruntime"), None, heavy=False)
    d.add("asr", "pocketsphinx", "en-us (bundled)", ("pocketsphinx",), None, heavy=False)
    d.add("asr", "faster-whisper", m.asr_model, ("faster_whisper", "ctranslate2"), _whisper_weights(settings, "asr_model"), heavy=True)
    d.add("asr_refine", "faster-whisper", m.asr_refine_model, ("faster_whisper", "ctranslate2"), _whisper_weights(settings, "asr_refine_model"), heavy=True)
    d.add("ocr", "rapidocr", "PP-OCR (bundled)", ("rapidocr_onnxruntime",), None, heavy=False)
    d.add("ocr", "easyocr", "+".join(m.ocr_languages), ("easyocr", "torch"), _easyocr_weights(settings), heavy=True)
    d.add("vision", "siglip", m.vision_model, ("open_clip", "torch"), _hf_weights(settings, "vision_model", "SigLIP model", ("open_clip_config.json",)), heavy=True)
    d.add("vlm", "qwen2.5-vl", m.vlm_model, ("transformers", "qwen_vl_utils", "torch"), _hf_weights(settings, "vlm_model", "video refiner"), heavy=True)
    d.add("audio_tagger", "transformers", m.audio_tagger_model, ("transformers", "torch"), _hf_weights(settings, "audio_tagger_model", "audio tagger"), heavy=True)
    d.add("audio_lm", "transformers", m.audio_lm_model, ("transformers", "torch"), _hf_weights(settings, "audio_lm_model", "audio-language model"), heavy=True)
    d.add("acoustics", "statistics", "(no model)", ("scipy",), None, heavy=False)
    d.add("planner", "rules", "(no model)", (), None, heavy=False)
    chat = settings.planner.model
    d.add(
        "planner", "transformers", chat, ("transformers", "torch"),
        lambda: is_available(chat, what="chat model", setting="STARAGENT_PLANNER__MODEL", cache_dir=m.hf_cache, required=("config.json",)), heavy=True,
    )
    d.add("planner", "openai", settings.planner.openai_model, ("langchain_openai",), _openai_endpoint(settings), heavy=False)
    faiss_gpu = _faiss_gpu()
    problems = [r for r in d.rows if r.selected and not r.available]
    return {
        "profile": settings.profile,
        "gpu": d.gpu,
        "faiss": faiss_gpu,
        "backends": [asdict(r) for r in d.rows],
        "ready": not problems,
    }


def _faiss_gpu() -> dict:
    if importlib.util.find_spec("faiss") is None:
        return {"gpu": False, "detail": "faiss is not installed"}
    import faiss

    gpus = faiss.get_num_gpus() if hasattr(faiss, "get_num_gpus") else 0
    if gpus:
        return {"gpu": True, "detail": f"GPU search on {gpus} device(s)"}
    return {"gpu": False, "detail": "CPU search (install faiss-gpu-cu12, the `gpu` extra, for GPU search)"}


def render_text(report: dict) -> str:
    lines = [f"profile: {report['profile']}", f"GPU: {report['gpu']['detail']}", f"FAISS: {report['faiss']['detail']}", ""]
    rows = report["backends"]
    width = max(len(f"{r['role']} / {r['backend']}") for r in rows)
    for r in rows:
        mark = "ok " if r["available"] else "NO "
        used = "*" if r["selected"] else " "
        lines.append(f"{used} {mark} {r['role'] + ' / ' + r['backend']:<{width}}  {r['model']}")
        lines.append(f"{'':7}{r['detail']}")
    lines.append("")
    lines.append("* = used by this profile. " + ("Everything it uses is available." if report["ready"] else "Some backends this profile uses are not available (NO above)."))
    return "\n".join(lines)
