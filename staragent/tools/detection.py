"""object_detection and count_objects: find objects named in free text in the frames of a time
range, with an open-vocabulary detector (the ``detector`` expert: OWLv2, OWL-ViT, Grounding DINO)."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from ..errors import ToolError
from ..limits import MAX_CATEGORIES, MAX_QUERY_CHARS
from ..schema import Evidence
from ..timecodes import format_range, format_time
from .base import Tool, ToolContext, ToolResult
from .common import TimeRangeArg, frames_between


class ObjectBox(BaseModel):
    object: str
    timestamp: str = Field(description="when the frame was shown (m:ss)")
    time: float
    bounding_box: list[float] = Field(description="[x0, y0, x1, y1] as fractions of the frame width and height")
    score: float


class DetectionResult(ToolResult):
    timestamp: str
    categories: list[str]
    detections: list[ObjectBox]
    frames_examined: list[float] = Field(description="seconds of the frames that were looked at")
    model: str

    def evidence(self) -> list[Evidence]:
        return [
            Evidence(start=d.time, end=d.time, modality="visual", text=f"{d.object} at {d.bounding_box}", score=d.score, source="object_detection")
            for d in self.detections
        ]

    def summary(self) -> str:
        if not self.detections:
            return f"{self.timestamp}: none of {', '.join(self.categories)} found"
        found = {c: sum(d.object == c for d in self.detections) for c in self.categories}
        return f"{self.timestamp}: " + ", ".join(f"{c} x{n}" for c, n in found.items() if n)


def _clean_queries(values: list[str]) -> list[str]:
    queries = list(dict.fromkeys(v.strip() for v in values if v and v.strip()))
    if not queries:
        raise ValueError("give at least one non-empty category, e.g. ['person', 'laptop']")
    if len(queries) > MAX_CATEGORIES:
        raise ValueError(f"at most {MAX_CATEGORIES} categories per call")
    return queries


def detect_in_range(ctx: ToolContext, timestamp: str, queries: list[str], threshold: float | None, needed_by: str):
    """(start, end, [(time, detections)], model name) for ``queries`` in the range."""
    start, end = ctx.time_range(timestamp)
    detector = ctx.expert("detector", needed_by)
    frames = frames_between(ctx, start, end, ctx.settings.toolset.detector.max_frames)
    if not frames:
        raise ToolError(f"no frame could be decoded in {format_range(start, end)}")
    found = detector.detect([image for _, image in frames], queries, threshold)
    return start, end, [(t, dets) for (t, _), dets in zip(frames, found)], detector.name


class ObjectDetection(Tool):
    name = "object_detection"
    description = (
        "Find objects, logos or brands named in free text in the frames of a time range, with their "
        "bounding boxes and the moment each was seen. categories: what to look for, e.g. ['laptop', 'coffee cup']."
    )
    requires = ("detector",)

    class Args(BaseModel):
        timestamp: TimeRangeArg
        categories: list[str] = Field(description="objects to look for, in a few words each")
        threshold: float | None = Field(None, ge=0, le=1, description="lowest score kept (default from settings)")

        @field_validator("categories")
        @classmethod
        def _queries(cls, value: list[str]) -> list[str]:
            return _clean_queries(value)

    Result = DetectionResult

    def run(self, ctx: ToolContext, args: Args) -> DetectionResult:
        start, end, per_frame, model = detect_in_range(ctx, args.timestamp, args.categories, args.threshold, self.name)
        boxes = [
            ObjectBox(object=d.label, timestamp=format_time(t), time=round(t, 3), bounding_box=d.box, score=d.score)
            for t, dets in per_frame
            for d in dets
        ]
        return DetectionResult(
            timestamp=format_range(start, end), categories=args.categories, detections=boxes,
            frames_examined=[round(t, 3) for t, _ in per_frame], model=model,
        )


class FrameCount(BaseModel):
    timestamp: str
    time: float
    count: int


class CountResult(ToolResult):
    object: str
    count: int = Field(description="the most seen together in one examined frame")
    timestamp: str
    peak_timestamp: str | None = Field(None, description="when that many were visible")
    per_frame: list[FrameCount]
    model: str
    note: str = "objects are counted per frame; the same object in two frames is not counted twice"

    def evidence(self) -> list[Evidence]:
        best = max(self.per_frame, key=lambda f: f.count, default=None)
        if best is None or best.count == 0:
            return []
        return [Evidence(start=best.time, end=best.time, modality="visual", text=f"{self.count} x {self.object}", source="count_objects")]

    def summary(self) -> str:
        return f"{self.timestamp}: {self.count} x {self.object}" + (f" (at {self.peak_timestamp})" if self.peak_timestamp else "")


class CountObjects(Tool):
    name = "count_objects"
    description = (
        "Count how many of one kind of object are visible in a time range (the most seen together in a "
        "frame), e.g. object_query='person' or 'red car'."
    )
    requires = ("detector",)

    class Args(BaseModel):
        timestamp: TimeRangeArg
        object_query: str = Field(description="the kind of object to count, in a few words",
                                  max_length=MAX_QUERY_CHARS)
        threshold: float | None = Field(None, ge=0, le=1, description="lowest score counted (default from settings)")

        @field_validator("object_query")
        @classmethod
        def _one(cls, value: str) -> str:
            return _clean_queries([value])[0]

    Result = CountResult

    def run(self, ctx: ToolContext, args: Args) -> CountResult:
        start, end, per_frame, model = detect_in_range(ctx, args.timestamp, [args.object_query], args.threshold, self.name)
        counts = [FrameCount(timestamp=format_time(t), time=round(t, 3), count=sum(d.label == args.object_query for d in dets)) for t, dets in per_frame]
        best = max(counts, key=lambda f: f.count)
        return CountResult(
            object=args.object_query, count=best.count, timestamp=format_range(start, end),
            peak_timestamp=best.timestamp if best.count else None, per_frame=counts, model=model,
        )
