"""ModelPool: every expert model is loaded lazily, once, and shared.

A model is described by a ``ModelSpec`` (a name, a loader, where it would like to run). The pool
loads it on first ``get``, keeps it resident on its device, hands the same object to every tool and
every request (loading is guarded by a per-name lock, so concurrent first calls load once), reports
what is loaded, and unloads on demand. Backends register their specs in ``staragent.models.specs``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..errors import ModelUnavailable


@dataclass(frozen=True)
class ModelSpec:
    name: str
    loader: Callable[[Settings, str], Any]
    """``loader(settings, device) -> model``; raises ``ModelUnavailable`` with a helpful message."""
    description: str = ""
    wants_gpu: bool = False


@dataclass
class LoadedModel:
    name: str
    model: Any
    device: str
    load_seconds: float
    loaded_at: float = field(default_factory=time.time)

    def memory_bytes(self) -> int:
        sizer = getattr(self.model, "memory_bytes", None)
        if callable(sizer):
            return int(sizer())
        return 0


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def resolve_device(preference: str, wants_gpu: bool) -> str:
    """Map the settings' device preference and the model's wish onto a concrete device."""
    if preference != "auto":
        if preference.startswith("cuda") and not cuda_available():
            raise ModelUnavailable(f"device {preference!r} was asked for, but CUDA is not available here")
        return preference
    return "cuda" if wants_gpu and cuda_available() else "cpu"


class ModelPool:
    def __init__(self, settings: Settings, specs: dict[str, ModelSpec] | None = None):
        from .specs import default_specs

        self.settings = settings
        self._specs: dict[str, ModelSpec] = dict(specs if specs is not None else default_specs())
        self._loaded: dict[str, LoadedModel] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def register(self, spec: ModelSpec) -> None:
        with self._guard:
            self._specs[spec.name] = spec

    def names(self) -> list[str]:
        return sorted(self._specs)

    def has(self, name: str) -> bool:
        return name in self._specs

    def get(self, name: str) -> Any:
        """The loaded model ``name``, loading it on first use."""
        loaded = self._loaded.get(name)
        if loaded is not None:
            return loaded.model
        if name not in self._specs:
            raise ModelUnavailable(f"no model named {name!r}; known models: {', '.join(self.names())}")
        with self._guard:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            loaded = self._loaded.get(name)
            if loaded is None:
                spec = self._specs[name]
                device = resolve_device(self.settings.models.device, spec.wants_gpu)
                started = time.perf_counter()
                model = spec.loader(self.settings, device)
                loaded = LoadedModel(name, model, device, time.perf_counter() - started)
                self._loaded[name] = loaded
            return loaded.model

    def loaded(self) -> list[LoadedModel]:
        return list(self._loaded.values())

    def unload(self, name: str | None = None) -> None:
        """Drop one model (or all) and free accelerator memory."""
        with self._guard:
            names = [name] if name else list(self._loaded)
            for n in names:
                loaded = self._loaded.pop(n, None)
                closer = getattr(loaded.model, "close", None) if loaded else None
                if callable(closer):
                    closer()
        if cuda_available():
            import torch

            torch.cuda.empty_cache()
