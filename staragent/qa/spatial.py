"""Where one thing on screen stands against another: read from the boxes of the lines that name them.

A screencast often answers "is the Acer one left or right of the laptop?" only in its layout: each
monitor is a box with its name in it, dragged about. The relation is taken from where the two labels
were read, moment by moment, so that a label that moves is followed: the answer is the relation over
the stretch the question is about, and when it changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..index.text import tokenize
from ..schema import Evidence

LABEL_TOKENS = 4
"""the most words a line may have and still be read as the label of one thing (a name, not a sentence)"""
MIN_PREFIX = 3
"""a glued OCR token ("AcerTechrgies17") names a thing when it begins with a word at least this long"""


@dataclass(frozen=True)
class Placement:
    """How ``figure`` stood against ``ground`` from ``start`` to ``end``."""

    start: float
    end: float
    figure: Evidence
    ground: Evidence
    relation: str
    """"to the left of", "below", "above and to the right of" ..."""


def names(line: Evidence, terms: Iterable[str]) -> bool:
    """Whether ``line`` is a short label that holds one of ``terms`` (whole, or as the start of a
    glued token)."""
    tokens = tokenize(line.text)
    if not tokens or len(tokens) > LABEL_TOKENS:
        return False
    return any(t == term or (len(term) >= MIN_PREFIX and t.startswith(term)) for t in tokens for term in terms)


def relation(figure: list[float], ground: list[float]) -> str | None:
    """Where box ``figure`` is against box ``ground`` ([x0, y0, x1, y1], y down); None when they overlap."""
    across = "to the left of" if figure[2] <= ground[0] else "to the right of" if figure[0] >= ground[2] else None
    up_down = "above" if figure[3] <= ground[1] else "below" if figure[1] >= ground[3] else None
    if across and up_down:
        return f"{up_down} and {across}"
    return across or up_down


def _distance(a: list[float], b: list[float]) -> float:
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return (dx * dx + dy * dy) ** 0.5


def placements(lines: list[Evidence], figure_terms: list[str], ground_terms: list[str]) -> list[Placement]:
    """The relation of the thing ``figure_terms`` name to the one ``ground_terms`` name, over time:
    at each moment both are on screen, the two labels read nearest each other (one widget, not a
    heading elsewhere that repeats a name); consecutive moments with one relation are merged. When no
    label of the figure's words pairs with the ground, a label that was dragged about beside it stands
    for the figure."""
    boxed = [e for e in lines if e.modality == "ocr" and e.box and len(e.box) == 4]
    figures = [e for e in boxed if names(e, figure_terms)]
    grounds = [e for e in boxed if names(e, ground_terms) and e not in figures]
    # "where does the external screen end up against the laptop?": where no label of the figure's words
    # stands beside the ground, the figure is named in other words than its label: it is the label
    # nearest the ground's among those that were moved about (read in more than one place), and beside
    # it (no further off than one of the two is wide)
    return _over_time(figures, grounds) or _over_time(
        _moved([e for e in boxed if e not in grounds and 0 < len(tokenize(e.text)) <= LABEL_TOKENS]), grounds, beside=True)


def _width(box: list[float]) -> float:
    return box[2] - box[0]


def _moved(labels: list[Evidence]) -> list[Evidence]:
    """The labels whose first word is also read in another place, at least a label's width (or
    height) away: a box dragged about, read where it stood at each moment."""
    def centre(e: Evidence) -> tuple[float, float]:
        return (e.box[0] + e.box[2]) / 2, (e.box[1] + e.box[3]) / 2

    def places(a: Evidence, b: Evidence) -> bool:
        (ax, ay), (bx, by) = centre(a), centre(b)
        return abs(ax - bx) >= _width(a.box) or abs(ay - by) >= a.box[3] - a.box[1]

    first = {id(e): tokenize(e.text)[0] for e in labels}
    return [e for e in labels if any(first[id(o)] == first[id(e)] and places(e, o) for o in labels if o is not e)]


def _over_time(figures: list[Evidence], grounds: list[Evidence], beside: bool = False) -> list[Placement]:
    cuts = sorted({t for e in figures + grounds for t in (e.start, e.end)})
    found: list[Placement] = []
    for start, end in zip(cuts, cuts[1:]):
        middle = (start + end) / 2
        pairs = [(f, g) for f in figures if f.start <= middle < f.end for g in grounds if g.start <= middle < g.end
                 and (not beside or _distance(f.box, g.box) <= max(_width(f.box), _width(g.box)))]
        if not pairs:
            continue
        f, g = min(pairs, key=lambda p: _distance(p[0].box, p[1].box))
        placed = relation(f.box, g.box)
        if placed is None:
            continue
        if found and found[-1].relation == placed and found[-1].end >= start - 1e-6:
            found[-1] = Placement(found[-1].start, end, found[-1].figure, found[-1].ground, placed)
        else:
            found.append(Placement(start, end, f, g, placed))
    return found
