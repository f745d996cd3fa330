"""Rank lines by a weighted sum of named features; the weights are fitted (``eval/fit_ranker.py``), not set.

``ranker.json`` holds the weights, the score below which the video is taken not to hold the answer
(calibrated on questions whose answer is absent), and how they were fitted. Two passes keep a
question fast on an hour of video: every line is scored without the answer-type features (they need
the tagger), then the best ``TYPED_DEPTH`` are tagged and scored again.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..schema import Evidence
from .features import FEATURES, QuestionSignals, add_typed, line_features
from .frame import QuestionFrame
from .lines import LinePool

WEIGHTS_FILE = Path(__file__).with_name("ranker.json")
FOUND = 0.5
"""the confidence from which the ranking takes the answer to be in the video"""
TYPED_DEPTH = 40
"""lines tagged for the answer type after the first pass"""


@dataclass(frozen=True)
class RankerWeights:
    weights: dict[str, float]
    threshold: float
    """the best line's score below which the answer is taken to be absent"""
    scale: float = 1.0
    """how sharply confidence rises with the best score past the threshold"""

    def vector(self) -> np.ndarray:
        return np.array([self.weights.get(name, 0.0) for name in FEATURES])

    @classmethod
    def load(cls, path: Path = WEIGHTS_FILE) -> RankerWeights:
        data = json.loads(path.read_text())
        return cls(weights=data["weights"], threshold=float(data["threshold"]), scale=float(data.get("scale", 1.0)))


@functools.lru_cache(maxsize=1)
def default_weights() -> RankerWeights:
    return RankerWeights.load()


@dataclass
class Ranking:
    frame: QuestionFrame
    lines: list[Evidence]
    """best first, each with its score and rank"""
    best_score: float
    confidence: float
    """0-1: how far the best line's score stands past the not-found threshold"""

    @property
    def found(self) -> bool:
        return self.confidence >= FOUND


def rank(frame: QuestionFrame, pool: LinePool, signals: QuestionSignals, weights: RankerWeights | None = None, depth: int = 20) -> Ranking:
    weights = weights or default_weights()
    w = weights.vector()
    rows = line_features(frame, pool, signals)
    typed = [int(i) for i in np.argsort(-(rows @ w), kind="stable")[:TYPED_DEPTH]]  # only the tagged lines compete
    add_typed(rows, frame, pool, typed)
    scores = rows @ w
    order = sorted(typed, key=lambda i: (-scores[i], i))[:depth]
    ranked = [pool.lines[i].model_copy(update={"score": round(float(scores[i]), 4), "rank": r + 1}) for r, i in enumerate(order)]
    best = float(scores[order[0]]) if order else -math.inf
    confidence = 1.0 / (1.0 + math.exp(-weights.scale * (best - weights.threshold))) if order else 0.0
    return Ranking(
        frame=frame,
        lines=ranked,
        best_score=best,
        confidence=confidence,
    )
