"""Reading subtitles: sidecar ``.srt`` / ``.vtt`` files next to the video."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..errors import SubtitleError, TimeFormatError
from ..records import SpeechLine
from ..timecodes import parse_time

SUBTITLE_SUFFIXES = (".srt", ".vtt")
_TIME = r"-?(?:\d+:)?\d{1,2}:\d{2}[,.]\d{1,3}"
_TIMING = re.compile(rf"(?P<a>{_TIME})\s*-->\s*(?P<b>{_TIME})")
# Why a cue was left out (the keys of ``dropped``).
REVERSED, UNREADABLE, BEFORE, AFTER = "ending before they start", "with a timing that cannot be read", \
    "ending before the video starts", "starting after the video ends"
CUT = "cut at the end of the video"  # kept, shortened
_TAGS = re.compile(r"<[^>]*>|\{\\[^}]*\}")


def find_sidecar(video: str | Path) -> Path | None:
    """``talk.srt`` / ``talk.vtt`` beside ``talk.mp4``, else a language-tagged one (``talk.en.srt``)."""
    video = Path(video)
    for suffix in SUBTITLE_SUFFIXES:
        candidate = video.with_suffix(suffix)
        if candidate.exists():
            return candidate
    tagged = sorted(
        p for p in video.parent.glob(f"{glob_escape(video.stem)}.*") if p.suffix.lower() in SUBTITLE_SUFFIXES
    )
    english = [p for p in tagged if ".en" in p.name.lower()]
    return (english or tagged or [None])[0]


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]])", r"[\1]", text)


def _decode(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SubtitleError(f"cannot read the subtitle file {path} ({exc.strerror}); fix its permissions or remove it") from None
    utf16 = raw.startswith((b"\xff\xfe", b"\xfe\xff"))
    if b"\x00" in raw[:4096] and not utf16:
        raise SubtitleError(f"{path} is not a text subtitle file (it looks binary); remove or replace it")
    if utf16:  # only with its byte-order mark: any even-length file "decodes" as UTF-16
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeError:
        return raw.decode("cp1252", errors="replace")  # older subtitle files: Windows Latin-1


def _seconds(text: str) -> float:
    """A cue time, which may be negative (subtitles shifted before the video's start)."""
    value = parse_time(text.lstrip("-").replace(",", "."))
    return -value if text.startswith("-") else value


def parse_subtitles(path: str | Path, dropped: Counter | None = None) -> list[SpeechLine]:
    """Cues of an SRT or WebVTT file as ``SpeechLine``s, in time order, repeats of a cue dropped.
    Cues that end before they start, or whose timing cannot be read, are left out and counted in
    ``dropped`` (reason -> count)."""
    path = Path(path)
    dropped = Counter() if dropped is None else dropped
    text = _decode(path).replace("\r\n", "\n").replace("\r", "\n")
    lines: list[SpeechLine] = []
    for block in re.split(r"\n\s*\n", text):
        rows = [r for r in block.split("\n") if r.strip()]
        for i, row in enumerate(rows):
            match = _TIMING.search(row)
            if not match:
                if "-->" in row:
                    dropped[UNREADABLE] += 1
                    break
                continue
            body = " ".join(_TAGS.sub("", r).strip() for r in rows[i + 1 :]).strip()
            try:
                start, end = _seconds(match["a"]), _seconds(match["b"])
            except TimeFormatError as exc:
                raise SubtitleError(f"{path} has a cue with an impossible time ({exc}); fix or remove it") from None
            if body and end <= start:
                dropped[REVERSED] += 1
            elif body and not (lines and lines[-1].text == body and abs(lines[-1].end - start) < 0.05):
                lines.append(SpeechLine(start=start, end=end, text=body, source=f"subtitles:{path.name}"))
            break
    if not lines:
        why = f" ({dropped_text(dropped)})" if dropped else ""
        raise SubtitleError(
            f"{path} holds no subtitle cues we can read{why} (expected SRT or WebVTT timings like "
            "'00:01:02,000 --> 00:01:04,500'); fix or remove it"
        )
    lines.sort(key=lambda line: line.start)
    return lines


def fit_to_video(lines: list[SpeechLine], duration: float, dropped: Counter) -> list[SpeechLine]:
    """The cues cut to the video's span ``[0, duration]``: a cue wholly outside it is dropped (it
    could never be found), one that runs over an edge is cut there; both are counted in ``dropped``."""
    kept = []
    for line in lines:
        if line.end <= 0:
            dropped[BEFORE] += 1
        elif duration > 0 and line.start >= duration:
            dropped[AFTER] += 1
        else:
            if duration > 0 and line.end > duration:
                dropped[CUT] += 1
            kept.append(line.model_copy(update={"start": max(0.0, line.start), "end": min(line.end, duration) if duration > 0 else line.end}))
    return kept


def dropped_text(dropped: Counter) -> str:
    """``dropped`` as words: "dropped 2 cues (1 ending before they start, 1 starting after the video
    ends); 1 cue cut at the end of the video"."""
    def cues(count: int) -> str:
        return f"{count} cue{'s' if count != 1 else ''}"

    left_out = {why: count for why, count in dropped.items() if why != CUT and count}
    parts = [f"dropped {cues(sum(left_out.values()))} ({', '.join(f'{n} {why}' for why, n in left_out.items())})"] if left_out else []
    return "; ".join(parts + ([f"{cues(dropped[CUT])} {CUT}"] if dropped.get(CUT) else []))
