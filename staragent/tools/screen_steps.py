"""The steps of a silent screen recording, read from when its on-screen text comes and goes.

A screencast says nothing: what happens in it is what the screen shows changing. A window opens (a
group of lines appears together), a hint or a dialog comes up and goes, a switch or a check box
beside a line is turned (the screen-text stage records that as the line's ``changes``). Told in
time order, those are the steps someone watching would name; the lines that stay on screen all
along (a clock, a window's title) are the frame, not a step.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..index.text import readable, tokenize

TOGETHER_S = 0.6
"""lines that first appear within this many seconds of each other came up together (one window)"""
FRAME_SHARE = 0.9
"""a line on screen for this share of the range or more is the frame, never a step"""
SHOWN_PER_STEP = 2
"""lines quoted for a step; a dialog (a group with a question) is quoted whole, up to ``DIALOG_LINES``"""
DIALOG_LINES = 4
CROWD = 2
"""this many lines or more whose surroundings change at one moment are covered by something (a dialog
coming, the screen dimmed), not each turned"""
WINDOW_SHARE = 0.5
"""a screen recording has text that stays this share of the range (a window) while steps come and go..."""
WINDOW_S = 10.0
"""... and this many seconds at least: a credit in a roll or a card in a stretch of titles goes sooner"""
WINDOW_LINES = 2
"""lines that stay so long: a window has a title and fields, a lone caption is no window"""


@dataclass(frozen=True)
class Step:
    start: float
    end: float
    text: str
    """how the step is told"""
    lines: tuple  # the on-screen lines it rests on (``OcrLine``)
    weight: float
    """how much the step says: a dialog or a sentence of help more than a lone value"""


def _quoted(line) -> str:
    return f"“{readable(line.text.strip())}”"  # with the spaces OCR lost put back, for reading


def _telling(line) -> float:
    """How much a line tells as a step: a question asked (a dialog) most, then a sentence, then a name or a value."""
    words = len(line.text.split())
    return 3.0 if line.text.rstrip().endswith("?") else 2.0 if words >= 4 else 1.0 if words >= 2 else 0.6


def screen_steps(lines: list, start: float, end: float) -> list[Step]:
    """The steps in ``lines`` (the ``OcrLine``\\ s of the range ``start``–``end``), in time order: each
    group of new lines that came up together after the range's first moment, and each settled change
    beside a line. Empty when the range is no screen recording: fewer than ``WINDOW_LINES`` lines stay
    on screen for ``WINDOW_SHARE`` of it and ``WINDOW_S`` (a film's titles and credits come and go
    with no window under them)."""
    span = max(end - start, 1e-6)
    shown = sorted((line for line in lines if line.text.strip()), key=lambda line: line.start)
    staying = [line for line in shown if min(line.end, end) - max(line.start, start) >= max(WINDOW_SHARE * span, WINDOW_S)]
    if len(staying) < WINDOW_LINES:
        return []
    steps: list[Step] = []
    seen: set[tuple[str, ...]] = set()
    for line in shown:
        if line.start <= start + TOGETHER_S:
            seen.add(tuple(tokenize(line.text)))  # the opening screen is where the steps begin, not one of them
    groups: list[list] = []
    for line in shown:
        if line.start <= start + TOGETHER_S or (min(line.end, end) - max(line.start, start)) >= FRAME_SHARE * span:
            continue
        if groups and line.start - groups[-1][0].start <= TOGETHER_S:
            groups[-1].append(line)
        else:
            groups.append([line])
    for group in groups:
        new = [line for line in group if tuple(tokenize(line.text)) not in seen and tokenize(line.text)]
        seen.update(tuple(tokenize(line.text)) for line in group)
        if not new:
            continue  # the same text read again (a window redrawn): nothing happened
        dialog = any(line.text.rstrip().endswith("?") for line in new)
        told = sorted(new, key=lambda line: -_telling(line))[: DIALOG_LINES if dialog else SHOWN_PER_STEP]
        told.sort(key=lambda line: group.index(line))
        steps.append(Step(group[0].start, max(line.end for line in group), " · ".join(_quoted(line) for line in told) + " came up", tuple(told),
                          max(_telling(line) for line in told)))
    moments: dict[float, list] = {}
    for line in shown:
        for a, _ in line.changes or ():
            if start <= a <= end:
                moments.setdefault(round(a, 1), []).append(line)
    turned: set[str] = set()
    for moment, changed in sorted(moments.items()):
        if len(changed) >= CROWD:
            continue  # much of the screen changed at once: something came over it, no control was turned
        for line in changed:
            if line.text in turned:
                continue  # turned again (dragged on, switched back): the first time tells the step
            turned.add(line.text)
            steps.append(Step(moment, moment, f"what is beside {_quoted(line)} changed and stayed changed (a box ticked or a switch turned, as far as the picture shows)", (line,), 2.0))
    return sorted(steps, key=lambda s: s.start)


def chosen_steps(steps: list[Step], most: int) -> list[Step]:
    """At most ``most`` of ``steps``, those that tell most (the earlier first among equals), in time order."""
    ranked = sorted(range(len(steps)), key=lambda i: (-steps[i].weight, steps[i].start))[:most]
    return [steps[i] for i in sorted(ranked)]
