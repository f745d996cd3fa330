"""Question in, ``Answer`` out: frame → retrieve → rank → read, over one video's index."""

from __future__ import annotations

from dataclasses import dataclass

from ..limits import MAX_QUESTION_CHARS
from .answer import Answer
from .frame import QuestionFrame, QuestionReader, SpacyQuestionReader, TimeScope
from .lines import LinePool, pool_of
from .rank import RankerWeights, Ranking, rank
from .read import ExtractiveReader
from .retrieve import locate, signals

AROUND_S = 15.0
"""how far past a named part "after it" (or before it, "before it") reaches"""
MARGIN_S = 2.0


def anchored_scope(frame: QuestionFrame, pool: LinePool) -> TimeScope | None:
    """The time a question's named part places its answer in: the part is where the line that best
    matches its words is (a title card stands for its whole part)."""
    anchor = frame.anchors[0]
    part = locate(pool, anchor.terms)
    if part is None:
        return None
    if anchor.relation == "after":
        span = (part.end - MARGIN_S, part.end + AROUND_S)
    elif anchor.relation == "before":
        span = (part.start - AROUND_S, part.start + MARGIN_S)
    elif anchor.relation == "between" and (other := locate(pool, anchor.second)) is not None:
        first, last = sorted([part, other], key=lambda e: e.start)
        span = (first.end - MARGIN_S, max(last.start + MARGIN_S, first.end + MARGIN_S))
    else:
        span = (part.start, part.end)
    return TimeScope(start=max(0.0, span[0]), end=min(pool.duration or span[1], span[1]), kind="anchor")


def read_frame(pool: LinePool, question: str, *, previous: str | None = None, scope: tuple[float, float] | None = None,
               question_reader: QuestionReader | None = None) -> QuestionFrame:
    """The question's frame, its named parts placed in time over ``pool``."""
    question_reader = question_reader or SpacyQuestionReader()
    before: QuestionFrame | None = question_reader.read(previous[:MAX_QUESTION_CHARS]) if previous else None
    frame = question_reader.read(question[:MAX_QUESTION_CHARS], before)
    if scope is not None:
        frame = frame.model_copy(update={"scope": TimeScope(start=scope[0], end=scope[1], kind="range")})
    if frame.anchors and frame.scope is None and (placed := anchored_scope(frame, pool)) is not None:
        frame = frame.model_copy(update={"scope": placed})
    return frame


@dataclass
class Reading:
    answer: Answer
    ranking: Ranking
    pool: LinePool


def read_question(
    index,
    question: str,
    *,
    previous: str | None = None,
    scope: tuple[float, float] | None = None,
    encoders: dict | None = None,
    question_reader: QuestionReader | None = None,
    reader=None,
    weights: RankerWeights | None = None,
    depth: int = 20,
) -> Reading:
    """Answer ``question`` from ``index``: ``previous`` is the question of the turn before (for a
    follow-up), ``scope`` a time range the caller already knows the question points at."""
    pool = pool_of(index)
    frame = read_frame(pool, question, previous=previous, scope=scope, question_reader=question_reader)
    ranking = rank(frame, pool, signals(index, pool, frame, encoders), weights, depth=depth)
    answer = (reader or ExtractiveReader()).read(ranking, pool)
    return Reading(answer=answer, ranking=ranking, pool=pool)
