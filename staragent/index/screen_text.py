"""On-screen text through time: which lines appear, change, move and leave, and when.

Frames come about once a second. Most of the work is deciding cheaply what is new:

1. The frame, small and grey, is compared with the last frame examined. Where no pixel changed,
   every line on screen simply stays, and nothing else runs.
2. Rows that changed make horizontal bands (text lines run across, so a band spans the full
   width, and grows to cover the lines already on screen that it touches); when the bands cover
   most of the frame, the whole frame is one band. The text detector runs on each band, downscaled;
   in moving pictures (the whole frame changing frame after frame) it first glances at a frame
   half that size and looks closer only when it finds text there.
3. Each detected line is compared by its look (a small grey picture) with the lines on screen in
   that band, where they can have moved to: along their row (a crawl) or a few lines up or down
   (scrolling credits move every second). Only lines that match none are recognised.
4. A reading close to a line that was there a moment ago (an OCR variant, a flicker, a line
   scrolling in from the edge or revealed letter by letter) continues that line instead of
   starting another.

Each line keeps the time it was first seen (``start``) and the time of the first examined frame
it was gone from (``end``), so both are accurate to one sampling step.

Recognition can run on a thread of its own (``recognise_on``) while the next frames are compared and
detected: a new line is followed by its look at once, and its reading is settled (it starts a line,
or continues one that was there a moment ago) when the recogniser returns, in the order the frames
came. The lines read are the same either way.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import media
from ..records import OcrLine
from .frame_pass import FramePass

CHANGE_WIDTH = 320
"""width of the small grey frames compared for change: enough to see a tooltip or a digit change"""
PIXEL_DELTA = 20  # of 255: a small-frame pixel that moved this much changed
STILL_PIXELS = 3  # fewer changed pixels than this: nothing happened on screen
BAND_MARGIN = 0.02  # of the frame height, added above and below each changed band
MIN_BAND_PX = 48  # bands shorter than this (at detection scale) are widened: the detector needs context
WHOLE_FRAME = 0.5  # bands covering more of the height than this: detect on the whole frame instead
PATCH_HEIGHT = 12  # pixels: a line's look is its grey picture shrunk to this height
SAME_LOOK = 0.11  # grey difference (0-1, see ``_difference``) under which two looks are the same text
SAME_TEXT = 0.8  # similarity of two readings (letters and digits only, 1 - edits / length) taken as one line
SCROLL_LINES = 6  # a line moves at most this many of its heights from one sampled frame to the next
LONE_SIGN_SCORE = 0.9  # a one-character reading is kept only this sure
REOPEN_STEPS = 2.5  # a line gone for fewer sampling steps than this and read again continues
PENDING_FRAMES = 4  # frames whose new lines may wait for the recogniser at once (each holds its full picture)
BESIDE_REACH = 0.1  # how far either side of a line, as a share of the frame's height, a control of its own sits (a check box, a switch)
BESIDE_HALF_HEIGHT = 0.025  # above and below the middle of its row, as a share of the frame's height
BESIDE_SHIFT = 6  # columns (of ``BESIDE_SIZE``) two looks beside a line may be shifted by and still be the same
BESIDE_SIZE = (48, 8)  # (width, height): what is beside a line, shrunk to this for comparing
BESIDE_DELTA = 40  # of 255: a pixel beside a line that moved this much changed
BESIDE_SHARE = 0.04  # the share of the pixels beside a line that must change for the change to count


def text_key(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _edits(a: str, b: str) -> int:
    """Levenshtein distance: letters to insert, delete or change to turn ``a`` into ``b``."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


def same_text(a: str, b: str) -> bool:
    """Two readings of one line: equal letters and digits, or close enough (an OCR variant: a few
    letters misread, relative to the longer reading)."""
    ka, kb = text_key(a), text_key(b)
    if not ka or not kb or ka == kb:
        return ka == kb
    return 1 - _edits(ka, kb) / max(len(ka), len(kb)) >= SAME_TEXT


def part_of(a: str, b: str) -> bool:
    """One reading holds the other: a line partly hidden by the frame's edge, or revealed a few
    letters at a time."""
    ka, kb = text_key(a), text_key(b)
    return min(len(ka), len(kb)) >= 4 and (ka in kb or kb in ka)


def better_reading(a: tuple[str, float], b: tuple[str, float]) -> tuple[str, float]:
    """Of two readings of one line, the fuller one (when one holds the other), else the surer one."""
    ka, kb = text_key(a[0]), text_key(b[0])
    if ka != kb and (ka in kb or kb in ka):
        return a if len(ka) > len(kb) else b
    return a if a[1] >= b[1] else b


@dataclass
class _Look:
    """What a line looks like: the grey picture of ``rect`` (x, y, width, height in pixels of the
    frame) scaled by ``scale`` (the line becomes ``PATCH_HEIGHT`` pixels high) and slightly
    blurred, so that a shift by a fraction of a pixel changes little."""

    rect: tuple[int, int, int, int]
    scale: float
    pixels: np.ndarray

    @classmethod
    def of(cls, grey: np.ndarray, rect: tuple[int, int, int, int], scale: float) -> _Look:
        import cv2

        x, y, w, h = rect
        margin = int(np.ceil(3 / scale))  # the blur is worked out with context, so looks of one place agree
        region = _window(grey, x - margin, y - margin, w + 2 * margin, h + 2 * margin)
        size = (max(2, round((w + 2 * margin) * scale)), max(2, round((h + 2 * margin) * scale)))
        small = cv2.GaussianBlur(cv2.resize(region, size, interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0, (0, 0), 1.0)
        inner = round(margin * scale)
        return cls(rect, scale, small[inner : inner + max(2, round(h * scale)), inner : inner + max(2, round(w * scale))])

    @classmethod
    def of_quad(cls, grey: np.ndarray, quad: np.ndarray) -> _Look:
        rect = _rect(quad)
        return cls.of(grey, rect, PATCH_HEIGHT / max(2, rect[3]))

    def find(self, grey: np.ndarray, quad: np.ndarray) -> tuple[float, _Look | None]:
        """This line near ``quad`` in ``grey`` (detected boxes jitter by a few pixels from frame to
        frame, and text keeps its size while it moves): the root mean square grey difference at
        the best alignment, and the look there; inf when the sizes disagree."""
        import cv2

        x, y, w, h = _rect(quad)
        if abs(np.log(w / self.rect[2])) > 0.2 or abs(np.log(h / self.rect[3])) > 0.25:
            return float("inf"), None
        grow = int(np.ceil(0.25 * self.rect[3]))
        around = _Look.of(grey, (x - grow, y - grow, max(w, self.rect[2]) + 2 * grow, max(h, self.rect[3]) + 2 * grow), self.scale).pixels
        if around.shape[0] < self.pixels.shape[0] or around.shape[1] < self.pixels.shape[1]:
            return float("inf"), None
        errors = cv2.matchTemplate(around, self.pixels, cv2.TM_SQDIFF)
        _, _, (px, py), _ = cv2.minMaxLoc(errors)
        # the best place to the nearest pixel of the frame, not of the small picture
        fx, fy = px + _vertex(errors[py, max(0, px - 1) : px + 2], px), py + _vertex(errors[max(0, py - 1) : py + 2, px], py)
        there = _Look.of(grey, (x - grow + round(fx / self.scale), y - grow + round(fy / self.scale), self.rect[2], self.rect[3]), self.scale)
        if there.pixels.shape != self.pixels.shape:
            return float("inf"), None
        return _difference(there.pixels, self.pixels), there


def _difference(a: np.ndarray, b: np.ndarray) -> float:
    """How different two looks of one size are: the root mean square difference of the most
    different stretch a line high (another word differs there; noise is spread everywhere)."""
    squared = (a - b) ** 2
    block = a.shape[0]
    columns = squared.mean(axis=0)
    if len(columns) <= block:
        return float(np.sqrt(columns.mean()))
    stretches = np.convolve(columns, np.ones(block) / block, mode="valid")
    return float(np.sqrt(stretches.max()))


def _vertex(errors: np.ndarray, at: int) -> float:
    """Where between pixels the least of three neighbouring errors lies (a parabola through them),
    as an offset from the middle one; 0 at an edge."""
    if len(errors) < 3 or at == 0:
        return 0.0
    left, middle, right = (float(e) for e in errors)
    curve = left - 2 * middle + right
    return float(np.clip((left - right) / (2 * curve), -0.5, 0.5)) if curve > 0 else 0.0


def _rect(quad: np.ndarray) -> tuple[int, int, int, int]:
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
    return int(x0), int(y0), max(2, int(x1 - x0)), max(2, int(y1 - y0))


def _window(grey: np.ndarray, x: int, y: int, w: int, h: int) -> np.ndarray:
    """``grey[y:y+h, x:x+w]``, the parts outside the frame filled with its edge."""
    import cv2

    height, width = grey.shape
    inside = grey[max(0, y) : min(height, y + h), max(0, x) : min(width, x + w)]
    if inside.size == 0:
        return np.zeros((h, w), grey.dtype)
    top, left = max(0, -y), max(0, -x)
    bottom, right = h - top - inside.shape[0], w - left - inside.shape[1]
    return cv2.copyMakeBorder(inside, top, bottom, left, right, cv2.BORDER_REPLICATE) if top or left or bottom or right else inside


@dataclass(eq=False)
class _Track:
    text: str | None
    """None: a box the recogniser could not read (or has not read yet); it is followed so that it is
    not read again"""
    score: float
    box: list[float]  # where the line was read, as fractions of the frame
    quad: np.ndarray  # where it is now, in pixels
    look: _Look
    start: float
    end: float | None = None
    became: _Track | None = None
    """the line this one turned out to continue once it was read (it lives on as that one)"""
    beside: list[tuple[float, np.ndarray]] = field(default_factory=list)
    """what was beside it in each frame examined before it was read (watched once its text is known)"""

    def now(self) -> _Track:
        track = self
        while track.became is not None:
            track = track.became
        return track


@dataclass
class Side:
    """What is beside one line (by its text and row), watched for changes that settle: a check box
    ticked, a switch turned. A change that goes back to how it was (a pointer passing) is none."""

    settled: np.ndarray
    seen: float
    """the last examined frame that showed it settled"""
    first: tuple[float, np.ndarray]
    unsettled: tuple[float, np.ndarray] | None = None
    """since when it differs from ``settled``, and how it looked at the last frame examined"""
    changes: list[tuple[float, float]] = field(default_factory=list)


def side_key(text: str, box: list[float]) -> str:
    """A line's text and row, to find what is beside it again after it was covered (a pointer over it)
    or read anew (in the next piece): places a line's jitter cannot cross (a twentieth of the frame
    down, a tenth across)."""
    return f"{text_key(text)}@{int((box[1] + box[3]) * 10)},{int((box[0] + box[2]) * 5)}"


def side_differs(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two looks beside a line differ, at the best of a few small shifts: a line read again
    has a box that starts a few pixels off, which moves what is beside it (a tick is no shift)."""
    a, b = a.astype(np.int16), b.astype(np.int16)
    rows, cols = a.shape
    best = 1.0
    for dy in (-1, 0, 1):
        for dx in range(-BESIDE_SHIFT, BESIDE_SHIFT + 1):
            x = a[max(0, dy) : rows + min(0, dy), max(0, dx) : cols + min(0, dx)]
            y = b[max(0, -dy) : rows + min(0, -dy), max(0, -dx) : cols + min(0, -dx)]
            best = min(best, float((np.abs(x - y) > BESIDE_DELTA).mean()))
    return best >= BESIDE_SHARE


def _beside(grey: np.ndarray, box: list[float]) -> np.ndarray:
    """The grey pixels to the left and right of a line, on its row (where a check box, a radio button
    or a switch of its own sits), shrunk to ``BESIDE_SIZE``. Taken beside the ``box`` the line was read
    in, not where its detected box is now, and sized by the frame, not by the box: a box grows and
    shrinks a little from one reading to the next, and what is beside it must not move with it."""
    import cv2

    height, width = grey.shape[:2]
    reach, half = int(BESIDE_REACH * height), max(2, int(BESIDE_HALF_HEIGHT * height))
    middle = int((box[1] + box[3]) / 2 * height)
    left = _window(grey, int(box[0] * width) - reach, middle - half, reach, 2 * half)
    right = _window(grey, int(box[2] * width), middle - half, reach, 2 * half)
    return cv2.resize(np.concatenate([left, right], axis=1), BESIDE_SIZE, interpolation=cv2.INTER_AREA)


@dataclass
class _Unread:
    """The new lines of one frame, waiting for the recogniser."""

    time: float
    quads: list[np.ndarray]  # where the lines were
    tracks: list[_Track]  # followed by their looks meanwhile
    waiting: list[_Track]  # lines in the frame's bands that their looks did not find: closed at ``time``, unless a reading continues one
    readings: Future


@dataclass
class TrackerStats:
    frames: int = 0
    examined: int = 0
    detections: int = 0
    recognised: int = 0

    def add(self, other: dict) -> None:
        for key, value in other.items():
            setattr(self, key, getattr(self, key) + int(value))


class TextTracker:
    """Follows the lines of text on screen through frames fed in time order (see the module's
    docstring); ``finish`` returns them as ``OcrLine``s with their spans.

    ``reader`` is an OCR backend with ``detect(image) -> quads`` and ``recognize(image, quads)
    -> [(text, score)]``; detection runs on frames scaled to at most ``detect_width`` pixels wide.
    """

    def __init__(self, reader, *, step: float, detect_width: int, min_score: float, recognise_on: Executor | None = None):
        self.reader = reader
        self.step = step
        self.detect_width = detect_width
        self.min_score = min_score
        self.recognise_on = recognise_on
        """where new lines are recognised (a one-thread pool: a second core reads while this one
        detects); None: right away, in ``feed``"""
        self._unread: deque[_Unread] = deque()
        self.open: list[_Track] = []
        self.closed: list[_Track] = []
        self.reference: np.ndarray | None = None
        self._whole_changes: list[bool] = []  # of the last examined frames, which changed as a whole
        self.sides: dict[str, Side] = {}
        self._examined: list[float] = []
        self._width = self._height = 0
        self.stats = TrackerStats()

    # ------------------------------------------------------------ where to look
    def _bands(self, small: np.ndarray, height: int) -> list[tuple[int, int]] | None:
        """Row ranges (pixels of the full frame) to examine; None when nothing changed."""
        if self.reference is None or self.reference.shape != small.shape:
            return [(0, height)]
        changed = np.abs(small.astype(np.int16) - self.reference) > PIXEL_DELTA
        if int(changed.sum()) < STILL_PIXELS:
            return None
        rows = changed.any(axis=1)
        scale = height / small.shape[0]
        margin = BAND_MARGIN * height
        bands = []
        edges = np.flatnonzero(np.diff(np.concatenate([[0], rows.astype(np.int8), [0]])))
        for a, b in zip(edges[::2], edges[1::2]):
            bands.append((max(0.0, a * scale - margin), min(float(height), b * scale + margin)))
        # a band touching a line on screen covers all of it, so the line is seen whole
        for _ in range(3):
            grown = []
            for a, b in bands:
                for track in self.open:
                    top, bottom = float(track.quad[:, 1].min()), float(track.quad[:, 1].max())
                    if top < b and bottom > a:
                        a, b = min(a, top - margin), max(b, bottom + margin)
                grown.append((max(0.0, a), min(float(height), b)))
            bands = _merge(grown)
        least = MIN_BAND_PX / self._detect_scale
        widened = []
        for a, b in bands:
            if b - a < least:
                middle = (a + b) / 2
                a, b = max(0.0, middle - least / 2), min(float(height), middle + least / 2)
            widened.append((a, b))
        bands = _merge(widened)
        if sum(b - a for a, b in bands) > WHOLE_FRAME * height:
            return [(0, height)]
        return [(int(np.floor(a)), int(np.ceil(b))) for a, b in bands]

    @property
    def _detect_scale(self) -> float:
        return min(1.0, self.detect_width / max(1, self._width))

    def _detect(self, image: np.ndarray, bands: list[tuple[int, int]]) -> list[np.ndarray]:
        whole = bands == [(0, image.shape[0])]
        moving = whole and sum(self._whole_changes) >= 2  # most of the picture changes second after second: moving pictures
        self._whole_changes = [*self._whole_changes[-2:], whole]
        # in moving pictures text is rare: a glance at a half-size frame first, a closer look only when it finds some
        if moving and not self._detect_in(image, 0, image.shape[0], self._detect_scale / 2):
            return []
        return [quad for top, bottom in bands for quad in self._detect_in(image, top, bottom, self._detect_scale)]

    def _detect_in(self, image: np.ndarray, top: int, bottom: int, scale: float) -> list[np.ndarray]:
        """Text lines in rows ``top:bottom`` of ``image``, detected at ``scale``, in pixels of the frame."""
        import cv2

        region = image[top:bottom]
        if scale < 1.0:
            size = (max(1, round(region.shape[1] * scale)), max(1, round(region.shape[0] * scale)))
            region = cv2.resize(region, size, interpolation=cv2.INTER_AREA)
        self.stats.detections += 1
        quads = []
        for quad in self.reader.detect(region):
            quad = np.asarray(quad, np.float32) / scale
            quad[:, 1] += top
            quads.append(quad)
        return quads

    # ------------------------------------------------------------ one frame
    def feed(self, time: float, small: np.ndarray, image: Callable[[], np.ndarray]) -> None:
        """One sampled frame: its time, a small grey copy (``CHANGE_WIDTH`` wide) and a way to get
        the full RGB picture (called only when something changed)."""
        import cv2

        self.stats.frames += 1
        full = None
        if self.reference is None:
            full = image()
            self._width = full.shape[1]
            self._height = full.shape[0]
        bands = self._bands(small, self._height)
        if bands is None:  # nothing changed: every line stays
            return
        self.stats.examined += 1
        self.reference = small.astype(np.int16)
        full = image() if full is None else full
        grey = cv2.cvtColor(full, cv2.COLOR_RGB2GRAY)
        quads = self._detect(full, bands)

        # the others stay; taken in reading order, so that which line a look goes to never depends on
        # when a reading came back (the order of ``open`` does)
        inside = sorted((t for t in self.open if any(_overlaps(t.quad, a, b) for a, b in bands)), key=_where)
        # same look, wherever it moved: the same line, no need to read it again
        pairs = []
        for ti, track in enumerate(inside):
            for qi, quad in enumerate(quads):
                if not self._related(track.quad, quad):
                    continue
                distance, there = track.look.find(grey, quad)
                if distance <= SAME_LOOK:
                    pairs.append((distance, ti, qi, there))
        matched_tracks, matched_quads = set(), set()
        for _, _, ti, qi, there in sorted(_with_motion(pairs, inside, quads)):
            if ti in matched_tracks or qi in matched_quads:
                continue
            matched_tracks.add(ti)
            matched_quads.add(qi)
            inside[ti].quad, inside[ti].look = quads[qi], there
        new = [q for i, q in enumerate(quads) if i not in matched_quads]
        waiting = [t for i, t in enumerate(inside) if i not in matched_tracks]
        for track in waiting:  # in the band and not seen again: gone, unless a reading continues it
            self._close(track, time)
        self._examined.append(time)
        if sum(self._whole_changes) < 2:  # in moving pictures everything beside a line changes all the time
            for track in self.open:
                if track.text is None:
                    track.beside.append((time, _beside(grey, track.box)))
                else:
                    self._watch_beside(track.text, track.box, time, _beside(grey, track.box))
        if new:
            self.stats.recognised += len(new)
            tracks = [self._follow(time, quad, grey) for quad in new]
            self._unread.append(_Unread(time, new, tracks, waiting, self._recognise(full, new)))
        self._settle(wait=len(self._unread) > PENDING_FRAMES)

    def _recognise(self, image: np.ndarray, quads: list[np.ndarray]) -> Future:
        if self.recognise_on is not None:
            return self.recognise_on.submit(self.reader.recognize, image, quads)
        done: Future = Future()
        done.set_result(self.reader.recognize(image, quads))
        return done

    def _settle(self, wait: bool = False) -> None:
        """Take in the readings that are back, oldest frame first (a reading may continue a line
        only once the frames before it are settled); with ``wait``, wait for the oldest."""
        while self._unread and (wait or self._unread[0].readings.done()):
            unread = self._unread.popleft()
            for quad, track, (text, score) in zip(unread.quads, unread.tracks, unread.readings.result()):
                self._read(unread.time, quad, track, text, score, [t.now() for t in unread.waiting])
            wait = False

    def _follow(self, time: float, quad: np.ndarray, grey: np.ndarray) -> _Track:
        """A new line, followed by its look from now on; its text comes with its reading."""
        box = [
            round(float(quad[:, 0].min()) / self._width, 4), round(float(quad[:, 1].min()) / self._height, 4),
            round(float(quad[:, 0].max()) / self._width, 4), round(float(quad[:, 1].max()) / self._height, 4),
        ]
        track = _Track(None, 0.0, [min(1.0, max(0.0, v)) for v in box], quad, _Look.of_quad(grey, quad), start=time)
        self.open.append(track)
        return track

    def _read(self, time: float, quad: np.ndarray, track: _Track, text: str, score: float, waiting: list[_Track]) -> None:
        """The reading of a line that was new at ``time`` in ``quad``: it continues a line that was there a
        moment before (one ``waiting`` in its band, or one closed recently) and has the same or part
        of its text, or else it is a line of its own."""
        track.score = score
        # a lone sign is most often an icon taken for a letter: it has to be read with confidence
        if not text.strip() or score < (self.min_score if len(text_key(text)) > 1 else max(self.min_score, LONE_SIGN_SCORE)):
            return
        # lines gone by ``time`` (one that a reading of this frame continued already is not)
        recent = [t for t in self.closed if t.text is not None and t.end <= time and time - t.end < REOPEN_STEPS * self.step]
        recent.sort(key=lambda t: (-t.end, _where(t)))  # the latest gone first
        for earlier in [t for t in waiting if t.text is not None and t.end is not None and t.end <= time] + recent:
            if earlier is not track and (same_text(earlier.text, text) or part_of(earlier.text, text)) and self._related(earlier.quad, quad):
                earlier.text, earlier.score = better_reading((earlier.text, earlier.score), (text, score))
                # the earlier line lives on where the new one has been followed to since
                earlier.quad, earlier.look, earlier.end = track.quad, track.look, track.end
                (self.open if track.end is None else self.closed).remove(track)
                if track.end is None:
                    self.closed.remove(earlier)
                    self.open.append(earlier)
                track.became = earlier
                self._replay(track, earlier.text, earlier.box)
                return
        track.text = text
        self._replay(track, text, track.box)

    def _replay(self, track: _Track, text: str, box: list[float]) -> None:
        """What was beside a line before it was read, watched now that its text is known."""
        for time, look in track.beside:
            self._watch_beside(text, box, time, look)
        track.beside = []

    def _related(self, before: np.ndarray, now: np.ndarray) -> bool:
        """Two boxes that can hold one line a moment apart: on the same row (a flicker, a line
        revealed letter by letter, a crawl), in the same column a few lines up or down (scrolling),
        or either at the frame's top or bottom edge (coming into view)."""
        (left0, top0), (right0, bottom0) = before.min(axis=0), before.max(axis=0)
        (left1, top1), (right1, bottom1) = now.min(axis=0), now.max(axis=0)
        height = min(bottom0 - top0, bottom1 - top1)
        across = min(right0, right1) - max(left0, left1)
        same_row = min(bottom0, bottom1) - max(top0, top1) > 0.5 * height and across > 0
        same_column = across > 0.5 * min(right0 - left0, right1 - left1) and abs((top0 + bottom0) - (top1 + bottom1)) / 2 <= SCROLL_LINES * height
        # a line cut by the frame's edge is lower than itself: the distance is counted in the taller
        # box's heights (a line leaving at the top is not the one coming in at the bottom)
        at_edge = (min(top0, top1) <= 2 or max(bottom0, bottom1) >= self._height - 2) and across > 0 and \
            abs((top0 + bottom0) - (top1 + bottom1)) / 2 <= SCROLL_LINES * max(bottom0 - top0, bottom1 - top1)
        return bool(same_row or same_column or at_edge)

    def _watch_beside(self, text: str, box: list[float], time: float, now: np.ndarray) -> None:
        key = side_key(text, box)
        side = self.sides.get(key)
        if side is None:
            self.sides[key] = Side(now, time, (time, now))
            return
        if not side_differs(now, side.settled):
            side.seen, side.unsettled = time, None
        elif side.unsettled is None or side_differs(now, side.unsettled[1]):
            # it counts from the first frame examined after it last looked settled (the line may have
            # been covered by the pointer meanwhile)
            since = side.unsettled[0] if side.unsettled else next((t for t in self._examined if t > side.seen), time)
            side.unsettled = (since, now)
        else:
            side.changes.append((side.unsettled[0], time))
            side.settled, side.seen, side.unsettled = now, time, None

    def _close(self, track: _Track, time: float) -> None:
        self.open.remove(track)
        track.end = time
        self.closed.append(track)

    def finish(self, time: float) -> tuple[list[OcrLine], dict]:
        """Every line read, the ones still on screen ending at ``time``, ordered by when they
        appeared and then top to bottom; and the work it took."""
        while self._unread:
            self._settle(wait=True)
        for track in list(self.open):
            self._close(track, time)

        def changes(t: _Track) -> list[list[float]]:
            side = self.sides.get(side_key(t.text, t.box))
            return [[round(a, 3), round(b, 3)] for a, b in side.changes if t.start - self.step <= a <= t.end + self.step] if side else []

        lines = [
            OcrLine(text=t.text, box=t.box, score=round(t.score, 4), start=round(t.start, 3), end=round(t.end if t.end > t.start else t.start + self.step, 3),
                    changes=changes(t))
            for t in self.closed
            if t.text is not None
        ]
        return sorted(lines, key=lambda line: (line.start, round(line.box[1] * 40), line.box[0], line.box[1], line.text)), vars(self.stats)


def _with_motion(pairs: list[tuple], tracks: list[_Track], quads: list[np.ndarray]) -> list[tuple]:
    """The look matches ``(distance, track, quad, look)`` keyed to be taken in order: those that move
    as most lines on screen moved come first, then the closest looks. While the text scrolls, a
    match that neither moves with it nor stays put (a title over the roll) is dropped: in rolling
    credits a name listed under several headings looks the same each time, and the instance a line
    moved to is the one the roll took it to, not the nearest look."""
    best: dict[int, tuple[float, float]] = {}
    for distance, ti, qi, _ in pairs:
        if ti not in best or distance < best[ti][0]:
            best[ti] = (distance, _centre(quads[qi]) - _centre(tracks[ti].quad))
    if not best:
        return []
    moved = float(np.median([shift for _, shift in best.values()]))
    scrolling = abs(moved) > 0.5 * float(np.median([np.ptp(tracks[ti].quad[:, 1]) for ti in best]))
    keyed = []
    for distance, ti, qi, there in pairs:
        shift, height = _centre(quads[qi]) - _centre(tracks[ti].quad), float(np.ptp(tracks[ti].quad[:, 1]))
        off = abs(shift - moved) > max(2.0, 0.75 * height)
        if not (off and scrolling and abs(shift) > max(2.0, 0.5 * height)):
            keyed.append((off, distance, ti, qi, there))
    return keyed


def _centre(quad: np.ndarray) -> float:
    return float(quad[:, 1].min() + quad[:, 1].max()) / 2


def _where(track: _Track) -> tuple[float, float]:
    """Where a line is now, top to bottom and then left to right."""
    return float(track.quad[:, 1].min()), float(track.quad[:, 0].min())


def _overlaps(quad: np.ndarray, top: float, bottom: float) -> bool:
    return float(quad[:, 1].min()) < bottom and float(quad[:, 1].max()) > top


def _merge(bands: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for a, b in sorted(bands):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def edge_sides(tracker: TextTracker) -> dict[str, dict]:
    """What was beside each line at the edges of a piece, for ``join_pieces``: as first seen and as it
    last looked settled (a change still under way at the end is settled across the boundary), as
    small pictures."""
    edges: dict[str, dict] = {}
    for key, side in tracker.sides.items():
        edges[key] = {"last": [side.seen, side.settled.astype(int).ravel().tolist()],
                      "first": [side.first[0], side.first[1].astype(int).ravel().tolist()]}
    return edges


def join_pieces(lines: list[OcrLine], boundaries: Iterable[float], within: float, sides: list[dict[str, dict]] | None = None) -> list[OcrLine]:
    """Lines cut at a boundary between separately read pieces of the video, put back together:
    one ending at a boundary and one of the same text starting there (at the next piece's first
    sampled frame, less than ``within`` seconds later) are one line. ``sides``: each piece's
    ``edge_sides``, in order; where what is beside a line that goes on across a boundary differs on
    either side of it, it changed there."""
    cuts = sorted(round(b, 3) for b in boundaries)
    out: list[OcrLine] = []
    ending: dict[float, list[OcrLine]] = {}
    for line in sorted(lines, key=lambda x: x.start):
        cut = next((c for c in cuts if c <= line.start < c + within), None)
        earlier = next((x for x in ending.get(cut, []) if same_text(x.text, line.text)), None)
        if earlier is not None:
            ending[cut].remove(earlier)
            crossed = _changed_across(earlier, line, cut, cuts, sides, within)
            earlier.changes = [*earlier.changes, *crossed, *line.changes]
            earlier.text, earlier.score = better_reading((earlier.text, earlier.score), (line.text, line.score))
            earlier.end = line.end
            line = earlier
        else:
            out.append(line)
        if line.end in cuts:
            ending.setdefault(line.end, []).append(line)
    return sorted(out, key=lambda x: (x.start, round(x.box[1] * 40), x.box[0]))


def _changed_across(before: OcrLine, after: OcrLine, cut: float, cuts: list[float], sides: list[dict[str, dict]] | None,
                    within: float) -> list[list[float]]:
    """``[[start, end]]`` when what is beside a line differs at the two sides of a boundary it crosses."""
    if not sides:
        return []
    piece = cuts.index(cut)  # the piece before the boundary is ``piece``, the one after it ``piece + 1``
    last = sides[piece].get(side_key(before.text, before.box), {}).get("last")
    first = sides[piece + 1].get(side_key(after.text, after.box), {}).get("first") if piece + 1 < len(sides) else None
    if not last or not first or len(last[1]) != len(first[1]) or len(first[1]) != BESIDE_SIZE[0] * BESIDE_SIZE[1]:
        return []
    shape = (BESIDE_SIZE[1], BESIDE_SIZE[0])
    if not side_differs(np.asarray(last[1]).reshape(shape), np.asarray(first[1]).reshape(shape)):
        return []
    return [[round(last[0] + within, 3), round(first[0], 3)]]


# ---------------------------------------------------------------- frames for it


@dataclass
class FrameFeed:
    """The sampled frames of one decoding pass, handed out piece by piece: the pass starts at the
    first piece asked for (a resumed build skips the pieces already read) and runs on from there."""

    video: Path
    fps: float
    skip_nonref: bool = True
    threads: int = 0
    """decoding threads (0: FFmpeg's choice)"""
    shared: FramePass | None = None
    """a pass shared with the video lane, with an ``ocr`` lane sampled at ``fps`` and ``CHANGE_WIDTH``"""
    _pass: FramePass | None = field(default=None, repr=False)
    _frames: Iterator | None = field(default=None, repr=False)
    _next: media.SampledFrame | None = field(default=None, repr=False)

    def between(self, start: float, end: float) -> Iterator[media.SampledFrame]:
        if self._frames is None:
            # a pass of its own decodes on a thread ahead of the reader (decoding and the OCR models
            # both release the GIL, so they overlap); a shared pass may start before ``start``
            self._pass = self.shared or FramePass(self.video, {"ocr": (self.fps, CHANGE_WIDTH)}, skip_nonref=self.skip_nonref, threads=self.threads, start=start)
            self._frames = self._pass.frames("ocr")
        while True:
            if self._next is None:
                self._next = next(self._frames, None)
                if self._next is None:
                    return
            if self._next.time >= end:
                return
            frame, self._next = self._next, None
            if frame.time >= start:
                yield frame

    def close(self) -> None:
        if self._frames is not None:
            self._frames.close()  # stops reading: a shared pass goes on for the other lane
        if self._pass is not None and self._pass is not self.shared:
            self._pass.close()
