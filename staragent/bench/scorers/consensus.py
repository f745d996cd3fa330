"""Consensus scoring in the spirit of FlowEval (seed 002): judge an answer by its closeness to the
nearest answers people gave elsewhere, not to one reference.

For a candidate (question q, answer a) we retrieve the k most similar items of a pool of human answers
with ``S = (1 + cos(q, q_R)) * (1 + cos(a, a_R))`` over TF-IDF vectors — a topic term (the question) times
a content term (the answer), the shape of FlowEval's Eq. 1 — and score the candidate by the best metric
value against those pseudo-references (FlowEval's Eq. 3 with w = 0). By default an item's own reference
is left out of its pool (``exclude_own``), which makes the score reference-free.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import sparse

from .. import text as tx
from . import lexical
from .common import judged, score_summary, skipped_row
from .display import ci_cell, ci_suffix, fraction, scored
from .scorer import Headline, Scorer, Section

METRICS: dict[str, Callable[[str, str], float]] = {
    "rouge_l": lexical.rouge_l,
    "bleu": lexical.sentence_bleu,
    "meteor": lexical.meteor,
    "token_f1": lambda h, r: 100.0 * tx.token_f1(h, r),
}


class TfidfIndex:
    """L2-normalised TF-IDF vectors (smoothed idf, stemmed content words)."""

    def __init__(self, documents: list[str]):
        docs = [tx.content_words(d) for d in documents]
        df = Counter(w for d in docs for w in set(d))
        self.vocab = {w: i for i, w in enumerate(sorted(df))}
        n = len(docs)
        self.idf = np.array([math.log((1 + n) / (1 + df[w])) + 1.0 for w in sorted(df)], dtype=np.float64)
        rows, cols, vals = [], [], []
        for r, d in enumerate(docs):
            vec = self.vector(d, tokenised=True)
            nz = np.flatnonzero(vec)
            rows.extend([r] * len(nz))
            cols.extend(nz.tolist())
            vals.extend(vec[nz].tolist())
        self.matrix = sparse.csr_matrix((vals, (rows, cols)), shape=(n, len(self.vocab)))

    def vector(self, doc: str | list[str], tokenised: bool = False) -> np.ndarray:
        words = doc if tokenised else tx.content_words(doc)
        vec = np.zeros(len(self.vocab), dtype=np.float64)
        for w, c in Counter(words).items():
            i = self.vocab.get(w)
            if i is not None:
                vec[i] = c * self.idf[i]
        norm = np.linalg.norm(vec)
        return vec / norm if norm else vec

    def cosine(self, doc: str) -> np.ndarray:
        return self.matrix @ self.vector(doc) if len(self.vocab) else np.zeros(self.matrix.shape[0])


class ConsensusScorer:
    def __init__(self, pool: list[dict[str, str]], k: int = 5, metric: str = "rouge_l"):
        """``pool``: ``[{"id", "question", "answer"}]`` of human answers."""
        if metric not in METRICS:
            raise ValueError(f"unknown consensus metric {metric!r}; use one of {', '.join(METRICS)}")
        self.pool = pool
        self.k = k
        self.metric = metric
        self.questions = TfidfIndex([p.get("question", "") for p in pool])
        self.answers = TfidfIndex([p["answer"] for p in pool])

    def retrieve(self, question: str, answer: str, exclude_id: str | None = None) -> list[tuple[int, float]]:
        sim = (1.0 + self.questions.cosine(question)) * (1.0 + self.answers.cosine(answer))
        order = np.argsort(-sim, kind="stable")
        out = []
        for i in order:
            if exclude_id is not None and self.pool[i].get("id") == exclude_id:
                continue
            out.append((int(i), float(sim[i])))
            if len(out) == self.k:
                break
        return out

    def score(self, question: str, answer: str, exclude_id: str | None = None) -> dict[str, Any]:
        hits = self.retrieve(question, answer, exclude_id)
        fn = METRICS[self.metric]
        values = [(fn(answer, self.pool[i]["answer"]), i, s) for i, s in hits]
        if not values:
            return {"score": 0.0, "best": None, "pseudo_references": []}
        best = max(values, key=lambda v: v[0])
        return {
            "score": best[0],
            "best": self.pool[best[1]].get("id"),
            "pseudo_references": [{"id": self.pool[i].get("id"), "similarity": s, "value": v} for v, i, s in values],
        }


def score_consensus(units: list[Any], k: int = 5, metric: str = "rouge_l", exclude_own: bool = True) -> list[dict[str, Any]]:
    """Pool: the reference answers of every turn in the run (the human answers)."""
    pool = [
        {"id": f"{u.sample.sample_id}#{u.pair.index}", "question": u.question, "answer": u.reference}
        for u in units
        if u.reference.strip()
    ]
    scorer = ConsensusScorer(pool, k=k, metric=metric)
    rows = []
    for u in units:
        if u.skip_reason:
            rows.append(skipped_row("consensus", u))
            continue
        own = f"{u.sample.sample_id}#{u.pair.index}" if exclude_own else None
        result = scorer.score(u.question, u.answer, exclude_id=own)
        rows.append({"metric": "consensus", **u.describe(), "consensus_metric": metric, "k": k, **result})
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    done, _ = judged(rows)
    return {**score_summary(rows), "metric": done[0]["consensus_metric"] if done else None}


def console_lines(s: dict[str, Any]) -> list[str]:
    return [
        f"consensus ({scored(s)}; 0-100): best {s['metric']} against the nearest human answers "
        f"{fraction(s['score'])}{ci_suffix(s.get('score_ci'))}"
    ]


def sections(m: dict[str, Any]) -> list[Section]:
    row = [m["turns"], m["metric"], m["score"], ci_cell(m), m.get("skipped", 0)]
    table = ("", ["Turns", "Metric", "Score", "95% CI", "Skipped"], [row])
    return [Section("Consensus (pseudo-references from the pool of human answers)", [table])]


def explain(row: dict[str, Any]) -> str | None:
    return f"best {row.get('consensus_metric')} against pseudo-reference {row['best']}" if row.get("best") else None


SCORER = Scorer(
    name="consensus",
    title="Consensus",
    run=lambda judge, units, workers: score_consensus(units),
    summarise=summarise,
    headlines=(Headline("consensus", "score", "score_ci"),),
    lines=console_lines,
    sections=sections,
    explain=explain,
)
