"""Where on the frame on-screen lines are, and what that tells: the line beside another on the same
row (a value and its label, "Orientation:" | "Landscape"; a name and its role in credits), the text
that was at the same place just before (the placeholder that typed text replaced), and how big the
letters are (a title is the biggest text around).

A box is where a line was first read. Where text rolls up the frame (end credits), lines first read
a second apart were never at those places together: ``Motion`` measures the roll's speed and moves
each box to the moment it is compared at, so a name is matched to the role above it in the roll."""

from __future__ import annotations

import bisect
import functools
import re

from ..index.text import tokenize
from ..schema import Evidence
from .names import URL, person_names

Box = tuple[float, float, float, float]
ROW_GAP = 0.15  # the widest gap, as a share of the frame's width, between two parts of one row
SAME_PLACE = 0.012  # how far (share of the frame) a line may sit from the one it replaced
REPLACED_WITHIN = 1.5  # seconds between the old text leaving and the new one appearing
_STATES_ITS_LABEL = re.compile(r"^[^:]{2,30}:\s*\S")  # "Pallets in stock: 6152" labels only itself


def height(box: Box) -> float:
    return max(0.0, box[3] - box[1])


EDGE = 0.12  # share of the frame from an edge that is "at the top", "at the bottom", "on the left" ...


def place_words(box: Box | None) -> set[str]:
    """The words a person uses for where ``box`` sits on the frame: "the top bar", "bottom right
    corner", "the header". Empty for a box in the middle or no box."""
    if box is None:
        return set()
    left, top, right, bottom = box
    words = set()
    if top < EDGE:
        words |= {"top", "upper", "header", "bar"}
    if bottom > 1 - EDGE:
        words |= {"bottom", "lower", "footer", "bar"}
    if right < 3 * EDGE:
        words |= {"left"}
    if left > 1 - 3 * EDGE:
        words |= {"right"}
    if words & {"top", "bottom"} and words & {"left", "right"}:
        words.add("corner")
    return words


CHROME = 0.9
"""share of the video a line stays on screen for to count as part of the frame (a clock, a watermark)"""
TOGETHER_S = 1.0  # seconds apart that lines of one pop-up may be first read...
GONE_TOGETHER_S = 1.5  # ...and last read
POPUP_SHARE = 0.25  # the longest a pop-up stays, as a share of how long the text under it stays
HINT_WORDS = 3  # the fewest words of a line that pops up alone (a tooltip, a hint: a sentence, see ``_is_sentence``)


def popped_up(lines: list[Evidence], duration: float | None = None) -> set[tuple]:
    """The keys of on-screen lines that came up together over text that stayed and went again soon
    (a dialog over a settings window): three lines or more, two with a question, or a sentence alone
    (a tooltip: ``HINT_WORDS`` words or more), first read
    within ``TOGETHER_S`` of each other and last read within ``GONE_TOGETHER_S``, while a line read
    before them stays after them, for far longer (``POPUP_SHARE``). What stays throughout (a clock)
    is the frame, not a window under them; a window's panel changing is no pop-up either, since the
    window goes with it."""
    shown = sorted((e for e in lines if e.modality == "ocr"), key=lambda e: e.start)
    beneath = [o for o in shown if not (duration and o.end - o.start >= CHROME * duration)]
    out: set[tuple] = set()
    for i, first in enumerate(shown):
        if first.key() in out:
            continue
        group = []
        for e in shown[i:]:
            if e.start - first.start > TOGETHER_S:
                break
            if abs(e.end - first.end) <= GONE_TOGETHER_S:
                group.append(e)
        if len(group) < 3 and not (len(group) == 2 and any(e.text.rstrip().endswith("?") for e in group)):
            # a hint (a tooltip) is a sentence that comes up alone; a label re-read as it comes
            # (a box being dragged) may come with it, and is no part of it
            group = [e for e in group if _is_sentence(e.text)][:1]
            if not group:
                continue
        start, end = group[0].start, max(e.end for e in group)
        if any(o.start < start - TOGETHER_S and o.end > end + TOGETHER_S and end - start <= POPUP_SHARE * (o.end - o.start) for o in beneath):
            out.update(e.key() for e in group)
    return out


def _is_sentence(text: str) -> bool:
    """Whether a line is a sentence, as a hint is ("Drag to change primary display."): ``HINT_WORDS``
    words or more, with a verb as the parser reads it; a label is not ("Acer Technologies 17")."""
    from .language import parse

    return len(text.split()) >= HINT_WORDS and any(t.pos_ == "VERB" for t in parse(text))


def place_tokens(box: Box | None) -> frozenset[str]:
    """``place_words`` as search tokens, to match against a question's."""
    return _tokens(frozenset(place_words(box)))


@functools.lru_cache(maxsize=64)
def _tokens(words: frozenset[str]) -> frozenset[str]:  # a handful of word sets, asked for on every line ranked
    return frozenset(tokenize(" ".join(sorted(words))))


def _together(a: Evidence, b: Evidence) -> bool:
    return a.start < b.end and b.start < a.end


def _same_row(a: Box, b: Box) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0 and overlap >= 0.5 * min(height(a), height(b))


def under(heading: Box, line: Box) -> bool:
    """Whether ``line`` sits below ``heading`` and in its column (a credit's names under "MUSIC BY";
    not the window's title above a field's "Paper size:")."""
    below = line[1] >= heading[1] + 0.5 * height(heading)
    return below and min(line[2], heading[2]) > max(line[0], heading[0])


ABOVE_GAP = 2.5
"""how far above a line, in its own heights, the line over it may stand"""


def line_above(e: Evidence, shown: list[Evidence], boxes: dict[tuple, Box]) -> Evidence | None:
    """The line just above ``e``, over the same columns, on screen for most of the time either is (a
    slide's title over the line under it, where no heading by its look labels it)."""
    box = boxes.get(e.key())
    if box is None:
        return None
    best, gap = None, ABOVE_GAP * max(height(box), 1e-3)
    for o in shown:
        other = boxes.get(o.key())
        overlap = min(e.end, o.end) - max(e.start, o.start)
        if other is None or o.key() == e.key() or overlap < 0.5 * min(e.end - e.start, o.end - o.start):
            continue
        above = box[1] - other[3]
        if -0.3 * max(height(box), 1e-3) <= above < gap and min(box[2], other[2]) > max(box[0], other[0]):
            best, gap = o, above
    return best


def card_of(e: Evidence, shown: list[Evidence], boxes: dict[tuple, Box]) -> list[Evidence]:
    """The card ``e`` is on: the lines that came up and went with it, in reading order (top to
    bottom, then left to right), when they are all the screen showed meanwhile (a title card, not a
    window whose lines came and went at other times); ``[e]`` otherwise."""
    if e.key() not in boxes:
        return [e]
    mates = {o.key(): o for o in shown if o.key() in boxes and abs(o.start - e.start) <= TOGETHER_S and abs(o.end - e.end) <= GONE_TOGETHER_S}
    mates[e.key()] = e
    if any(o.key() not in mates and _together(o, e) for o in shown):
        return [e]
    return sorted(mates.values(), key=lambda o: (boxes[o.key()][1], boxes[o.key()][0]))


ROLL_WINDOW = 6.0  # seconds either side of a line: the lines read then tell whether the text there rolls
ENTERS_LOW = 0.7  # a rolling line is first read low on the frame, where it came in
MIN_ROLL_LINES = 6


def roll_speed(lines: list[tuple[Evidence, Box]]) -> float:
    """How fast text rolls up the frame (frame heights per second) among ``lines`` read around one
    moment, or 0 where it stands still. In a roll most lines are first read low on the frame, where
    they came in, and each stays as long as it takes to cross the frame, so the top of its first box
    over the time it stayed is about the same for all of them; on a slide or a card it is not."""
    if len(lines) < MIN_ROLL_LINES:
        return 0.0
    low = [(e, box) for e, box in lines if box[1] >= ENTERS_LOW]
    if len(low) < 0.6 * len(lines):
        return 0.0
    # a roll brings new lines at every frame sampled: the gap between first reads is the sampling
    # step, and a line's end is the frame after the last that read it, half a step late on average
    moments = sorted({round(e.start, 1) for e, _ in lines})
    gaps = sorted(b - a for a, b in zip(moments, moments[1:]))
    late = gaps[len(gaps) // 2] / 2 if gaps else 0.0
    speeds = sorted(box[1] / (e.end - e.start - late) for e, box in low if e.end - e.start - late >= 2.0)
    if len(speeds) < MIN_ROLL_LINES // 2:
        return 0.0
    middle = speeds[len(speeds) // 2]
    spread = speeds[(3 * len(speeds)) // 4] - speeds[len(speeds) // 4]
    return middle if spread <= 0.5 * middle else 0.0


class Motion:
    """Where each on-screen line stood at a given moment: text that rolls moves up the frame at the
    speed measured around it (``roll_speed``); any other text stays where it was first read."""

    def __init__(self, shown: list[Evidence], boxes: dict[tuple, Box]):
        # each line once (the same line may come from several reads), and only lines with a place
        placed = sorted({key: (e, boxes[key]) for e in shown if (key := e.key()) in boxes}.values(), key=lambda p: p[0].start)
        starts = [e.start for e, _ in placed]
        by_window: dict[tuple[int, int], float] = {}
        self._speed: dict[tuple, float] = {}
        for e, _ in placed:
            window = (bisect.bisect_left(starts, e.start - ROLL_WINDOW), bisect.bisect_right(starts, e.start + ROLL_WINDOW))
            if window not in by_window:
                by_window[window] = roll_speed(placed[window[0] : window[1]])
            self._speed[e.key()] = by_window[window]
        self._boxes = boxes

    def rolls(self, e: Evidence) -> bool:
        return self._speed.get(e.key(), 0.0) > 0.0

    def box_at(self, e: Evidence, moment: float) -> Box | None:
        box = self._boxes.get(e.key())
        if box is None:
            return None
        shift = self._speed.get(e.key(), 0.0) * (moment - e.start)
        return (box[0], box[1] - shift, box[2], box[3] - shift)


def row_mates(e: Evidence, shown: list[Evidence], boxes: dict[tuple, Box], motion: Motion | None = None) -> tuple[Evidence | None, Evidence | None]:
    """The nearest lines left and right of ``e`` on its row, on screen with it (``motion``: where
    rolling lines stood when ``e`` was read)."""
    key = e.key()
    box = boxes.get(key)
    left = right = None
    if box is None:
        return None, None
    for o in shown:
        if not _together(e, o) or o.key() == key:  # the cheap test first: labelled asks this of every pair of lines
            continue
        other = motion.box_at(o, e.start) if motion is not None else boxes.get(o.key())
        if other is None or not _same_row(box, other):
            continue
        if 0 <= box[0] - other[2] <= ROW_GAP and (left is None or other[2] > left[1][2]):
            left = (o, other)
        elif 0 <= other[0] - box[2] <= ROW_GAP and (right is None or other[0] < right[1][0]):
            right = (o, other)
    return (left[0] if left else None), (right[0] if right else None)


COLUMN = 0.02
"""how far apart (share of the frame's width) the left edges of lines in one column may be"""
PANEL_REACH = 4.0
"""how many of a label's heights above it the heading of its panel may stand"""


def panel_heading(value: Evidence, label: Evidence, shown: list[Evidence], boxes: dict[tuple, Box]) -> Evidence | None:
    """The line that heads the panel a labelled value sits in: in the label's column, above it within
    ``PANEL_REACH`` of its height, no label itself (rows above it are skipped), on screen for the
    longest part of the time the value is. A settings window names what its rows describe this way:
    "Acer Technologies 17" over "Resolution:" "1280 × 1024", and the heading changes when another
    item is picked while the rows stay. None when no such line stands there."""
    box, own = boxes.get(label.key()), boxes.get(value.key())
    if box is None or own is None or not _same_row(box, own) or not 0 <= own[0] - box[2] <= ROW_GAP:
        return None  # a field's label stands left of its value on its row; a heading over a list heads no panel
    best, longest = None, 0.0
    for o in shown:
        other = boxes.get(o.key())
        if other is None or o.key() in (label.key(), value.key()) or o.text.rstrip().endswith(":") or abs(other[0] - box[0]) > COLUMN:
            continue
        if not 0 <= box[1] - other[3] <= PANEL_REACH * height(box):
            continue
        overlap = min(o.end, value.end) - max(o.start, value.start)
        if overlap > longest:
            best, longest = o, overlap
    return best


VALUE_WORDS = 3
"""a value beside a label on its row is short: a switch's OFF, a setting's 1280 × 1024 (5:4)"""
SETTLED = 0.5
"""seconds after a label came up within which what came with it is its first state, not a change"""


def panel_items(shown: list[Evidence], boxes: dict[tuple, Box]) -> list[Evidence]:
    """The things a settings panel describes, in the order they first headed it: a window that sets
    up several of one kind shows the one picked over the same rows ("Laptop", then "Acer Technologies
    17" over "Resolution:"). Each once, however OCR spaced its words; the first reading of each."""
    shown = [e for e in shown if e.modality == "ocr"]
    labels = labelled(shown, boxes)
    headings = {h.key(): h for e in shown for label in labels.get(e.key(), ()) if (h := panel_heading(e, label, shown, boxes)) is not None}
    items: dict[str, Evidence] = {}
    for h in sorted(headings.values(), key=lambda h: h.start):
        items.setdefault("".join(tokenize(h.text)), h)
    return list(items.values())


def row_change(label: Evidence, shown: list[Evidence], boxes: dict[tuple, Box]) -> tuple[float, Evidence, bool] | None:
    """The first time what stands right of ``label`` on its row changed while the label stayed: a
    value there went away (``False``) or a new one came (``True``), as a switch's "OFF" does when it is
    turned on; ``(moment, value, came)``, or None."""
    box = boxes.get(label.key())
    if box is None:
        return None
    found = []
    for o in shown:
        if not _together(label, o) or o.text == label.text or len(o.text.split()) > VALUE_WORDS:
            continue
        other = boxes.get(o.key())
        if other is None or not _same_row(box, other) or not 0 <= other[0] - box[2] <= ROW_GAP:
            continue
        if label.start + SETTLED <= o.start < label.end:
            found.append((o.start, o, True))
        if label.start + SETTLED <= o.end < label.end - SETTLED:
            found.append((o.end, o, False))
    return min(found, key=lambda f: f[0]) if found else None


def replaced(e: Evidence, shown: list[Evidence], boxes: dict[tuple, Box]) -> Evidence | None:
    """The first of the texts that stood where ``e`` stands, each replaced by the next just before
    ``e`` appeared: the placeholder of a field the user typed into, a value before it changed."""
    current, found = e, None
    for _ in range(len(shown)):
        box = boxes.get(current.key())
        if box is None:
            break
        # the times first: they rule out nearly every line at no cost
        before = [o for o in shown if current.start - REPLACED_WITHIN <= o.end <= current.start + 0.5 and o.start < current.start
                  and o.text != current.text and o.key() in boxes and not _STATES_ITS_LABEL.match(o.text)
                  and abs(boxes[o.key()][0] - box[0]) <= SAME_PLACE and abs(boxes[o.key()][1] - box[1]) <= SAME_PLACE]
        moment = current.start
        if before and not any(p.start < moment - 0.25 and p.end > moment + 0.25 for p in shown):
            break  # everything on screen changed at once (the next slide): no field changed its text
        if not before:
            break
        current = found = max(before, key=lambda o: o.end)
    return found


def superseded(e: Evidence, shown: list[Evidence], boxes: dict[tuple, Box]) -> bool:
    """Whether ``e`` was text being typed: at its place, right after it, a longer text that begins
    with it took over ("dis" then "display")."""
    box = boxes.get(e.key())
    if box is None:
        return False
    start = e.text.strip().lower()
    return any(e.end - 0.5 <= o.start <= e.end + REPLACED_WITHIN and o.key() in boxes and len(o.text.strip()) > len(start)
               and o.text.strip().lower().startswith(start)
               and abs(boxes[o.key()][0] - box[0]) <= SAME_PLACE and abs(boxes[o.key()][1] - box[1]) <= SAME_PLACE for o in shown)


def is_heading(text: str) -> bool:
    """A line that labels the lines under it: "Paper size:", "DIRECTED BY", "Music by"."""
    text = text.strip()
    if URL.search(text):
        return False  # "WWW.BIGBUCKBUNNY.ORG" in capitals is an address shown, not a heading over the logos under it
    letters = [c for c in text if c.isalpha()]
    shouting = len(letters) >= 3 and all(c.isupper() for c in letters) and len(text.split()) <= 5
    return text.endswith(":") or shouting or bool(re.search(r"\b(?:by|BY)$", text))


LABEL_SECONDS = 2.5
"""a heading labels the lines that appear with it or up to this long after it (credits scroll in
line by line)"""


def labelled(evidence: list[Evidence], boxes: dict[tuple, Box] | None = None, motion: Motion | None = None) -> dict[tuple, list[Evidence]]:
    """On-screen lines and the lines that label them, by the line's ``Evidence.key()``: the heading
    shown above them (names under a credit, "PRODUCED BY" then a name, until the next heading; a line
    is under the last heading when it appeared with it or shortly after, while the heading was still on
    screen); and, where the lines' places on the frame are known (``boxes``), the label left of a value
    on its row ("Orientation:" | "Landscape"; a plain word is no label: "Laptop" | "Nova 24" are peers), the role right of a name ("ILSE VANDERMEER" |
    "Director"), and the text a line replaced at its place (the field's placeholder, "Search apps").
    ``motion``: how the lines move on the frame (measured here when not given)."""
    shown = sorted({e.key(): e for e in evidence if e.modality == "ocr"}.values(), key=lambda e: e.start)
    out: dict[tuple, list[Evidence]] = {}
    boxes = boxes or {}
    headings = [h for h in shown if is_heading(h.text)]
    motion = motion or Motion(shown, boxes)
    mates = {e.key(): row_mates(e, shown, boxes, motion) for e in shown} if boxes else {}  # the lines beside each, on its row
    last: Evidence | None = None
    for e in shown:
        if is_heading(e.text):
            last = e
            continue
        showing = [h for h in headings if h.start - 0.5 <= e.start <= min(h.end, h.start + LABEL_SECONDS)]
        # lines read off one frame, or off frames of one roll (a box is where a line was first read):
        # where each heading stood when this line was read
        placed = {h.key(): where for h in showing if (abs(h.start - e.start) <= 0.5 or motion.rolls(e)) and (where := motion.box_at(h, e.start))}
        if e.key() in boxes and placed:
            # a heading labels the lines under it in its column; one with its value beside it
            # ("Paper size:" | "A4") labels its row instead
            over = [h for h in showing if h.key() in placed and under(placed[h.key()], boxes[e.key()]) and mates[h.key()][1] is None]
            heading = max(over, key=lambda h: placed[h.key()][3], default=None)
        else:
            heading = last if last in showing else None
        if heading is not None:
            out[e.key()] = [heading]
    if boxes:
        for e in shown:
            left, right = mates[e.key()]
            if left is not None and not person_names(left.text) and is_heading(left.text):
                out.setdefault(e.key(), []).append(left)
            if right is not None and person_names(e.text) and not person_names(right.text):
                out.setdefault(e.key(), []).append(right)
            if not motion.rolls(e) and (before := replaced(e, shown, boxes)) is not None:  # a roll has no fields
                out.setdefault(e.key(), []).append(before)
    return out


def label_text(labels: dict[tuple, list[Evidence]], e: Evidence) -> str:
    """What labels ``e``, as one text ("" when nothing does)."""
    return " · ".join(label.text.rstrip(" :") for label in labels.get(e.key(), []))
