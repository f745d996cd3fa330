"""SubRip (.srt) subtitles for the narration (read back by ``staragent.index.subtitles``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ..fsutil import write_text
from .script import Cue

LINE_WIDTH = 42  # characters per subtitle line, the usual broadcast limit


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
