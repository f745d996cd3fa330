"""Whether a question asks for a summary of the video (or of a part of it), by a fitted model.

People ask for an overview in endless ways ("tl;dr pls", "what's it about, in a nutshell", "give me
the gist"), so the decision is not a list of phrasings: the question is embedded with e5 and a
logistic model fitted on the blind rounds (``eval/fit_operation.py``; weights in ``operation.json``)
reads the embedding. Before embedding, the question's content words that the video itself holds
are masked ("can u summarize the ▁ video"): they say what the question is about, not what it asks
to have done with it, and left in, they make questions about one video look alike whatever they ask.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..index.text import tokenize
from .language import parse

WEIGHTS_FILE = Path(__file__).with_name("operation.json")
MASK = "_"
TOPIC_TAGS = ("NOUN", "PROPN", "ADJ", "NUM")
"""parts of speech that name what a question is about"""

Embed = Callable[[list[str]], np.ndarray]
"""query texts -> unit rows (e5's ``embed_queries``)"""


def operation_text(question: str, vocabulary: Collection[str]) -> str:
    """``question`` with each noun, name, adjective or number the video holds (every token of it, as
    ``index.text.tokenize`` gives them, in ``vocabulary``) replaced by a mask, but for the noun a
    question word asks for ("what time")."""
    out = []
    doc = parse(" ".join(question.split()))
    # the noun a question word picks out ("what time", "which part") says what is asked, not about what
    asked = {t.head.i for t in doc if t.tag_ in ("WDT", "WP") and t.dep_ == "det"}
    for token in doc:
        words = tokenize(token.text)
        topical = token.pos_ in TOPIC_TAGS and token.i not in asked and words and all(w in vocabulary for w in words)
        out.append(MASK if topical else token.text)
    return " ".join(out)


@dataclass(frozen=True)
class SummaryModel:
    weights: np.ndarray
    bias: float
    threshold: float
    embedder: str
    """the text embedder the weights were fitted on (its embeddings, no other's)"""

    def probability(self, embedding: np.ndarray) -> float:
        return 1.0 / (1.0 + math.exp(-(float(embedding @ self.weights) + self.bias)))

    @classmethod
    def load(cls, path: Path = WEIGHTS_FILE) -> SummaryModel:
        data = json.loads(path.read_text())
        return cls(np.asarray(data["weights"], np.float32), float(data["bias"]), float(data["threshold"]), data["embedder"])


@functools.lru_cache(maxsize=1)
def default_model() -> SummaryModel:
    return SummaryModel.load()


@functools.lru_cache(maxsize=1)
def bundled_embed() -> Embed:
    """The bundled e5-small's query embedding, loaded once for the process (the pack ships with
    staragent, so a planner can read a question without a session)."""
    from ..config import load_settings
    from ..models.bundled import E5_SMALL
    from ..models.packs import pack_dir
    from ..models.text_embedder import E5TextEmbedder

    folder = pack_dir(E5_SMALL, load_settings(progress=False).cache_dir)
    return E5TextEmbedder(folder / E5_SMALL.files[0].name, E5_SMALL.name).embed_queries


def video_vocabulary(index) -> frozenset[str]:
    """What a question may name of the video: every word its lines hold, and its file's name."""
    from .lines import pool_of

    name = Path(str(index.manifest.video.get("path") or "")).stem.replace("_", " ")
    return frozenset(pool_of(index).idf) | frozenset(tokenize(name))


class SummaryAsk:
    """Callable ``question -> bool``: whether it asks for an overview, over one video's words."""

    def __init__(self, vocabulary: Collection[str] = frozenset(), embed: Embed | None = None, model: SummaryModel | None = None):
        self.vocabulary = frozenset(vocabulary)
        self._embed = embed
        self.model = model or default_model()

    @functools.lru_cache(maxsize=256)  # noqa: B019 - one per video; a question is read again each turn of its thread
    def probability(self, question: str) -> float:
        embed = self._embed or bundled_embed()
        return self.model.probability(embed([operation_text(question, self.vocabulary)])[0])

    def __call__(self, question: str) -> bool:
        return self.probability(question) >= self.model.threshold
