"""Named features of each line for a question: what the ranker weighs.

Every feature is a number in [0, 1] (or a 0/1 indicator) computed for every line of the pool, so the
weights a script fits (``eval/fit_ranker.py``) apply as they are. Lexical and dense scores are scaled per
question (the best line gets 1), since their raw ranges differ from one video and query to the next.
Question words that occur nowhere in the video are left out of coverage: a word the video does not
use is no evidence against the line that answers (it is how people ask, not what the video says).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..index.text import tokenize
from .frame import QuestionFrame
from .lines import LinePool

FEATURES = (
    "bm25",             # line-level BM25 of the question's terms, scaled to the best line
    "bm25_context",     # the same over the line read with its heading and neighbours
    "dense",            # e5 similarity of the line's passage, above the median line, scaled to the best
    "coverage",         # idf-weighted share of the question's (findable) terms in the line
    "context_coverage", # the same in the line with its heading and neighbours
    "label_match",      # the heading above the line holds a question term
    "answer_type",      # the line holds a value of the type asked for (a name, a date, an amount) beyond the question's words
    "answer_type_near", # a neighbour does
    "has_value",        # the line holds any named value (a name, number, date, amount, place) the question does not give
    "in_scope",         # the line overlaps the time the question points at
    "out_of_scope",     # the question points at a time and the line is elsewhere
    "echo",             # share of the line's words that are the question's own (a title restating the question)
    "speech",           # modality indicators: a prior per modality
    "ocr",
    "audio",
    "heard_audio",      # the question names something heard, and the line is a sound
    "previous_terms",   # coverage of the previous question's terms, for a question that refers back
)  # fmt: skip

COLUMN = {name: i for i, name in enumerate(FEATURES)}

# spaCy entity labels that hold a value of each answer type
TYPE_LABELS: dict[str, tuple[str, ...]] = {
    "person": ("PERSON",),
    "organization": ("ORG",),
    "place": ("GPE", "LOC", "FAC"),
    "date": ("DATE",),
    "time": ("TIME",),
    "moment": ("TIME", "DATE"),
    "duration": ("TIME", "DATE", "QUANTITY", "CARDINAL"),
    "money": ("MONEY",),
    "count": ("CARDINAL", "QUANTITY"),
    "number": ("CARDINAL", "QUANTITY", "MONEY", "PERCENT"),
}

VALUE_LABELS = tuple(sorted({label for labels in TYPE_LABELS.values() for label in labels} | {"PERCENT", "NORP", "WORK_OF_ART"}))


@dataclass
class QuestionSignals:
    """What retrieval measured for one question over a pool, before the features combine it."""

    bm25: np.ndarray
    bm25_context: np.ndarray
    dense: np.ndarray


def scaled(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if len(values) else 0.0
    return values / top if top > 0 else np.zeros_like(values)


def question_tokens(frame: QuestionFrame) -> list[str]:
    words = [*frame.terms, *frame.names, *frame.quoted]
    return list(dict.fromkeys(t for w in words for t in tokenize(w)))


def _coverage(wanted: list[str], idf: dict[str, float], tokens: set[str]) -> float:
    findable = [t for t in wanted if t in idf]
    total = sum(idf[t] for t in findable)
    return sum(idf[t] for t in findable if t in tokens) / total if total > 0 else 0.0


def typed_values(text: str, answer_type: str, frame: QuestionFrame) -> list[str]:
    """Values of ``answer_type`` in ``text`` that the question does not already give."""
    from .language import entities

    labels = VALUE_LABELS if answer_type == "any" else TYPE_LABELS.get(answer_type)
    if not labels:
        return []
    given = set(tokenize(frame.text))
    return [value for label, value in entities(text) if label in labels and not set(tokenize(value)) <= given]


def line_features(frame: QuestionFrame, pool: LinePool, signals: QuestionSignals) -> np.ndarray:
    """An array ``[lines, len(FEATURES)]`` of every feature but the tagged ones (``add_typed``
    fills those for the lines worth tagging: tagging every line of an hour costs seconds)."""
    wanted = question_tokens(frame)
    earlier = [t for w in frame.previous_terms for t in tokenize(w) if t not in wanted]
    idf = pool.idf
    asked = set(wanted)
    rows = np.zeros((len(pool.lines), len(FEATURES)), dtype=np.float64)
    rows[:, COLUMN["bm25"]] = signals.bm25
    rows[:, COLUMN["bm25_context"]] = signals.bm25_context
    rows[:, COLUMN["dense"]] = signals.dense
    for i, (line, own, context) in enumerate(zip(pool.lines, pool.tokens, pool.context_tokens)):
        row = rows[i]
        row[COLUMN["coverage"]] = _coverage(wanted, idf, own)
        row[COLUMN["context_coverage"]] = _coverage(wanted, idf, context)
        row[COLUMN["label_match"]] = float(bool(line.labels) and bool(asked & set(tokenize(" ".join(line.labels)))))
        if frame.scope is not None:
            inside = line.end > frame.scope.start and line.start < frame.scope.end
            row[COLUMN["in_scope"]] = float(inside)
            row[COLUMN["out_of_scope"]] = float(not inside)
        row[COLUMN["echo"]] = len(own & asked) / len(own) if own else 0.0
        if line.modality in ("speech", "ocr", "audio"):
            row[COLUMN[line.modality]] = 1.0
        row[COLUMN["heard_audio"]] = float(frame.heard and line.modality == "audio")
        row[COLUMN["previous_terms"]] = _coverage(earlier, idf, context) if earlier else 0.0
    return rows


def add_typed(rows: np.ndarray, frame: QuestionFrame, pool: LinePool, chosen: list[int]) -> None:
    """Fill the features that need the tagger (``has_value``, ``answer_type``, ``answer_type_near``)
    for the lines numbered in ``chosen``, in place."""
    from .language import parse_many

    parse_many([pool.lines[i].text for i in chosen])
    for i in chosen:
        line = pool.lines[i]
        if line.modality == "audio":
            continue
        rows[i, COLUMN["has_value"]] = float(bool(typed_values(line.text, "any", frame)))
        if frame.answer_type in TYPE_LABELS:
            rows[i, COLUMN["answer_type"]] = float(bool(typed_values(line.text, frame.answer_type, frame)))
            near = [n for n in pool.context(line) if n.modality != "audio"]
            parse_many([n.text for n in near])
            rows[i, COLUMN["answer_type_near"]] = float(any(typed_values(n.text, frame.answer_type, frame) for n in near))
