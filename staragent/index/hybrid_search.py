"""Cross-modal search: rank segments per modality (BM25 over text, FAISS over embeddings), fuse
the rankings with reciprocal rank fusion weighted by how much of the query each segment covers,
merge neighbouring hits of the same scene into one span, and attach the evidence that matched,
with its own timestamps."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, Field

from ..errors import InputError
from ..limits import quoted
from ..schema import Evidence
from .store import VideoIndex
from .text import overlap, tokenize

MODALITIES = ("speech", "ocr", "visual", "caption", "audio")
QueryEncoder = Callable[[str], np.ndarray]


class SearchHit(BaseModel):
    start: float
    end: float
    score: float = Field(description="fused reciprocal-rank score (higher is better)")
    segment_ids: list[int]
    scene_start: float = Field(0.0, description="start of the scene (shot, slide) around the hit, at most a minute before it")
    scene_end: float = Field(0.0, description="end of that scene, at most a minute after the hit")
    ranks: dict[str, int] = Field(default_factory=dict, description="best rank of this span in each modality (1 = top)")
    evidence: list[Evidence] = Field(default_factory=list)


class SearchResult(BaseModel):
    query: str
    hits: list[SearchHit]
    searched: list[str]
    unavailable: dict[str, str] = Field(default_factory=dict, description="modality -> why it was not searched")


def parse_modalities(modalities: list[str] | str | None) -> list[str]:
    if modalities is None or modalities == "" or modalities == []:
        return list(MODALITIES)
    if isinstance(modalities, str):
        modalities = [m for m in modalities.replace(" ", "").split(",") if m]
    aliases = {"text": "ocr", "scene_text": "ocr", "transcript": "speech", "asr": "speech", "vision": "visual", "image": "visual", "sound": "audio", "captions": "caption"}
    out = []
    for m in modalities:
        m = aliases.get(m.lower(), m.lower())
        if m not in (*MODALITIES, "all"):
            raise InputError(f"unknown modality {quoted(m)}; choose from {', '.join(MODALITIES)} (or 'all')")
        if m not in out:
            out.append(m)
    if "all" in out:
        return list(MODALITIES)
    if not out:
        choices = ", ".join(MODALITIES)
        raise InputError(f"no modality named in {quoted(modalities)}; choose from {choices} (or 'all')")
    return out


def _rank_visual(index: VideoIndex, query: str, encoder: QueryEncoder, depth: int, allowed: frozenset[int] | None = None) -> list[tuple[int, float]]:
    store = index.vectors("visual")
    hits = store.search(encoder(query), depth if allowed is None else len(store))
    best: dict[int, float] = {}
    by_keyframe: dict[int, list[int]] = {}
    for seg in index.segments:
        for kf in seg.keyframes:
            by_keyframe.setdefault(kf, []).append(seg.id)
    for kf_id, score in hits:
        for seg_id in by_keyframe.get(kf_id, []):
            if allowed is None or seg_id in allowed:
                best[seg_id] = max(best.get(seg_id, -1.0), score)
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    return ranked if allowed is None else ranked[:depth]


def _rank_passages(
    index: VideoIndex, modality: str, query: str, encoder: QueryEncoder, depth: int, matched: dict[tuple[str, int], str],
    allowed: frozenset[int] | None = None,
) -> tuple[list[tuple[int, float]], dict[int, float]]:
    """Segments by the best cosine similarity of their passages to the query (``text_vectors``),
    and how far each stands out (``_meaning``); ``matched`` gets the passage that ranked each
    segment, for its evidence. With ``allowed``, only passages of those segments compete (the margin
    is measured among them: what stands out inside a part, not in the whole video)."""
    store = index.vectors(modality)
    owners, texts = store.meta.get("segments") or [], store.meta.get("texts") or []
    if allowed is None:
        rows = store.search(encoder(query), depth)
    else:
        rows = [(row, score) for row, score in store.search(encoder(query), len(store))
                if row < len(owners) and allowed & set(owners[row])][:depth]
    margin = _meaning([score for _, score in rows])
    best: dict[int, float] = {}
    meaning: dict[int, float] = {}
    for (row, score), stands_out in zip(rows, margin):
        for seg_id in owners[row] if row < len(owners) else []:
            if allowed is not None and seg_id not in allowed:
                continue
            if score > best.get(seg_id, -1.0):
                best[seg_id], meaning[seg_id] = score, stands_out
                if row < len(texts):
                    matched[(modality, seg_id)] = texts[row]
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    return ranked if allowed is None else ranked[:depth], meaning


MEANING_WEIGHT = 0.3
"""the weight of the best match by meaning alone (a full match by words weighs 1); 0.3 found the
most answers first on real and generated media, 0 (meaning only reorders matches by words) and 1
(meaning outweighs words) fewer (docs/performance.md)"""
REFERENCE_RANK = 10
"""a match by meaning weighs nothing at the similarity of the 10th best passage"""


def _meaning(scores: list[float]) -> list[float]:
    """How far each passage's similarity to the query (best first) stands out from the rest, from
    1 (the best) to 0 (the ``REFERENCE_RANK``-th). e5 gives unrelated short texts similar scores,
    so only the margin says something, never the score itself. Passages, not segments, are
    counted: a slide's text shared by ten segments is one passage."""
    if len(scores) < 2:
        return [1.0] * len(scores)
    top, floor = scores[0], scores[min(len(scores), REFERENCE_RANK) - 1]
    if top - floor < 1e-6:
        return [0.0] * len(scores)
    return [max(0.0, (score - floor) / (top - floor)) for score in scores]


def _with_coverage(
    index: VideoIndex, modality: str, ranked: list[tuple[int, float]], qtokens: set[str], meaning: dict[int, float] | None = None
) -> list[tuple[int, float]]:
    """Replace scores by the share of the query each segment contains in this modality, words
    weighted by rarity: "Denver" in "first shift at the Denver warehouse" outweighs "first". A
    segment found by meaning weighs at least its ``_meaning`` times ``MEANING_WEIGHT``."""
    docs = index.segment_tokens.get(modality, {})
    idf = index.token_idf
    rare = max(idf.values(), default=1.0)
    weight = {t: idf.get(t, rare) for t in qtokens}
    total = sum(weight.values()) or 1.0
    meaning = meaning or {}
    return [
        (doc, max(sum(weight[t] for t in qtokens & docs.get(doc, frozenset())) / total, MEANING_WEIGHT * meaning.get(doc, 0.0)))
        for doc, _ in ranked
    ]


def _rankings(index, query, modalities, encoders, depth, rrf_k: int, matched,
              allowed: frozenset[int] | None = None) -> tuple[dict[str, list[tuple[int, float]]], dict[str, str]]:
    """Per modality, segments in rank order with a weight: query coverage for text, 1 for pictures;
    with ``allowed``, only those segments."""
    rankings: dict[str, list[tuple[int, float]]] = {}
    qtokens = set(tokenize(query))
    unavailable: dict[str, str] = {}
    for m in modalities:
        if m == "visual" and (index.vectors("visual") is not None or not index.pictures):
            if index.vectors("visual") is None:
                unavailable[m] = "this index has no image embeddings (SigLIP, in the local profile) and no keyframe got a picture label"
            elif "visual" not in encoders:
                unavailable[m] = "no text encoder for visual search is loaded"
            else:
                rankings[m] = [(doc, 1.0) for doc, _ in _rank_visual(index, query, encoders["visual"], depth, allowed)]
            continue
        # without image embeddings, the pictures are searched through the labels the coarse models gave them
        text = "labels" if m == "visual" else m
        lexical = index.lexical(text)
        ranked = lexical.search(query, depth if allowed is None else len(index.segments)) if lexical is not None else []
        if allowed is not None:
            ranked = [(doc, score) for doc, score in ranked if doc in allowed][:depth]
        dense = index.vectors(text) if text in encoders else None
        meaning: dict[int, float] = {}
        if dense is not None:
            by_meaning, meaning = _rank_passages(index, text, query, encoders[text], depth, matched, allowed)
            ranked = _fuse({"bm25": ranked, "dense": by_meaning}, rrf_k)
        if lexical is None and dense is None:
            unavailable[m] = f"no {m} content was extracted from this video"
            continue
        rankings[m] = _with_coverage(index, text, ranked, qtokens, meaning)
    return rankings, unavailable


def _fuse(rankings: dict[str, list[tuple[int, float]]], rrf_k: int, weighted: bool = False) -> list[tuple[int, float]]:
    """Reciprocal rank fusion; with ``weighted`` each contribution is scaled by the ranking's weight
    (query coverage), so two partial matches do not outrank one complete match."""
    fused: dict[int, float] = {}
    for ranked in rankings.values():
        for rank, (doc, weight) in enumerate(ranked, start=1):
            fused[doc] = fused.get(doc, 0.0) + (weight if weighted else 1.0) / (rrf_k + rank)
    return sorted(fused.items(), key=lambda kv: -kv[1])


def _evidence(index: VideoIndex, seg_ids: list[int], qtokens: set[str], ranks: dict[str, int], matched: dict[tuple[str, int], str]) -> list[Evidence]:
    """What matched in each modality: lines sharing words with the query, and the passages that
    dense search matched by meaning (a paraphrase shares no words)."""
    segments = [index.segments[i] for i in seg_ids]
    start, end = segments[0].start, segments[-1].end
    by_meaning = {m: {matched[(m, s.id)] for s in segments if (m, s.id) in matched} for m in ("speech", "ocr", "caption", "audio", "labels")}

    def meant(modality: str, text: str) -> bool:
        return any(text in passage for passage in by_meaning[modality])

    found: list[Evidence] = []
    lines = [(overlap(qtokens, line.text), line) for seg in segments for line in seg.speech]
    for score, line in sorted((x for x in lines if x[0] > 0 or meant("speech", x[1].text)), key=lambda x: -x[0])[:3]:
        found.append(Evidence(start=line.start, end=line.end, modality="speech", text=line.text, score=round(score, 3), source="search"))
    seen: set[str] = set()
    ocr = []
    for seg in segments:
        for line in seg.ocr:
            if line.text not in seen:
                seen.add(line.text)
                ocr.append((overlap(qtokens, line.text), line))
    for score, line in sorted((x for x in ocr if x[0] > 0 or meant("ocr", x[1].text)), key=lambda x: -x[0])[:3]:
        found.append(Evidence(start=line.start, end=line.end, modality="ocr", text=line.text, score=round(score, 3), source="search"))
    for seg in segments:
        if seg.caption and (overlap(qtokens, seg.caption) > 0 or meant("caption", seg.caption)):
            found.append(Evidence(start=seg.start, end=seg.end, modality="caption", text=seg.caption, source="search"))
    if "audio" in ranks:
        for event in index.events_between(start, end):
            text = f"{event.label}: {event.detail}" if event.detail else event.label
            if event.label != "speech" and overlap(qtokens, text) > 0:
                found.append(Evidence(start=event.start, end=event.end, modality="audio", text=text, source="search"))
        sounds = sorted(index.sounds_between(start, end), key=lambda e: -e.score)
        for sound in [e for e in sounds if overlap(qtokens, e.label) > 0 or meant("audio", e.label)][:3]:
            found.append(Evidence(start=sound.start, end=sound.end, modality="audio", text=sound.label, score=sound.score, source="search"))
    if "visual" in ranks:
        seen = [e for e in index.pictures_between(start, end) if overlap(qtokens, e.text()) > 0 or meant("labels", e.text())]
        for event in sorted(seen, key=lambda e: -e.score)[:3]:
            found.append(Evidence(start=event.start, end=event.end, modality="visual", text=event.text(), score=event.score, source="search"))
        if not found and index.vectors("visual") is not None:
            found.append(Evidence(start=start, end=end, modality="visual", text="the picture matches the query", source="search"))
    return found


def cross_modal_search(
    index: VideoIndex,
    query: str,
    modalities: list[str] | str | None = None,
    k: int = 5,
    *,
    rrf_k: int = 60,
    encoders: dict[str, QueryEncoder] | None = None,
    depth: int = 50,
    within: tuple[float, float] | None = None,
) -> SearchResult:
    """The ``k`` best spans for ``query``; ``within`` (start, end in seconds): only segments that
    overlap that stretch compete ("what is said about X in the second reading")."""
    if not query or not query.strip():
        raise InputError("the search query is empty; say what to look for")
    if k < 1:
        raise InputError(f"k must be at least 1 (got {k})")
    chosen = parse_modalities(modalities)
    allowed = None
    if within is not None:
        allowed = frozenset(s.id for s in index.segments if s.end > within[0] and s.start < within[1])
    matched: dict[tuple[str, int], str] = {}
    rankings, unavailable = _rankings(index, query, chosen, encoders or {}, depth, rrf_k, matched, allowed)
    fused = _fuse(rankings, rrf_k, weighted=True)
    rank_of = {m: {doc: r for r, (doc, _) in enumerate(ranked, start=1)} for m, ranked in rankings.items()}
    score_of = dict(fused)

    # neighbouring hits in one scene are one span (a slide shown for a minute is one answer); inside a
    # stretch already found, each segment stands alone: where in it is what is asked
    candidates = sorted(doc for doc, _ in fused[: max(k * 4, 20)])
    groups: list[list[int]] = []
    for doc in candidates:
        if within is None and groups and doc == groups[-1][-1] + 1 and index.segments[doc].scene == index.segments[groups[-1][-1]].scene:
            groups[-1].append(doc)
        else:
            groups.append([doc])
    groups.sort(key=lambda g: -max(score_of[d] for d in g))
    qtokens = set(tokenize(query))
    cuts = [0.0, *index.scene_cuts, index.duration]
    hits = []
    for group in groups[:k]:
        start, end = index.segments[group[0]].start, index.segments[group[-1]].end
        ranks = {m: min(r[d] for d in group if d in r) for m, r in rank_of.items() if any(d in r for d in group)}
        hits.append(
            SearchHit(
                start=start,
                end=end,
                scene_start=max(max((c for c in cuts if c <= start + 1e-6), default=0.0), start - 60.0),
                scene_end=min(min((c for c in cuts if c >= end - 1e-6), default=index.duration), end + 60.0),
                score=round(max(score_of[d] for d in group), 5),
                segment_ids=group,
                ranks=ranks,
                evidence=_evidence(index, group, qtokens, ranks, matched),
            )
        )
    return SearchResult(query=query, hits=hits, searched=sorted(rankings), unavailable=unavailable)
