"""ModelPool: every expert model is loaded lazily, once, and shared.

A model is described by a ``ModelSpec`` (a name, a loader, where it would like to run). The pool
loads it on first ``get``, keeps it resident on its device, hands the same object to every tool and
every request (loading is guarded by a per-name lock, so concurrent first calls load once), reports
what is loaded and how much memory it holds, and unloads on demand or to stay under
``models.memory_budget_gb`` (least recently used first). The budget holds per device: host memory
for the models on the CPU, and each GPU for its own. Loads onto one device take turns, so that two
large models never load into the same memory at once and the GPU memory a load allocates is that
model's. Backends register their specs in ``staragent.models.specs``; each backend serialises its
own inference, so sharing is thread-safe.

Unloading drops the pool's reference: a caller still holding the model finishes its call, and the
memory is returned when it lets go (callers look models up per call rather than keeping them).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..errors import ModelUnavailable
from .modelspec import ModelSpec, cuda_available

log = logging.getLogger("staragent.models")
GB = 1024**3


@dataclass
class LoadedModel:
    name: str
    model: Any
    device: str
    load_seconds: float
    loaded_at: float = field(default_factory=time.time)
    last_used: float = field(default_factory=time.monotonic)
    cuda_bytes: int = 0
    """GPU memory torch allocated while loading it (0 on the CPU)."""

    def weight_bytes(self) -> int:
        """What the backend says its weights take (parameters and buffers, or model files)."""
        sizer = getattr(self.model, "memory_bytes", None)
        return int(sizer()) if callable(sizer) else 0

    def memory_bytes(self) -> int:
        return max(self.weight_bytes(), self.cuda_bytes)

    def describe(self) -> dict:
        return {
            "name": self.name,
            "backend": getattr(self.model, "name", type(self.model).__name__),
            "device": self.device,
            "weights_mb": round(self.weight_bytes() / 2**20, 1),
            "cuda_mb": round(self.cuda_bytes / 2**20, 1),
            "load_seconds": round(self.load_seconds, 2),
            "idle_seconds": round(time.monotonic() - self.last_used, 1),
        }


def resolve_device(preference: str, wants_gpu: bool) -> str:
    """Map the settings' device preference and the model's wish onto a concrete device. A model
    that cannot use a GPU runs on the CPU whatever the preference."""
    if not wants_gpu:
        return "cpu"
    if preference != "auto":
        if preference.startswith("cuda") and not cuda_available():
            raise ModelUnavailable(f"device {preference!r} was asked for, but CUDA is not available here")
        return preference
    return "cuda" if cuda_available() else "cpu"


def device_key(device: str) -> str:
    """One name per device: ``cuda`` is ``cuda:0``."""
    return "cuda:0" if device == "cuda" else device


class ModelPool:
    def __init__(self, settings: Settings, specs: dict[str, ModelSpec] | None = None):
        from .specs import default_specs

        self.settings = settings
        self._specs: dict[str, ModelSpec] = dict(specs if specs is not None else default_specs())
        self._loaded: dict[str, LoadedModel] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._device_locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._registered: set[str] = set()

    def register(self, spec: ModelSpec) -> None:
        """Add a spec, or replace one (a model loaded under the old spec is dropped)."""
        with self._guard:
            self._specs[spec.name] = spec
            self._loaded.pop(spec.name, None)
            self._registered.add(spec.name)

    def registered(self, name: str) -> bool:
        """Whether a caller registered the spec of ``name`` (the settings' checks do not apply to it)."""
        return name in self._registered

    def names(self) -> list[str]:
        return sorted(self._specs)

    def has(self, name: str) -> bool:
        return name in self._specs

    def problem(self, name: str) -> str | None:
        """Why ``name`` could not load here, found without loading it; None when nothing is known
        against it (or it is loaded already)."""
        if name in self._loaded:
            return None
        spec = self._specs.get(name)
        if spec is None:
            return f"no model named {name!r}"
        return spec.check(self.settings) if spec.check is not None else None

    def get(self, name: str) -> Any:
        """The loaded model ``name``, loading it on first use."""
        loaded = self._loaded.get(name)
        if loaded is not None:
            loaded.last_used = time.monotonic()
            return loaded.model
        if name not in self._specs:
            raise ModelUnavailable(f"no model named {name!r}; known models: {', '.join(self.names())}")
        with self._guard:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            loaded = self._loaded.get(name)
            if loaded is None:
                loaded = self._load(self._specs[name])
            loaded.last_used = time.monotonic()
            return loaded.model

    def _load(self, spec: ModelSpec) -> LoadedModel:
        from . import torch_runtime

        wants_gpu = spec.wants_gpu(self.settings) if callable(spec.wants_gpu) else spec.wants_gpu
        device = resolve_device(self.settings.models.device, wants_gpu)
        budget = self.budget_bytes()
        with self._guard:
            device_lock = self._device_locks.setdefault(device_key(device), threading.Lock())
        with device_lock:
            if budget is not None and spec.size_hint is not None:
                self._fit(device, budget - _safe_hint(spec, self.settings), keep=spec.name)
            before = torch_runtime.cuda_allocated(device)
            started = time.perf_counter()
            model = spec.loader(self.settings, device)
            used = max(0, torch_runtime.cuda_allocated(device) - before)
            loaded = LoadedModel(spec.name, model, device, time.perf_counter() - started, cuda_bytes=used)
            with self._guard:
                self._loaded[spec.name] = loaded
            if budget is not None:
                self._fit(device, budget, keep=spec.name)
        log.info("loaded %s on %s in %.1f s (%.0f MB)", spec.name, device, loaded.load_seconds, loaded.memory_bytes() / 2**20)
        return loaded

    def budget_bytes(self) -> int | None:
        """The memory budget of each device (None: no budget)."""
        gb = self.settings.models.memory_budget_gb
        return None if gb is None else int(gb * GB)

    def _fit(self, device: str, budget: int, keep: str) -> None:
        """Unload the least recently used models on ``device`` (never ``keep``) until the rest fit
        in ``budget``."""
        while self.memory_bytes(device) > budget:
            with self._guard:
                others = sorted(
                    (m for m in self._loaded.values() if m.name != keep and device_key(m.device) == device_key(device)), key=lambda m: m.last_used
                )
            if not others:
                if keep in self._loaded:
                    log.warning("%s alone needs %.1f GB on %s, more than the memory budget", keep, self.memory_bytes(device) / GB, device)
                return
            log.info("memory budget on %s: unloading %s (least recently used)", device, others[0].name)
            self.unload(others[0].name)

    def loaded(self) -> list[LoadedModel]:
        with self._guard:
            return list(self._loaded.values())

    def memory_bytes(self, device: str | None = None) -> int:
        """Memory held by the resident models, on ``device`` or on all devices together."""
        return sum(m.memory_bytes() for m in self.loaded() if device is None or device_key(m.device) == device_key(device))

    def report(self) -> list[dict]:
        """One row per resident model: backend, device, weight and GPU memory, idle time."""
        return [m.describe() for m in self.loaded()]

    def unload(self, name: str | None = None) -> None:
        """Drop one model (or all) and free accelerator memory."""
        with self._guard:
            names = [name] if name else list(self._loaded)
            dropped = [self._loaded.pop(n) for n in names if n in self._loaded]
        on_gpu = any(device_key(m.device) != "cpu" for m in dropped)
        for loaded in dropped:
            closer = getattr(loaded.model, "close", None)
            if callable(closer):
                closer()
        del dropped
        if on_gpu and cuda_available():  # importing torch just to free nothing costs seconds
            import gc

            import torch

            gc.collect()
            torch.cuda.empty_cache()


def _safe_hint(spec: ModelSpec, settings: Settings) -> int:
    try:
        return int(spec.size_hint(settings) or 0)
    except Exception:  # a hint must never stop a load; the real error comes from the loader
        return 0
