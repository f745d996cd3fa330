"""Hybrid retrieval at line level: BM25 over lines (alone and read with their neighbours) and the
index's e5 passages, mapped onto the lines they hold.

The index embeds each on-screen line on its own and speech a segment at a time; a line's dense
score is the best of its own passage and the passages of the segment it falls in, in its modality.
"""

from __future__ import annotations

import numpy as np

from ..index.lexical import LexicalIndex
from ..schema import Evidence
from .features import QuestionSignals, scaled
from .frame import QuestionFrame
from .lines import LinePool

DENSE_FLOOR_QUANTILE = 0.5
"""similarities at or below this quantile of the pool's count as no match: e5 scores unrelated short
texts close together, so what carries meaning is how far a line stands above the typical one"""


def _bm25(lexical: LexicalIndex | None, size: int, query: str) -> np.ndarray:
    scores = np.zeros(size)
    if lexical is not None:
        for line_no, score in lexical.search(query, size):
            scores[line_no] = score
    return scaled(scores)


def _dense(index, pool: LinePool, query: str, encoders: dict) -> np.ndarray:
    """Per line, how far its best passage's similarity stands above the pool's typical line (0-1)."""
    raw = np.full(len(pool.lines), np.nan)
    for modality, store_modality in (("speech", "speech"), ("ocr", "ocr"), ("audio", "audio"), ("visual", "labels")):
        encode = encoders.get(store_modality)
        store = index.vectors(store_modality) if encode is not None and store_modality in index.vector_modalities() else None
        if store is None or len(store) == 0:
            continue
        texts, owners = store.meta.get("texts") or [], store.meta.get("segments") or []
        by_text: dict[str, float] = {}
        by_segment: dict[int, float] = {}
        for row, score in store.search(encode(query), len(store)):
            if row < len(texts):
                passage = " ".join(texts[row].split())
                by_text[passage] = max(score, by_text.get(passage, -1.0))
            for seg in owners[row] if row < len(owners) else []:
                by_segment[seg] = max(score, by_segment.get(seg, -1.0))
        for i, (line, seg) in enumerate(zip(pool.lines, pool.segment_of)):
            if line.modality != modality:
                continue
            found = [s for s in (by_text.get(" ".join(line.text.split())), by_segment.get(seg) if seg is not None else None) if s is not None]
            if found:
                raw[i] = max(found)
    if np.all(np.isnan(raw)):
        return np.zeros(len(pool.lines))
    floor = float(np.nanquantile(raw, DENSE_FLOOR_QUANTILE))
    return scaled(np.clip(np.nan_to_num(raw, nan=floor) - floor, 0.0, None))


def signals(index, pool: LinePool, frame: QuestionFrame, encoders: dict | None = None) -> QuestionSignals:
    """BM25 and dense scores of every line of ``pool`` for ``frame``."""
    query = " ".join([*frame.terms, *frame.names, *frame.quoted])
    return QuestionSignals(
        bm25=_bm25(pool.lexical, len(pool.lines), query),
        bm25_context=_bm25(pool.context_lexical, len(pool.lines), query),
        dense=_dense(index, pool, frame.text, encoders or {}),
    )


def locate(pool: LinePool, terms: list[str]) -> Evidence | None:
    """The line that best matches ``terms`` (with its heading and neighbours): where a part named by
    those words is. Of lines that match as well, the one that stays longest (a title card) wins."""
    scores = _bm25(pool.context_lexical, len(pool.lines), " ".join(terms))
    if not len(scores) or scores.max() <= 0:
        return None
    best = [i for i in np.flatnonzero(scores >= scores.max() - 1e-9)]
    return max((pool.lines[i] for i in best), key=lambda e: e.end - e.start)
