"""SubRip (.srt) subtitles for the narration, and a reader for them."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from ..errors import SubtitleError
from ..fsutil import write_text
from .script import Cue

LINE_WIDTH = 42  # characters per subtitle line, the usual broadcast limit

_TIMING = re.compile(r"(\d+):(\d\d):(\d\d)[,.](\d{3})\s*-->\s*(\d+):(\d\d):(\d\d)[,.](\d{3})")


def srt_time(seconds: float) -> str:
    """``75.5 -> "00:01:15,500"``."""
    millis = round(max(0.0, seconds) * 1000)
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d},{millis:03d}"


def format_srt(cues: list[Cue]) -> str:
    """Numbered SRT blocks, long sentences wrapped onto two lines."""
    blocks = []
    for number, cue in enumerate(cues, 1):
        text = "\n".join(textwrap.wrap(cue.text, LINE_WIDTH)) or cue.text
        blocks.append(f"{number}\n{srt_time(cue.start)} --> {srt_time(cue.end)}\n{text}\n")
    return "\n".join(blocks)


def write_srt(cues: list[Cue], path: str | Path) -> None:
    """Write the cues to ``path`` atomically."""
    write_text(path, format_srt(cues))


def parse_srt(text: str) -> list[Cue]:
    """Cues of an SRT document; wrapped lines are joined back with spaces."""
    cues = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n").strip()):
        lines = block.strip().split("\n")
        timing = next((i for i, line in enumerate(lines) if "-->" in line), None)
        if timing is None:
            continue
        match = _TIMING.search(lines[timing])
        if match is None:
            raise SubtitleError(f"unreadable SRT timing line: {lines[timing]!r}")
        h1, m1, s1, ms1, h2, m2, s2, ms2 = (int(g) for g in match.groups())
        cues.append(Cue(
            start=h1 * 3600 + m1 * 60 + s1 + ms1 / 1000,
            end=h2 * 3600 + m2 * 60 + s2 + ms2 / 1000,
            text=" ".join(line.strip() for line in lines[timing + 1 :] if line.strip()),
        ))
    return cues
