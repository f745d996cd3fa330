"""The one parser and the one formatter for times and time ranges.

Inside staragent every time is a float number of seconds. People and planners write times as
``"HH:MM:SS"``, ``"MM:SS"``, ``"SS"`` or ``"SS.s"``, and ranges as two of those joined by ``-``
(``"01:02:03-01:02:30"``, ``"90-120"``), also with ``–``, ``to`` or `` - ``. Output uses ``m:ss``
below an hour and ``h:mm:ss`` above.

A single moment where a range is wanted stands for ``point_window``: from ``POINT_WINDOW[0]``
seconds before it to ``POINT_WINDOW[1]`` after (tools and the offline planner read "at 1:30" alike).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .errors import TimeFormatError
from .limits import MAX_TIMESTAMP_CHARS

_RANGE_SPLIT = re.compile(r"\s*(?:–|—|\bto\b|-(?=\s*\d)|,)\s*")
_CLOCK = re.compile(r"^(?:(\d+):)?(?:(\d+):)?(\d+(?:\.\d+)?)$")

TIME_FORMAT_HELP = 'use seconds ("90"), "MM:SS", "HH:MM:SS", or a range such as "01:30-02:00"'
POINT_WINDOW = (10.0, 20.0)
"""Seconds before and after a single moment that a range around it covers: what is said or shown
"at 1:30" often starts a little before and goes on for a while after."""


def parse_time(text: str | float | int) -> float:
    """Parse one point in time into seconds."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        raw = str(text).strip().lower().rstrip("s").strip()
        if len(raw) > MAX_TIMESTAMP_CHARS:
            raise TimeFormatError(f"the time is {len(raw):,} characters long, over the limit of "
                                  f"{MAX_TIMESTAMP_CHARS}: {TIME_FORMAT_HELP}")
        match = _CLOCK.match(raw)
        if not match:
            raise TimeFormatError(f"cannot read the time {text!r}: {TIME_FORMAT_HELP}")
        first, second, last = match.groups()
        parts = [p for p in (first, second) if p is not None]
        value = float(last)
        for scale, part in zip((60, 3600), reversed(parts)):
            value += int(part) * scale
        if parts and float(last) >= 60:
            raise TimeFormatError(f"cannot read the time {text!r}: seconds must be below 60; {TIME_FORMAT_HELP}")
        if len(parts) == 2 and int(second) >= 60:
            raise TimeFormatError(f"cannot read the time {text!r}: minutes must be below 60 in H:MM:SS; {TIME_FORMAT_HELP}")
    if not math.isfinite(value) or value < 0:
        raise TimeFormatError(f"the time {text!r} is negative or not a finite number; {TIME_FORMAT_HELP}")
    return value


def point_window(moment: float) -> tuple[float, float]:
    """The range that stands for a single moment: ``POINT_WINDOW`` seconds around it, never before 0."""
    before, after = POINT_WINDOW
    return max(0.0, moment - before), moment + after


@dataclass(frozen=True)
class TimeRange:
    start: float
    end: float
    notes: tuple[str, ...] = ()
    """What the reader should know about how the text became this range (a widened moment, a
    clipped end)."""


def read_range(text: str | float | int, duration: float | None = None, *, widen_points: bool = False) -> TimeRange:
    """Parse ``"start-end"`` into seconds. A single point is a 1-second span, or with
    ``widen_points`` its ``point_window``.

    With ``duration`` the range is checked against the video: it must start inside it; an end past
    the video is clipped to its last moment, and a note says so.
    """
    if text is None or not str(text).strip():
        raise TimeFormatError(f"the time range is empty: {TIME_FORMAT_HELP}")
    raw = str(text).strip()
    if len(raw) > MAX_TIMESTAMP_CHARS:  # digits by the thousand overflow, or take long to read
        raise TimeFormatError(f"the time range is {len(raw):,} characters long, over the limit of "
                              f"{MAX_TIMESTAMP_CHARS}: {TIME_FORMAT_HELP}")
    if raw.startswith("-"):
        raise TimeFormatError(f"the time range {text!r} starts with a negative time")
    pieces = [p for p in _RANGE_SPLIT.split(raw) if p]
    moment = None
    if len(pieces) == 1:
        moment = parse_time(pieces[0])
        start, end = point_window(moment) if widen_points else (moment, moment + 1.0)
    elif len(pieces) == 2:
        start, end = parse_time(pieces[0]), parse_time(pieces[1])
    else:
        raise TimeFormatError(f"cannot read the time range {text!r}: {TIME_FORMAT_HELP}")
    # before the order of the ends: far past the video, a moment's window has none (1e30 + 20 == 1e30)
    if duration is not None and (moment if moment is not None else start) >= duration:
        raise TimeFormatError(
            f"the time range {text!r} starts after the video ends ({format_time(duration)}); "
            f"pick a range between 0:00 and {format_time(duration)}"
        )
    if end <= start:
        raise TimeFormatError(f"the time range {text!r} ends before it starts")
    clipped = duration is not None and end > duration
    if duration is not None:
        end = min(end, duration)
    notes = []
    if moment is not None and widen_points:
        notes.append(f"the single moment {format_time(moment)} was read as the range around it, {format_range(start, end)}")
    elif clipped:
        notes.append(f"the video ends at {format_time(duration)}, so the range was cut to {format_range(start, end)}")
    return TimeRange(start, end, tuple(notes))


def parse_range(text: str | float | int, duration: float | None = None) -> tuple[float, float]:
    """``read_range`` as a ``(start, end)`` pair (a single point is a 1-second span)."""
    found = read_range(text, duration)
    return found.start, found.end


def format_time(seconds: float) -> str:
    """``75.4 -> "1:15"``, ``3725 -> "1:02:05"``."""
    total = int(max(0.0, seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def format_range(start: float, end: float) -> str:
    return f"{format_time(start)}-{format_time(end)}"


def to_clock(seconds: float) -> str:
    """Full ``HH:MM:SS`` form, the tool-argument form of Table 7 in the STARBench paper."""
    total = int(max(0.0, seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


def clock_range(start: float, end: float) -> str:
    return f"{to_clock(start)}-{to_clock(math.ceil(end))}"


# A clock time in running text, alone or as the first of a range: "1:05", "0:12:30", "1:05-1:20",
# "1:05 to 1:20". Not a part of a longer number ("10:15:20:11") or a decimal ("3.14:00").
_CLOCK_IN_TEXT = r"(?:\d{1,2}:)?\d{1,2}:\d{2}(?:\.\d+)?"
_MENTION = re.compile(rf"(?<![\d:.])({_CLOCK_IN_TEXT})(?:\s*(?:-|–|—|\bto\b)\s*({_CLOCK_IN_TEXT}))?(?![\d:])")


@dataclass(frozen=True)
class TimeMention:
    text: str
    """as written"""
    start: float
    end: float
    """``start`` again for a single moment"""


def times_in_text(text: str) -> list[TimeMention]:
    """The clock times and time ranges written in ``text`` (``m:ss``, ``h:mm:ss``, either joined by a
    dash or "to"), in order; something that looks like one but is not a time ("7:75") is skipped."""
    found = []
    for match in _MENTION.finditer(text or ""):
        try:
            start = parse_time(match.group(1))
            end = parse_time(match.group(2)) if match.group(2) else start
        except TimeFormatError:
            continue
        found.append(TimeMention(match.group(0), start, max(start, end)))
    return found
