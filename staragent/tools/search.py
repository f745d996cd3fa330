"""cross_modal_search: find where something is said, written, heard or shown."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..errors import InputError
from ..limits import MAX_QUERY_CHARS, MAX_SEARCH_RESULTS
from ..schema import Evidence
from ..timecodes import format_range
from .base import Tool, ToolContext, ToolResult
from .common import TimeRangeArg


class Match(BaseModel):
    modality: str
    timestamp: str
    start: float
    end: float
    text: str


class Hit(BaseModel):
    timestamp: str
    start: float
    end: float
    scene: str = Field(description="the whole scene (shot, slide) around the match; read it for context")
    scene_start: float
    scene_end: float
    score: float
    matched: list[str] = Field(description="modalities in which this span ranked")
    evidence: list[Match]


class SearchResultModel(ToolResult):
    query: str
    results: list[Hit]
    not_searched: dict[str, str] = Field(default_factory=dict)

    def evidence(self) -> list[Evidence]:
        return [
            Evidence(start=m.start, end=m.end, modality=m.modality, text=m.text, score=hit.score, source="cross_modal_search")
            for hit in self.results
            for m in hit.evidence
        ]

    def summary(self) -> str:
        if not self.results:
            return f"no matches for {self.query!r}"
        return f"{len(self.results)} spans for {self.query!r}; best {self.results[0].timestamp}"


class CrossModalSearch(Tool):
    name = "cross_modal_search"
    description = (
        "Search the whole video for a topic, phrase, name or number and get the best-matching time spans, "
        "with the speech, on-screen text, sounds or pictures that matched. Use it first when you do not "
        "know where in the video something happens. modalities: any of speech, ocr, visual, caption, audio "
        "(default: all available). within: a time range to search inside only (a part already found)."
    )

    class Args(BaseModel):
        query: str = Field(description="what to look for, in a few words", max_length=MAX_QUERY_CHARS)
        modalities: list[str] | None = Field(None, description="subset of speech, ocr, visual, caption, audio")
        k: int = Field(5, ge=1, le=MAX_SEARCH_RESULTS, description="how many spans to return")
        within: TimeRangeArg | None = Field(None, description="only search inside this time range, e.g. \"4:00-5:30\"")

    Result = SearchResultModel

    def run(self, ctx: ToolContext, args: Args) -> SearchResultModel:
        from ..index.hybrid_search import cross_modal_search

        encoders = ctx.extras.get("query_encoders") or {}
        try:
            within = ctx.time_range(args.within) if args.within is not None else None
        except InputError as error:
            raise type(error)(f"within: {error}") from error
        found = cross_modal_search(ctx.require_index(), args.query, args.modalities, args.k, rrf_k=ctx.settings.rrf_k, encoders=encoders, within=within)
        hits = [
            Hit(
                timestamp=format_range(h.start, h.end),
                start=h.start,
                end=h.end,
                scene=format_range(h.scene_start, h.scene_end),
                scene_start=h.scene_start,
                scene_end=h.scene_end,
                score=h.score,
                matched=sorted(h.ranks),
                evidence=[
                    Match(modality=e.modality, timestamp=format_range(e.start, e.end), start=e.start, end=e.end, text=e.text)
                    for e in h.evidence
                ],
            )
            for h in found.hits
        ]
        return SearchResultModel(query=args.query, results=hits, not_searched=found.unavailable)
