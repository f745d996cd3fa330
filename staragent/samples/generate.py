"""``generate_sample_video``: plan, speak, render and save a sample video with its ground truth."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..fsutil import atomic_path
from .layout import check_settings, lay_out
from .render import render_video
from .script import SampleScript
from .speech import choose_voice
from .subtitles import write_srt


@dataclass(frozen=True)
class SamplePaths:
    """The three files of a sample: the video, its subtitles, and its saved script."""

    video: Path
    subtitles: Path
    facts: Path


def sample_paths(video: str | Path) -> SamplePaths:
    """``talk.mp4 -> talk.mp4, talk.srt, talk.facts.json``."""
    video = Path(video)
    return SamplePaths(video, video.with_suffix(".srt"), video.with_name(f"{video.stem}.facts.json"))


def _check_output(out: str | Path) -> Path:
    out = Path(out).expanduser()
    if out.is_dir():
        raise InputError(f"the output {out} is a directory; give a file name such as {out / 'sample.mp4'}")
    if out.suffix.lower() != ".mp4":
        raise InputError(f"the output {out} must be an .mp4 file (the sample is H.264 + AAC in MP4)")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out.parent):
            pass
    except OSError as exc:
        raise InputError(f"cannot write to the directory {out.parent} ({exc.strerror or exc}); "
                         "choose a writable location for the output") from None
    return out


def generate_sample_video(out: str | Path, minutes: float, seed: int = 0, fps: int = 25, width: int = 640,
                          height: int = 360, tts: bool | None = None, progress: bool = False) -> SampleScript:
    """Render a synthetic lecture video of ``minutes`` length and save what it contains.

    Writes ``out`` (H.264 + AAC mp4), the narration as subtitles beside it (``talk.srt``), and the
    script with every fact, question and answer (``talk.facts.json``). Each file appears only
    complete: it is written under a temporary name and renamed. The facts file is written last.

    ``tts=None`` speaks with espeak-ng when it is installed and with a speech-like synthetic signal
    otherwise; ``True`` insists on espeak-ng, ``False`` always uses the synthetic signal. The same
    arguments (and the same espeak-ng) always give the same video and script.
    """
    check_settings(minutes, seed, fps, width, height)
    paths = sample_paths(_check_output(out))
    voice = choose_voice(tts)
    script = lay_out(minutes, seed, fps, width, height, voice, progress=progress)
    with atomic_path(paths.video) as tmp:
        render_video(script, voice, tmp, progress=progress)
    write_srt(script.narration, paths.subtitles)
    script.save(paths.facts)
    return script
