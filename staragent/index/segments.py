"""Cutting a video into segments: speech runs and the silences between them, split at scene cuts,
capped in length, with slivers merged into a neighbour."""

from __future__ import annotations

import bisect
import math


def merge_spans(spans: list[tuple[float, float]], min_gap: float) -> list[tuple[float, float]]:
    merged: list[list[float]] = []
    for start, end in sorted(spans):
        if merged and start - merged[-1][1] < min_gap:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def segment_bounds(
    duration: float,
    speech_spans: list[tuple[float, float]],
    scene_cuts: list[float],
    *,
    min_silence: float,
    max_len: float,
    min_len: float,
) -> list[tuple[float, float]]:
    """Spans that tile ``[0, duration)``.

    Boundaries come from speech activity (each speech run and each silence is a piece) and scene
    cuts. Pieces longer than ``max_len`` are cut evenly; pieces shorter than ``min_len`` join the
    neighbour across a speech boundary rather than across a scene cut.
    """
    if duration <= 0:
        return []
    cuts = sorted(c for c in scene_cuts if 0 < c < duration)
    points = {0.0, duration}
    for start, end in merge_spans(speech_spans, min_silence):
        points.update(p for p in (start, end) if 0 < p < duration)
    points.update(cuts)
    edges = sorted(points)
    pieces: list[tuple[float, float]] = []
    for a, b in zip(edges, edges[1:]):
        parts = max(1, math.ceil((b - a) / max_len - 1e-9))
        step = (b - a) / parts
        pieces.extend((a + i * step, a + (i + 1) * step if i < parts - 1 else b) for i in range(parts))
    return _merge_slivers(pieces, set(cuts), min_len, max_len)


def _merge_slivers(pieces: list[tuple[float, float]], cuts: set[float], min_len: float, max_len: float) -> list[tuple[float, float]]:
    pieces = [list(p) for p in pieces]
    changed = True
    while changed and len(pieces) > 1:
        changed = False
        for i, (a, b) in enumerate(pieces):
            if b - a >= min_len:
                continue
            options = []
            if i > 0:
                options.append((a in cuts, pieces[i - 1][1] - pieces[i - 1][0], i - 1))
            if i + 1 < len(pieces):
                options.append((b in cuts, pieces[i + 1][1] - pieces[i + 1][0], i + 1))
            # prefer not to cross a scene cut, then the shorter neighbour
            crosses_cut, length, j = min(options)
            if crosses_cut and length + (b - a) > max_len:
                continue
            lo, hi = min(i, j), max(i, j)
            pieces[lo] = [pieces[lo][0], pieces[hi][1]]
            del pieces[hi]
            changed = True
            break
    return [(round(a, 3), round(b, 3)) for a, b in pieces]


def scene_of(time: float, cuts: list[float]) -> int:
    """Index of the scene containing ``time`` given sorted cut times."""
    return bisect.bisect_right(cuts, time + 1e-6)
