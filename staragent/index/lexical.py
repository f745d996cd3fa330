"""BM25 over the text of each modality (bm25s), one index per modality, documents = segments."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np

from .text import tokenize

logging.getLogger("bm25s").setLevel(logging.WARNING)


class LexicalIndex:
    def __init__(self, retriever, doc_ids: list[int]):
        self._retriever = retriever
        self.doc_ids = doc_ids
        self._vocab = set(getattr(retriever, "vocab_dict", {}) or {})

    @classmethod
    def build(cls, texts: dict[int, str]) -> LexicalIndex | None:
        """``texts`` maps segment id -> text; returns None when no segment has any text."""
        import bm25s

        docs = [(seg_id, tokenize(text)) for seg_id, text in texts.items()]
        docs = [(seg_id, tokens) for seg_id, tokens in docs if tokens]
        if not docs:
            return None
        retriever = bm25s.BM25()
        retriever.index([tokens for _, tokens in docs], show_progress=False)
        return cls(retriever, [seg_id for seg_id, _ in docs])

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._retriever.save(str(directory), show_progress=False)
        (directory / "doc_ids.json").write_text(json.dumps(self.doc_ids))

    @classmethod
    def load(cls, directory: Path) -> LexicalIndex:
        import bm25s

        retriever = bm25s.BM25.load(str(directory), show_progress=False, verbosity=0)
        doc_ids = json.loads((directory / "doc_ids.json").read_text())
        return cls(retriever, doc_ids)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Best ``k`` segments ``(segment_id, score)`` with a positive score."""
        tokens = [t for t in tokenize(query) if t in self._vocab]
        if not tokens:
            return []
        scores = np.asarray(self._retriever.get_scores(tokens), dtype=np.float64)
        order = np.argsort(-scores)[:k]
        return [(self.doc_ids[i], float(scores[i])) for i in order if scores[i] > 0]
