"""Stage 1, the multimodal description: a video's index as numbered spans of what was said, shown and
heard, grouped into windows that fit a writer model's prompt.

A span is one segment of the index (segments follow speech and silences and split at scene cuts, as in
the paper) with its speech, its on-screen text, its named sounds and, when a vision-language model
captioned the video, its caption. Spans with nothing in them are left out. Windows are runs of
consecutive spans of at most ``window_chars`` characters as the prompt shows them, so a prompt stays
the same size however long the video is. No model is called here.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from ..bench import text as tx
from ..timecodes import format_range

_MATH = re.compile(r"\d\s*[-+*/×÷^=]\s*[\dxyz(]|[=]\s*\d|\b[xyz]\s*[=+]", re.IGNORECASE)
QUIET_LABELS = {"silence", "speech"}


class Span(BaseModel):
    """One segment of the index with what each modality holds there."""

    id: int
    start: float
    end: float
    speech: str = ""
    screen: list[str] = Field(default_factory=list)
    sounds: str = ""
    caption: str = ""

    @property
    def label(self) -> str:
        return f"S{self.id}"

    def text(self) -> str:
        """Everything this span holds, as one text (what a cited answer is checked against)."""
        return " ".join(p for p in (self.speech, " | ".join(self.screen), self.sounds, self.caption) if p)

    def kinds(self) -> set[str]:
        found = {k for k, v in (("speech", self.speech), ("ocr", self.screen), ("sound", self.sounds), ("caption", self.caption)) if v}
        if _MATH.search(" ".join(self.screen)):
            found.add("math")
        return found


class Window(BaseModel):
    id: int
    start: float
    end: float
    spans: list[int]


class Description(BaseModel):
    """What the later stages know of a video."""

    video: str
    video_id: str
    duration: float
    index_dir: str
    sources: dict[str, Any] = Field(default_factory=dict, description="where speech, screen text, sounds and captions came from")
    spans: list[Span]
    windows: list[Window]

    def span_map(self) -> dict[int, Span]:
        return {s.id: s for s in self.spans}

    def evidence(self) -> set[str]:
        """Kinds of content the video has: speech, ocr, sound, caption, math, numbers."""
        kinds: set[str] = set().union(*(s.kinds() for s in self.spans)) if self.spans else set()
        if len(tx.numbers(" ".join(s.speech + " " + " ".join(s.screen) for s in self.spans), words=False)) >= 2:
            kinds.add("numbers")
        return kinds

    def window_spans(self, windows: list[int]) -> list[Span]:
        by_id = self.span_map()
        return [by_id[i] for w in windows for i in self.windows[w].spans]

    def render(self, spans: list[Span]) -> str:
        return render_spans(spans)


def _sounds(segment: Any) -> str:
    audio = segment.audio
    kinds = sorted({e.label if not e.detail else f"{e.label} ({e.detail})" for e in audio.events if e.label not in QUIET_LABELS})
    return "; ".join(kinds + list(audio.tags))


def spans_of(index: Any) -> list[Span]:
    spans = []
    for segment in index.segments:
        span = Span(
            id=segment.id, start=round(segment.start, 3), end=round(segment.end, 3), speech=segment.speech_text.strip(),
            screen=[line.text.strip() for line in segment.ocr if line.text.strip()], sounds=_sounds(segment),
            caption=(segment.caption or "").strip(),
        )  # fmt: skip
        if span.kinds():
            spans.append(span)
    return spans


def render_span(span: Span, previous_screen: list[str] | None = None) -> str:
    """``[S3 0:10-0:14] said: "..." | on screen: "A" / "B" | sounds: ... | picture: ...``. Screen text
    that did not change since the span before is not repeated."""
    parts = []
    if span.speech:
        parts.append(f'said: "{span.speech}"')
    if span.screen:
        same = previous_screen is not None and previous_screen == span.screen
        parts.append("on screen: (unchanged)" if same else "on screen: " + " / ".join(f'"{t}"' for t in span.screen))
    if span.sounds:
        parts.append(f"sounds: {span.sounds}")
    if span.caption:
        parts.append(f"picture: {span.caption}")
    return f"[{span.label} {format_range(span.start, span.end)}] " + " | ".join(parts)


def render_spans(spans: list[Span]) -> str:
    lines, previous = [], None
    for i, span in enumerate(spans):
        contiguous = i > 0 and spans[i - 1].id == span.id - 1
        lines.append(render_span(span, previous if contiguous else None))
        previous = span.screen or previous
    return "\n".join(lines)


def windows_of(spans: list[Span], window_chars: int) -> list[Window]:
    windows: list[Window] = []
    current: list[Span] = []
    size, previous = 0, None
    for span in spans:
        line = len(render_span(span, previous)) + 1
        if current and size + line > window_chars:
            windows.append(Window(id=len(windows), start=current[0].start, end=current[-1].end, spans=[s.id for s in current]))
            current, size, previous = [], 0, None
            line = len(render_span(span)) + 1
        current.append(span)
        size += line
        previous = span.screen or previous
    if current:
        windows.append(Window(id=len(windows), start=current[0].start, end=current[-1].end, spans=[s.id for s in current]))
    return windows


def describe(index: Any, video_id: str, window_chars: int) -> Description:
    """The description of an indexed video (see the module docstring)."""
    spans = spans_of(index)
    sources = {
        "speech": index.stage_info("speech").get("source"),
        "screen_text": index.stage_info("ocr").get("backend"),
        "sounds": index.stage_info("audio_tags").get("model") or "acoustic events",
        "captions": index.stage_info("captions").get("model"),
    }
    return Description(
        video=str(index.video_path), video_id=video_id, duration=round(index.duration, 3), index_dir=str(index.dir),
        sources={k: v for k, v in sources.items() if v}, spans=spans, windows=windows_of(spans, window_chars),
    )  # fmt: skip
