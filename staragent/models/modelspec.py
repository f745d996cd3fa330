"""What the ModelPool needs to know about an expert model before loading it (``ModelSpec``), and
whether this machine has a GPU. A module of its own so that the role table (``specs``) and the pool
both read it without importing each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..config import Settings


@dataclass(frozen=True)
class ModelSpec:
    name: str
    loader: Callable[[Settings, str], Any]
    """``loader(settings, device) -> model``; raises ``ModelUnavailable`` with a helpful message."""
    description: str = ""
    wants_gpu: bool | Callable[[Settings], bool] = False
    """whether it runs on a GPU when there is one (a callable: it depends on the settings)"""
    size_hint: Callable[[Settings], int] | None = None
    """Bytes the model will take once loaded (e.g. its weight files), so that the pool can make
    room *before* loading it under a memory budget. None: unknown."""
    check: Callable[[Settings], str | None] | None = None
    """Why it could not load here, found without loading it (None: nothing known against it)."""


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())
