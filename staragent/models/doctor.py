"""``staragent doctor``: every backend of every role, whether it can run here, and why not; and
every model pack: which role it serves, whether its packages are installed and it is assembled,
its size and licence.

The rows come from the role table in ``specs`` (the one the pool loads from). Nothing is loaded and
nothing is downloaded: a check looks for the Python packages, for the weights (Hugging Face cache,
local folder, easyocr folder, ONNX files, model packs), for the device the settings ask for, and
for a GPU. A pack is not assembled here: that happens on first use.
"""

from __future__ import annotations

import importlib.util
from dataclasses import asdict, dataclass

from ..config import Settings
from .specs import ROLES, chosen_backend, inspect, pack_home

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
    optional: bool = False
    """only one tool needs it; the profile works without it"""


def gpu_summary() -> dict:
    try:
        import torch
    except ImportError:
        return {"cuda": False, "detail": "torch is not installed"}
    if not torch.cuda.is_available():
        return {"cuda": False, "detail": "no CUDA device: local models run on the CPU"}
    props = torch.cuda.get_device_properties(0)
    return {"cuda": True, "detail": f"{props.name}, {props.total_memory / 1024**3:.0f} GB", "devices": torch.cuda.device_count()}


def device_summary(settings: Settings, gpu: dict) -> dict:
    requested = settings.models.device
    if requested.startswith("cuda") and not gpu["cuda"]:
        return {"requested": requested, "ok": False, "detail": f"models.device is {requested!r}, but CUDA is not available here; set it to auto or cpu"}
    return {"requested": requested, "ok": True, "detail": requested}


def _expert_rows(settings: Settings, gpu: dict) -> list[BackendCheck]:
    rows = []
    for role in ROLES.values():
        chosen = chosen_backend(settings, role.name)
        for backend in role.backends:
            available, detail = inspect(settings, role.name, backend.name)
            if available and backend.gpu and not gpu["cuda"]:
                detail = f"{detail}; {HEAVY}"
            rows.append(BackendCheck(role.name, backend.name, backend.label(settings), chosen == backend.name, available, detail, role.optional))
    return rows


def _plain_rows(settings: Settings) -> list[BackendCheck]:
    """What needs no expert model: the acoustic statistics and the planners that are not local
    models (the local one is the ``chat`` role)."""
    import os

    planner = settings.planner
    if planner.base_url:
        endpoint = (True, f"endpoint {planner.base_url} (not contacted)")
    elif planner.api_key or os.environ.get("OPENAI_API_KEY"):
        endpoint = (True, "api.openai.com with OPENAI_API_KEY (not contacted)")
    else:
        endpoint = (False, "no endpoint: set STARAGENT_PLANNER__BASE_URL (and STARAGENT_PLANNER__API_KEY for hosted APIs)")
    has_openai = importlib.util.find_spec("langchain_openai") is not None
    if not has_openai:
        endpoint = (False, "missing package: langchain_openai (pip install langchain-openai)")
    has_scipy = importlib.util.find_spec("scipy") is not None
    return [
        BackendCheck("acoustics", "statistics", "(no model)", True, has_scipy, "no weights needed" if has_scipy else "missing package: scipy (pip install scipy)"),
        BackendCheck("planner", "rules", "(no model)", settings.planner_backend == "rules", True, "no weights needed"),
        BackendCheck("planner", "openai", planner.openai_model, settings.planner_backend == "openai", *endpoint),
    ]


def faiss_summary() -> dict:
    """Which FAISS is installed and whether it can search on a GPU."""
    if importlib.util.find_spec("faiss") is None:
        return {"gpu": False, "detail": "faiss is not installed (pip install faiss-cpu)"}
    import faiss

    from ..index.vectors import faiss_distributions, faiss_gpus

    providers = faiss_distributions()
    gpus = faiss_gpus()
    build = "GPU build" if hasattr(faiss, "StandardGpuResources") else "CPU build"
    where = f"{build} ({', '.join(providers) or 'unknown package'}, faiss {faiss.__version__})"
    if gpus:
        detail = f"{where}: search runs on the GPU ({gpus} device(s))"
    elif build == "GPU build":
        detail = f"{where}, but it sees no GPU: search runs on the CPU"
    else:
        detail = f"{where}: search runs on the CPU (for GPU search: pip uninstall -y faiss-cpu && pip install faiss-gpu)"
    if len(providers) > 1:
        detail += (
            f"; {' and '.join(providers)} are both installed and overwrite each other's files: "
            f"pip uninstall -y {' '.join(providers)}, then install the one you want"
        )
    return {"gpu": bool(gpus), "detail": detail, "packages": providers}


def pack_rows(settings: Settings) -> list[dict]:
    """Each bundled model pack, the role and backend it serves, and its state here."""
    from .bundled import CHAT_PACKS, PACKS, WHISPER_PACKS
    from .packs import pack_status

    serves: dict[str, list[str]] = {}
    for role in ROLES.values():
        for backend in role.backends:
            pack = backend.pack(settings) if backend.pack is not None else None
            if pack is not None:
                used = " (in use)" if chosen_backend(settings, role.name) == backend.name else ""
                serves.setdefault(pack.name, []).append(f"{role.name} / {backend.name}{used}")
    for model, pack in WHISPER_PACKS.items():
        serves.setdefault(pack.name, [f"asr / faster-whisper with models.asr_model = {model}"])
    for pack in CHAT_PACKS:  # served over HTTP for the openai planner, not loaded in this process
        serves.setdefault(pack.name, [f"planner / openai through `staragent llm serve --model {pack.name}`"])
    return [{**pack_status(pack, pack_home(settings)), "serves": serves.get(pack.name, []), "source": pack.source} for pack in PACKS.values()]


def diagnose(settings: Settings) -> dict:
    """The report ``staragent doctor`` prints: the GPU, the device asked for, FAISS, and one row
    per role and backend."""
    gpu = gpu_summary()
    device = device_summary(settings, gpu)
    rows = _expert_rows(settings, gpu) + _plain_rows(settings)
    problems = [r for r in rows if r.selected and not r.available and not r.optional]
    return {
        "profile": settings.profile,
        "gpu": gpu,
        "device": device,
        "faiss": faiss_summary(),
        "backends": [asdict(r) for r in rows],
        "packs": pack_rows(settings),
        "ready": device["ok"] and not problems,
    }


def render_text(report: dict) -> str:
    lines = [f"profile: {report['profile']}", f"GPU: {report['gpu']['detail']}", f"device: {report['device']['detail']}", f"FAISS: {report['faiss']['detail']}", ""]
    rows = report["backends"]
    width = max(len(f"{r['role']} / {r['backend']}") for r in rows)
    for r in rows:
        mark = "ok " if r["available"] else "NO "
        used = "*" if r["selected"] else " "
        extra = "  (optional: one tool uses it)" if r["optional"] else ""
        lines.append(f"{used} {mark} {r['role'] + ' / ' + r['backend']:<{width}}  {r['model']}{extra}")
        lines.append(f"{'':7}{r['detail']}")
    lines += ["", "Model packs (weights inside packages; assembled into the cache on first use):"]
    for p in report.get("packs", []):
        state = "NO " if not p["installed"] or p["problem"] else "ok "
        where = "assembled" if p["assembled"] else "not assembled yet"
        lines.append(f"  {state} {p['pack']:<16} {p['size_mb']:>6.1f} MB  {', '.join(p['serves']) or p['role']}")
        lines.append(f"{'':7}{p['problem'] or where + ' (' + p['folder'] + ')'}; licence: {p['licence']}")
    lines.append("")
    verdict = "Everything it needs is available." if report["ready"] else "Some backends this profile needs are not available (NO above)."
    lines.append("* = used by this profile. " + verdict)
    return "\n".join(lines)
