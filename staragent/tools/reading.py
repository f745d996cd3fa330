"""find_answer: the reading core as a tool — the lines that best answer a question, ranked, and the
answer read from them."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..errors import ModelUnavailable, ToolError
from ..limits import MAX_QUESTION_CHARS
from ..schema import Evidence
from ..timecodes import format_range, read_range
from .base import Tool, ToolContext, ToolResult


class RankedLine(BaseModel):
    id: str
    timestamp: str
    start: float
    end: float
    modality: str
    text: str
    heading: str | None = None
    score: float


class FindAnswerResult(ToolResult):
    question: str
    answer: str = Field(description="the answer read from the best lines (or why none answers)")
    found: bool
    confidence: float = Field(description="0-1, from the ranker's calibrated score of the best line")
    answer_type: str
    cited: list[str] = Field(description="ids of the lines the answer rests on")
    lines: list[RankedLine] = Field(description="the best lines, best first")

    def evidence(self) -> list[Evidence]:
        cited = set(self.cited)
        return [
            Evidence(start=x.start, end=x.end, modality=x.modality, text=x.text, score=x.score, source="find_answer",
                     id=x.id, labels=[x.heading] if x.heading else [], rank=n)
            for n, x in enumerate(self.lines, 1)
            if x.id in cited
        ]

    def summary(self) -> str:
        return f"{'found' if self.found else 'not found'} ({self.confidence:.2f}): {self.answer[:120]}"


class FindAnswer(Tool):
    name = "find_answer"
    description = (
        "Find the lines of the whole video (what is said, written on screen or heard) that best answer a question, "
        "ranked, with a short answer read from them and how sure it is. Give the question as the user asked it; "
        "for a follow-up, also the previous question."
    )

    class Args(BaseModel):
        question: str = Field(description="the question, as asked", max_length=MAX_QUESTION_CHARS)
        previous: str | None = Field(None, description="the previous question of the conversation, for a follow-up",
                                     max_length=MAX_QUESTION_CHARS)
        timestamp: str | None = Field(None, description="a time range the question is about, e.g. '01:00-02:00'")
        k: int = Field(10, ge=1, le=20, description="how many lines to return")

    Result = FindAnswerResult

    def run(self, ctx: ToolContext, args: Args) -> FindAnswerResult:
        from ..qa import read_question

        index = ctx.require_index()
        scope = None
        if args.timestamp:
            span = read_range(args.timestamp, index.duration, widen_points=True)
            scope = (span.start, span.end)
        try:
            reading = read_question(index, args.question, previous=args.previous, scope=scope,
                                    encoders=ctx.extras.get("query_encoders") or {}, depth=args.k)
        except ModelUnavailable as exc:
            raise ToolError(f"find_answer cannot read questions here: {exc}") from None
        answer, ranking = reading.answer, reading.ranking
        lines = ranking.lines[: args.k]
        lines += [e for e in answer.evidence if e.id not in {x.id for x in lines}]  # a neighbour the answer cites
        return FindAnswerResult(
            question=args.question,
            answer=answer.text,
            found=answer.found,
            confidence=round(answer.confidence, 3),
            answer_type=ranking.frame.answer_type,
            cited=answer.citations,
            lines=[RankedLine(id=e.id, timestamp=format_range(e.start, e.end), start=e.start, end=e.end, modality=e.modality,
                              text=e.text, heading=e.labels[0] if e.labels else None, score=e.score or 0.0) for e in lines],
        )
