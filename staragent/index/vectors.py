"""Dense vector stores (FAISS), one per embedded modality, with L2-normalised rows so that inner
product is cosine similarity. Rows carry the id of what they embed (a keyframe or a segment)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def normalize(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def _to_gpu_if_possible(index):
    import faiss

    if hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0:
        return faiss.index_cpu_to_all_gpus(index)
    return index


class VectorStore:
    """A flat inner-product index (exact search; a video has at most tens of thousands of rows)."""

    def __init__(self, index, meta: dict):
        self._index = index
        self.meta = meta

    @property
    def dim(self) -> int:
        return int(self.meta["dim"])

    def __len__(self) -> int:
        return int(self._index.ntotal)

    @classmethod
    def build(cls, vectors: np.ndarray, ids: list[int], meta: dict) -> VectorStore:
        import faiss

        vectors = normalize(vectors)
        index = faiss.IndexIDMap2(faiss.IndexFlatIP(vectors.shape[1]))
        if len(ids):
            index.add_with_ids(vectors, np.asarray(ids, dtype=np.int64))
        return cls(index, {**meta, "dim": int(vectors.shape[1]), "rows": len(ids)})

    def save(self, directory: Path, name: str) -> None:
        import faiss

        directory.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self._index, str(directory / f"{name}.faiss"))
        (directory / f"{name}.json").write_text(json.dumps(self.meta, indent=2))

    @classmethod
    def load(cls, directory: Path, name: str, gpu: bool = True) -> VectorStore:
        import faiss

        index = faiss.read_index(str(directory / f"{name}.faiss"))
        if gpu:
            index = _to_gpu_if_possible(index)
        return cls(index, json.loads((directory / f"{name}.json").read_text()))

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if len(self) == 0:
            return []
        query = normalize(np.atleast_2d(query))
        scores, ids = self._index.search(query, min(k, len(self)))
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]
