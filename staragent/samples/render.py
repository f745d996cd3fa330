"""Encode a ``SampleScript`` to an H.264 + AAC mp4 with PyAV.

Speed comes from doing little per frame: each text slide is drawn and converted to yuv420p once,
and that same frame object is sent to the encoder again with each new timestamp; libx264 turns the
repeats into near-empty skip frames. The audio track is mixed one second at a time and encoded on a
second thread while the video of the same second is encoded.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

from .pictures import BallAnimation, SlidePainter
from .script import SampleScript
from .sounds import Mixer, event_audio
from .speech import Voice

X264_OPTIONS = {"preset": "ultrafast", "crf": "20"}
KEYFRAME_SECONDS = 10
AUDIO_BITRATE = 96_000
AAC_OPTIONS = {"aac_coder": "fast"}  # the default "twoloop" search is three times slower on speech


def _build_mixer(script: SampleScript, voice: Voice) -> Mixer:
    """The narration clips and sound events of the script, placed on one track."""
    rate = script.sample_rate
    mixer = Mixer(rate)
    for cue in script.narration:
        mixer.add(cue.start, round(voice.duration(cue.text) * rate), lambda text=cue.text: voice.clip(text, rate))
    for number, event in enumerate(script.audio_events):
        if event.kind == "silence":
            continue
        seed = zlib.crc32(f"{script.seed}:{number}".encode())
        mixer.add(event.start, round((event.end - event.start) * rate),
                  lambda event=event, seed=seed: event_audio(event, rate, seed))
    return mixer


def _video_frames(script: SampleScript) -> Iterator:
    """Every frame of the video in order, as yuv420p ``av.VideoFrame``s with their pts set."""
    import av

    painter = SlidePainter(script.width, script.height)
    fps = script.fps
    total = round(script.duration * fps)
    for scene in script.slides:
        first, stop = round(scene.start * fps), min(total, round(scene.end * fps))
        if scene.kind == "slide":
            frame = av.VideoFrame.from_ndarray(painter.paint(scene), format="rgb24").reformat(format="yuv420p")
            for index in range(first, stop):
                frame.pts = index
                yield frame
        else:
            animation = BallAnimation(scene, script.width, script.height)
            for index in range(first, stop):
                picture = animation.frame((index - first) / max(1, stop - first - 1))
                frame = av.VideoFrame.from_ndarray(picture, format="rgb24").reformat(format="yuv420p")
                frame.pts = index
                yield frame


def render_video(script: SampleScript, voice: Voice, path: str | Path, progress: bool = False) -> None:
    """Write the video and its soundtrack to ``path`` (an mp4, whatever its suffix)."""
    import av
    from tqdm import tqdm

    fps, rate = script.fps, script.sample_rate
    total_frames = round(script.duration * fps)
    total_samples = round(script.duration * rate)
    mixer = _build_mixer(script, voice)
    with av.open(str(path), "w", format="mp4", options={"movflags": "+faststart"}) as container:
        video = container.add_stream("libx264", rate=fps, options={**X264_OPTIONS, "g": str(KEYFRAME_SECONDS * fps)})
        video.width, video.height, video.pix_fmt = script.width, script.height, "yuv420p"
        audio = container.add_stream("aac", rate=rate, options=AAC_OPTIONS)
        audio.layout, audio.bit_rate = "mono", AUDIO_BITRATE

        def encode_audio(first: int, stop: int) -> list:
            chunk = av.AudioFrame.from_ndarray(mixer.window(first, stop)[None, :], format="fltp", layout="mono")
            chunk.sample_rate, chunk.pts, chunk.time_base = rate, first, Fraction(1, rate)
            return list(audio.encode(chunk))

        frames = _video_frames(script)
        seconds = -(-total_frames // fps)
        with ThreadPoolExecutor(1) as audio_thread, tqdm(total=seconds, unit="s", desc="render", disable=not progress) as bar:
            for first in range(0, total_frames, fps):
                stop = min(total_frames, first + fps)
                stop_sample = total_samples if stop == total_frames else stop * rate // fps
                pending = audio_thread.submit(encode_audio, first * rate // fps, stop_sample)
                for _ in range(first, stop):
                    container.mux(video.encode(next(frames)))
                container.mux(pending.result())
                bar.update(1)
        container.mux(video.encode(None))
        container.mux(audio.encode(None))

