"""Every line an index holds, as typed ``Evidence`` with an id, and who its neighbours are.

A line is the unit the reading core ranks: a speech line, a line of on-screen text, a named sound,
an acoustic event, or what a coarse picture model saw (an object class, a number of faces). Facts often straddle two lines (a name split over two OCR lines, a date on the
line under a place, a heading and the name under it, a sentence across two speech lines), so each
line knows its neighbours: the speech lines just before and after it, the lines on screen with it,
and the heading above it.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass, field

from ..index.lexical import LexicalIndex
from ..index.text import tokenize
from ..records import LABEL_WORDS
from ..schema import Evidence
from .layout import labelled, line_above

SPEECH_GAP_S = 2.5
"""speech lines further apart than this are not read together"""
LABEL_SLACK_S = 0.5
"""a heading may come up this long after the first line it labels (``layout.labelled``)"""
LASTING_S = 60.0
"""an on-screen line on for longer than this is part of the frame or a window, not of a stretch"""


def _key(e: Evidence) -> tuple:
    """What makes two pieces of evidence the same line, whoever produced them."""
    return e.modality, round(e.start, 1), " ".join(e.text.split())


@dataclass
class LinePool:
    lines: list[Evidence]
    by_id: dict[str, Evidence] = field(default_factory=dict)
    neighbours: dict[str, list[str]] = field(default_factory=dict)
    """line id -> ids read with it: the speech lines either side, the lines on screen at once"""
    segment_of: list[int | None] = field(default_factory=list)
    """per line, the index segment its middle falls in (its speech passage there is embedded)"""
    duration: float = 0.0

    def __post_init__(self):
        self.by_id = {e.id: e for e in self.lines}

    def context(self, line: Evidence) -> list[Evidence]:
        return [self.by_id[i] for i in self.neighbours.get(line.id, []) if i in self.by_id]

    def own(self, evidence: list[Evidence]) -> list[Evidence]:
        """Evidence from elsewhere (a tool's result) as this pool's own lines, with their ids and
        headings, where the pool holds them; the rest keep their text under a fresh id."""
        by_key = {_key(e): e for e in self.lines}
        found = [by_key.get(_key(e)) or e.model_copy(update={"id": e.id or f"t{n}"}) for n, e in enumerate(evidence, 1)]
        return list({e.id: e for e in found}.values())

    @functools.cached_property
    def texts(self) -> dict[int, str]:
        """Line number -> text, for a lexical index over lines."""
        return {i: e.text for i, e in enumerate(self.lines)}

    @functools.cached_property
    def context_texts(self) -> dict[int, str]:
        """Line number -> the line's text with its heading and neighbours'."""
        return {i: " ".join([*e.labels, e.text, *(n.text for n in self.context(e))]) for i, e in enumerate(self.lines)}

    @functools.cached_property
    def tokens(self) -> list[frozenset[str]]:
        """Search tokens of each line (tokenized once per pool, not once per question)."""
        return [frozenset(tokenize(e.text)) for e in self.lines]

    @functools.cached_property
    def context_tokens(self) -> list[frozenset[str]]:
        """Search tokens of each line read with its heading and neighbours."""
        return [own | frozenset(tokenize(self.context_texts[i])) for i, own in enumerate(self.tokens)]

    @functools.cached_property
    def idf(self) -> dict[str, float]:
        """Inverse frequency of each token over the lines read with their neighbours."""
        counts: dict[str, int] = {}
        for tokens in self.context_tokens:
            for token in tokens:
                counts[token] = counts.get(token, 0) + 1
        n = len(self.lines)
        return {t: math.log((n + 1) / (c + 0.5)) for t, c in counts.items()}

    @functools.cached_property
    def lexical(self) -> LexicalIndex | None:
        """BM25 over the lines alone."""
        return LexicalIndex.build(self.texts)

    @functools.cached_property
    def context_lexical(self) -> LexicalIndex | None:
        """BM25 over the lines read with their heading and neighbours."""
        return LexicalIndex.build(self.context_texts)


def _overlap(a: Evidence, b: Evidence) -> float:
    return max(0.0, min(a.end, b.end) - max(a.start, b.start))


def _speech(index) -> list[Evidence]:
    return [Evidence(id=f"s{i}", start=s.start, end=s.end, modality="speech", text=s.text, source="speech") for i, s in enumerate(index.speech) if s.text.strip()]


def _screen(index) -> list[Evidence]:
    return [
        Evidence(id=f"o{i}", start=o.start, end=o.end, modality="ocr", text=o.text, box=o.box, source="ocr", score=o.score)
        for i, o in enumerate(index.ocr)
        if o.text.strip() and o.start is not None and o.end is not None
    ]


def _sounds(index) -> list[Evidence]:
    named = [Evidence(id=f"a{i}", start=e.start, end=e.end, modality="audio", text=e.label, score=e.score, source="sound tagger")
             for i, e in enumerate(index.sound_events)]
    measured = [
        Evidence(id=f"e{i}", start=e.start, end=e.end, modality="audio",
                 text=" ".join(filter(None, [e.label, f"({e.detail})" if e.detail else "", LABEL_WORDS.get(e.label, "")])), source="acoustics")
        for i, e in enumerate(index.audio_events)
        if e.label != "speech"
    ]
    return named + measured


def _pictures(index) -> list[Evidence]:
    return [Evidence(id=f"v{i}", start=e.start, end=e.end, modality="visual", text=e.text(), score=e.score,
                     source="face detector" if e.kind == "faces" else "object classifier")
            for i, e in enumerate(index.pictures)]


def _label(screen: list[Evidence]) -> None:
    """Give each on-screen line what labels it (``layout.labelled``: the heading over it, the label
    beside it on its row, the placeholder it replaced; else the line just above it), read over each
    stretch of lines that were on screen together, so that the work grows with the lines of a
    stretch, not of the whole video. A line that stays on for long (a clock, a window's title) joins
    every stretch it is on in, but does not join stretches into one."""
    lasting = [e for e in screen if e.end - e.start > LASTING_S]
    stretch: list[Evidence] = []
    until = float("-inf")
    for line in [*(e for e in screen if e.end - e.start <= LASTING_S), None]:
        if stretch and (line is None or line.start > until + LABEL_SLACK_S):
            start = stretch[0].start
            read = stretch + [e for e in lasting if e.start < until and e.end > start]
            boxes = {e.key(): tuple(e.box) for e in read if e.box and len(e.box) == 4}
            found = labelled(read, boxes)
            for e in stretch:
                above = line_above(e, read, boxes)
                labels = [*([above] if above is not None else []), *(o for o in found.get(e.key(), []) if o is not above)]
                e.labels = [label.text.rstrip(" :") for label in labels]
            stretch = []
        if line is not None:
            until = line.end if not stretch else max(until, line.end)
            stretch.append(line)
    for e in lasting:
        e.labels = []


def build_pool(index) -> LinePool:
    """The lines of ``index`` with their neighbours; build once per index (``pool_of``)."""
    speech, screen = _speech(index), _screen(index)
    neighbours: dict[str, list[str]] = {}
    for before, after in zip(speech, speech[1:]):
        if after.start - before.end <= SPEECH_GAP_S:
            neighbours.setdefault(before.id, []).append(after.id)
            neighbours.setdefault(after.id, []).append(before.id)
    screen.sort(key=lambda e: e.start)
    _label(screen)
    for i, line in enumerate(screen):
        shown = [o for o in screen[max(0, i - 40): i + 40] if o is not line and _overlap(line, o) > 0]
        together = sorted(shown, key=lambda o: -_overlap(line, o))[:6]
        neighbours[line.id] = [o.id for o in together]
    lines = sorted(speech + screen + _sounds(index) + _pictures(index), key=lambda e: (e.start, e.id))
    return LinePool(lines=lines, neighbours=neighbours, segment_of=_segments_of(index, lines), duration=index.duration)


def _segments_of(index, lines: list[Evidence]) -> list[int | None]:
    """The segment each line's middle falls in (by bisection over the segments' starts)."""
    segments = sorted(index.segments, key=lambda s: s.start)
    starts = [s.start for s in segments]
    found: list[int | None] = []
    for line in lines:
        middle = (line.start + line.end) / 2
        at = bisect.bisect_right(starts, middle) - 1
        found.append(segments[at].id if at >= 0 and segments[at].end > middle else None)
    return found


_POOLS: dict[str, LinePool] = {}


def pool_of(index) -> LinePool:
    """The index's pool, built on first use and kept for the process (keyed by the index's directory
    and its manifest's stages, so a rebuilt index gets a new pool)."""
    key = f"{index.dir}:{sorted((k, v.fingerprint) for k, v in index.manifest.stages.items())}"
    if key not in _POOLS:
        if len(_POOLS) > 16:
            _POOLS.clear()
        _POOLS[key] = build_pool(index)
    return _POOLS[key]
