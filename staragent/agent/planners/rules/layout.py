"""Where on the frame on-screen lines are, and what that tells: the line beside another on the same
row (a value and its label, "Orientation:" | "Landscape"; a name and its role in credits), the text
that was at the same place just before (the placeholder that typed text replaced), and how big the
letters are (a title is the biggest text around)."""

from __future__ import annotations

import functools
import re

from ....index.text import tokenize
from ....schema import Evidence

Box = tuple[float, float, float, float]
ROW_GAP = 0.15  # the widest gap, as a share of the frame's width, between two parts of one row
SAME_PLACE = 0.012  # how far (share of the frame) a line may sit from the one it replaced
REPLACED_WITHIN = 1.5  # seconds between the old text leaving and the new one appearing
_STATES_ITS_LABEL = re.compile(r"^[^:]{2,30}:\s*\S")  # "Pallets in stock: 6152" labels only itself


def key_of(line: dict) -> tuple:
    """The ``Evidence.key()`` of an on-screen line as the scene-text tool returns it."""
    return Evidence(start=float(line["start"]), end=float(line["end"]), modality="ocr", text=str(line["text"])).key()


def boxes_of(lines: list[dict]) -> dict[tuple, Box]:
    """Where each on-screen line was read, by its evidence key (lines without a box are left out)."""
    return {key_of(line): tuple(line["box"]) for line in lines if isinstance(line.get("box"), list | tuple) and len(line["box"]) == 4}


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


def row_mates(e: Evidence, shown: list[Evidence], boxes: dict[tuple, Box]) -> tuple[Evidence | None, Evidence | None]:
    """The nearest lines left and right of ``e`` on its row, on screen with it."""
    box = boxes.get(e.key())
    left = right = None
    if box is None:
        return None, None
    for o in shown:
        other = boxes.get(o.key())
        if other is None or o.key() == e.key() or not _together(e, o) or not _same_row(box, other):
            continue
        if 0 <= box[0] - other[2] <= ROW_GAP and (left is None or other[2] > boxes[left.key()][2]):
            left = o
        elif 0 <= other[0] - box[2] <= ROW_GAP and (right is None or other[0] < boxes[right.key()][0]):
            right = o
    return left, right


def replaced(e: Evidence, shown: list[Evidence], boxes: dict[tuple, Box]) -> Evidence | None:
    """The first of the texts that stood where ``e`` stands, each replaced by the next just before
    ``e`` appeared: the placeholder of a field the user typed into, a value before it changed."""
    current, found = e, None
    for _ in range(len(shown)):
        box = boxes.get(current.key())
        if box is None:
            break
        before = [o for o in shown if o.key() in boxes and o.text != current.text and o.start < current.start
                  and current.start - REPLACED_WITHIN <= o.end <= current.start + 0.5 and not _STATES_ITS_LABEL.match(o.text)
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
    return any(o.key() in boxes and e.end - 0.5 <= o.start <= e.end + REPLACED_WITHIN and len(o.text.strip()) > len(start)
               and o.text.strip().lower().startswith(start)
               and abs(boxes[o.key()][0] - box[0]) <= SAME_PLACE and abs(boxes[o.key()][1] - box[1]) <= SAME_PLACE for o in shown)
