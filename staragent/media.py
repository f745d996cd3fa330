"""The only module that decodes media. Everything goes through PyAV (FFmpeg).

- ``probe`` / ``validate_video``: what a file holds, and a clear error when it cannot be used.
- ``scan_frames``: one linear pass over the video yielding frames sampled at a fixed rate
  (``scan_samplings``: at several rates at once, for lanes that share the pass).
- ``frames_at``: a few frames at given times (seeking), for tools that look at a time range.
- ``frames_in_range``: many frames inside one range (one seek, then decoding forward), for the
  video refiner.
- ``load_audio``: the audio track as 16 kHz mono float32.
- ``read_subtitle_stream``: text cues of a subtitle stream inside the container.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import MediaError

SAMPLE_RATE = 16_000
_TEXT_SUBTITLE_CODECS = {"subrip", "srt", "webvtt", "text", "mov_text", "ass", "ssa"}


@dataclass(frozen=True)
class SubtitleStreamInfo:
    index: int
    codec: str
    language: str | None


@dataclass(frozen=True)
class MediaInfo:
    path: str
    duration: float
    has_video: bool
    has_audio: bool
    width: int = 0
    height: int = 0
    fps: float = 0.0
    video_codec: str | None = None
    audio_codec: str | None = None
    audio_rate: int | None = None
    subtitle_streams: tuple[SubtitleStreamInfo, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _open(path: str | Path):
    import av

    path = Path(path)
    try:
        if not path.exists():
            if path.is_symlink():
                raise MediaError(f"{path} is a symbolic link that leads to no file (its target is missing, "
                                 "or the links form a loop); point it at a video file")
            raise MediaError(f"no such file: {path} (check the path and try again)")
        if path.is_dir():
            raise MediaError(f"{path} is a directory; give the path of a video file")
        if path.stat().st_size == 0:
            raise MediaError(f"{path} is empty (0 bytes); it holds no video")
    except OSError as exc:  # a name too long for the file system, a folder we may not read
        raise MediaError(f"cannot open {path}: {exc.strerror or exc}; check the path") from None
    try:
        return av.open(str(path))
    except EOFError:
        raise MediaError(f"{path} ends before its first frame: it is empty or was cut off; re-download or re-encode it") from None
    except av.error.FFmpegError as exc:
        raise MediaError(
            f"{path} is not a video FFmpeg can read ({exc.strerror or exc}); "
            "it may be corrupt, truncated, or not a video at all"
        ) from None


def probe(path: str | Path) -> MediaInfo:
    """Describe the streams of a media file without decoding it."""
    with _open(path) as container:
        video = container.streams.video[0] if container.streams.video else None
        audio = container.streams.audio[0] if container.streams.audio else None
        duration = 0.0
        if container.duration:
            duration = container.duration / 1_000_000
        for stream in (video, audio):
            if stream is not None and stream.duration and stream.time_base:
                duration = max(duration, float(stream.duration * stream.time_base))
        subs = tuple(
            SubtitleStreamInfo(s.index, s.codec_context.name, s.language)
            for s in container.streams.subtitles
            if s.codec_context is not None and s.codec_context.name in _TEXT_SUBTITLE_CODECS
        )
        fps = 0.0
        if video is not None:
            rate = video.average_rate or video.guessed_rate or video.base_rate
            fps = float(rate) if rate else 0.0
        return MediaInfo(
            path=str(Path(path).resolve()),
            duration=duration,
            has_video=video is not None,
            has_audio=audio is not None,
            width=video.codec_context.width if video is not None else 0,
            height=video.codec_context.height if video is not None else 0,
            fps=fps,
            video_codec=video.codec_context.name if video is not None else None,
            audio_codec=audio.codec_context.name if audio is not None else None,
            audio_rate=audio.codec_context.sample_rate if audio is not None else None,
            subtitle_streams=subs,
        )


TRUNCATION_SLACK = 3.0  # seconds a stream may end short of the header's duration without being cut off


def no_audio_message(name: str) -> str:
    """Why a video without sound is refused when audio is required (``--require-audio``)."""
    return f"{name} has no audio stream, and audio is required (--require-audio, or index.require_audio); add an audio track or drop the flag"


def silent_note(name: str) -> str:
    return f"{name} has no audio track: indexed from its pictures alone (on-screen text, scenes), with no speech or sounds"


def validate_video(path: str | Path, require_audio: bool = False) -> MediaInfo:
    """Probe and check that the file is a usable video; raise ``MediaError`` naming the problem.

    A header without a duration (live recordings, browser WebM) gets the duration its packets
    span; a file whose media stop well before its header's duration was cut short and is refused.
    """
    info = probe(path)
    name = Path(path).name
    if not info.has_video:
        if not info.has_audio:
            raise MediaError(f"{name} holds no audio or video streams: it is empty, was cut off before its first frame, or is not a media file")
        raise MediaError(f"{name} is an audio-only file; staragent needs a video with pictures")
    if require_audio and not info.has_audio:
        raise MediaError(no_audio_message(name))
    if not _has_frames(path):
        raise MediaError(f"{name} has no decodable video frames (zero-length or corrupt)")
    end = media_end(path, near=info.duration if info.duration > 0 else None)
    if info.duration <= 0:
        if end <= 0:
            raise MediaError(f"{name} has zero length")
        return dataclasses.replace(info, duration=round(end, 3))
    if end < info.duration - max(TRUNCATION_SLACK, 0.01 * info.duration):
        stops = f"stop at {end:.1f} s" if end > 0 else "cannot be read to the end"
        raise MediaError(
            f"{name} looks truncated: its header says {info.duration:.1f} s but its pictures and sound {stops}; "
            "re-download the file (if only its header is wrong, `ffmpeg -i in.mkv -c copy out.mkv` rewrites it)"
        )
    return info


def media_end(path: str | Path, near: float | None = None) -> float:
    """Where the last video or audio packet ends, in seconds. With ``near`` (the header's duration)
    only the tail is read; without it every packet is. One demuxing pass over both streams, no
    decoding."""
    import av

    end = 0.0
    with _open(path) as container:
        streams = [s for s in [*container.streams.video[:1], *container.streams.audio[:1]] if s.time_base is not None]
        try:
            if near is not None:
                container.seek(int(max(0.0, near - 10.0) * av.time_base), backward=True)
            for packet in container.demux(*streams):
                if packet.pts is not None:
                    end = max(end, float((packet.pts + (packet.duration or 0)) * packet.stream.time_base))
        except av.error.FFmpegError:
            pass  # what could be read is the answer
    return end


def _has_frames(path: str | Path) -> bool:
    """At least one video frame decodes."""
    import av

    try:
        with _open(path) as container:
            return any(frame.time is not None for frame in container.decode(container.streams.video[0]))
    except (av.error.FFmpegError, MediaError):
        return False


@dataclass
class SampledFrame:
    """One frame of a linear scan: its time, a small BGR copy for analysis, and the decoded frame."""

    time: float
    small: np.ndarray
    _frame: object
    _lock: threading.Lock | None = None
    """shared by the samplings handed this decoded frame: a frame converts through a scaler of its
    own, which two threads must not drive at once"""

    def image(self, max_width: int | None = None) -> np.ndarray:
        """The frame as an RGB array, downscaled to at most ``max_width`` pixels wide."""
        if self._lock is None:
            return _rgb(self._frame, max_width)
        with self._lock:
            return _rgb(self._frame, max_width)


def _rgb(frame, max_width: int | None = None) -> np.ndarray:
    """A decoded frame as an RGB array, downscaled to at most ``max_width`` pixels wide."""
    if max_width and frame.width > max_width:
        height = int(round(frame.height * max_width / frame.width / 2)) * 2
        return frame.to_ndarray(width=max_width, height=height, format="rgb24")
    return frame.to_ndarray(format="rgb24")


def decoding_threads(stream, threads: int = 0) -> None:
    """Decode ``stream`` on ``threads`` threads (0: FFmpeg's choice, frame threading on every core).
    One thread where the caller's other work keeps the cores busy: frame threading there costs more
    CPU than it saves (a 640×360 H.264 hour: 10.6 s of CPU on two cores, 6.9 s on one)."""
    if threads == 1:
        stream.thread_count = 1
    else:
        stream.thread_type = "AUTO"
        stream.thread_count = threads


def scan_frames(
    path: str | Path,
    fps: float,
    width: int = 192,
    skip_nonref: bool = True,
    threads: int = 0,
    start: float = 0.0,
) -> Iterator[SampledFrame]:
    """Decode the video once, front to back (from ``start``), yielding a frame every ``1/fps`` seconds.

    Frames between samples are decoded (the codec needs them) but never converted, which is where
    the time goes. ``skip_nonref`` lets the decoder drop frames no other frame depends on.
    ``threads``: decoding threads (0: FFmpeg's choice, frame threading on every core).
    """
    for _, frame in scan_samplings(path, [(fps, width)], skip_nonref, threads, start):
        yield frame


def scan_samplings(
    path: str | Path,
    samplings: Sequence[tuple[float, int]],
    skip_nonref: bool = True,
    threads: int = 0,
    start: float = 0.0,
) -> Iterator[tuple[int, SampledFrame]]:
    """``scan_frames`` for several samplings ``(fps, small width)`` of one decoding pass: ``(which,
    frame)`` for each sampling whose next frame is due, in time order. Each sampling gets exactly the
    frames a pass of its own would give; the video is decoded once for all of them."""
    import av
    from av.video.reformatter import VideoReformatter

    with _open(path) as container:
        stream = container.streams.video[0]
        decoding_threads(stream, threads)
        if skip_nonref:
            stream.codec_context.skip_frame = "NONREF"
        src_w, src_h = stream.codec_context.width, stream.codec_context.height
        sizes = [(width, max(2, int(round(src_h * width / max(1, src_w) / 2)) * 2)) for _, width in samplings]
        steps = [1.0 / fps for fps, _ in samplings]
        due = [0.0] * len(samplings)
        if start > 0:
            container.seek(int(start / stream.time_base), stream=stream, backward=True)
            due = [np.ceil(start / step - 1e-6) * step for step in steps]
        scalers = [VideoReformatter() for _ in samplings]  # one per sampling for the whole pass; a new one per frame costs as much as decoding
        try:
            for frame in container.decode(stream):
                t = frame.time
                if t is None:
                    continue
                takers = [i for i in range(len(steps)) if t + 1e-6 >= due[i]]
                lock = threading.Lock() if len(takers) > 1 else None
                for i in takers:
                    small = scalers[i].reformat(frame, width=sizes[i][0], height=sizes[i][1], format="bgr24").to_ndarray()
                    yield i, SampledFrame(float(t), small, frame, lock)
                    due[i] = (int(t / steps[i]) + 1) * steps[i]
        except av.error.FFmpegError as exc:
            raise MediaError(f"{Path(path).name} could not be decoded past {min(due):.1f} s ({exc}); it may be corrupt") from None


def frames_at(path: str | Path, times: list[float], max_width: int | None = 960) -> list[tuple[float, np.ndarray]]:
    """For each requested time, the RGB frame showing then: the first one at or after it, or the
    last frame when the time lies beyond it (seeking to the keyframe before each time)."""
    import av

    out: list[tuple[float, np.ndarray]] = []
    with _open(path) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        for want in sorted(times):
            container.seek(int(max(0.0, want) / stream.time_base), stream=stream, backward=True)
            chosen = None
            try:
                for frame in container.decode(stream):
                    if frame.time is None:
                        continue
                    chosen = frame
                    if frame.time + 1e-6 >= want:
                        break
            except av.error.FFmpegError:
                pass
            if chosen is not None:
                out.append((float(chosen.time), _rgb(chosen, max_width)))
    return out


def frames_in_range(path: str | Path, times: list[float], max_width: int | None = 960) -> list[tuple[float, np.ndarray]]:
    """The first frame at or after each of ``times`` (a frame standing for several times comes
    once): one seek to the earliest time, then a forward decode that converts only the chosen
    frames. Cheaper than ``frames_at`` when the times are denser than the keyframes."""
    import av

    wanted = sorted(times)
    out: list[tuple[float, np.ndarray]] = []
    if not wanted:
        return out
    with _open(path) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        container.seek(int(max(0.0, wanted[0]) / stream.time_base), stream=stream, backward=True)
        i, last = 0, None
        try:
            for frame in container.decode(stream):
                if frame.time is None:
                    continue
                if frame.time + 1e-6 >= wanted[i]:  # one conversion, however many times it stands for
                    out.append((float(frame.time), _rgb(frame, max_width)))
                    while i < len(wanted) and frame.time + 1e-6 >= wanted[i]:
                        i += 1
                if i == len(wanted):
                    break
                last = frame
        except av.error.FFmpegError:
            pass
        if i < len(wanted) and last is not None:  # the range runs past the last frame
            out.append((float(last.time), _rgb(last, max_width)))
    return out


_SAMPLE_DTYPES = {"u8": np.uint8, "s16": np.int16, "s32": np.int32, "s64": np.int64, "flt": np.float32, "dbl": np.float64}
RESAMPLE_BATCH_SECONDS = 10.0
"""decoded audio handed to the resampler at a time: one call per decoded frame (about 20 ms of
AAC) costs far more in PyAV than the resampling itself, and the output is the same sample for sample"""


def _frame_samples(frame) -> np.ndarray:
    """A decoded frame's samples laid out as ``AudioFrame.from_ndarray`` takes them, read from its
    planes (``to_ndarray`` costs as much per frame as decoding it)."""
    dtype = _SAMPLE_DTYPES.get(frame.format.name.rstrip("p"))
    if dtype is None:
        return frame.to_ndarray()
    if frame.format.is_planar:
        return np.stack([np.frombuffer(plane, dtype, count=frame.samples) for plane in frame.planes])
    return np.frombuffer(frame.planes[0], dtype, count=frame.samples * len(frame.layout.channels)).reshape(1, -1)


def load_audio(path: str | Path, start: float = 0.0, end: float | None = None, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """The first audio stream as mono float32 in [-1, 1] at ``sample_rate``, optionally a time slice."""
    import av

    with _open(path) as container:
        if not container.streams.audio:
            raise MediaError(f"{Path(path).name} has no audio stream")
        stream = container.streams.audio[0]
        stream.thread_type = "AUTO"
        resampler = av.AudioResampler(format="flt", layout="mono", rate=sample_rate)
        if start > 0:
            container.seek(int(start / stream.time_base), stream=stream, backward=True)
        chunks: list[np.ndarray] = []
        pending: list[np.ndarray] = []
        pending_samples = 0
        kind: tuple[str, str, int] | None = None  # format, layout and rate of what is pending
        first_time: float | None = None

        def resample(frame) -> None:
            for out in resampler.resample(frame):
                chunks.append(out.to_ndarray().reshape(-1))

        def flush() -> None:
            nonlocal pending_samples
            if pending:
                batch = av.AudioFrame.from_ndarray(np.concatenate(pending, axis=1), format=kind[0], layout=kind[1])
                batch.sample_rate = kind[2]
                resample(batch)
                pending.clear()
                pending_samples = 0

        try:
            for frame in container.decode(stream):
                if first_time is None:
                    first_time = float(frame.time) if frame.time is not None else 0.0
                if end is not None and frame.time is not None and frame.time > end:
                    break
                frame_kind = (frame.format.name, frame.layout.name, frame.sample_rate)
                if frame_kind != kind:
                    flush()
                    kind = frame_kind
                pending.append(_frame_samples(frame))
                pending_samples += frame.samples
                if pending_samples >= RESAMPLE_BATCH_SECONDS * frame.sample_rate:
                    flush()
            flush()
            resample(None)
        except av.error.FFmpegError as exc:
            raise MediaError(f"the audio of {Path(path).name} could not be decoded ({exc}); it may be corrupt") from None
    audio = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
    offset = int(round((start - (first_time or 0.0)) * sample_rate)) if start > 0 else 0
    if offset > 0:
        audio = audio[offset:]
    elif offset < 0:
        audio = np.concatenate([np.zeros(-offset, np.float32), audio])
    if end is not None:
        audio = audio[: max(0, int(round((end - start) * sample_rate)))]
    return np.ascontiguousarray(audio, dtype=np.float32)


_ASS_OVERRIDE = re.compile(r"\{[^}]*\}")


def read_subtitle_stream(path: str | Path, stream_index: int | None = None) -> list[tuple[float, float, str]]:
    """Cues ``(start, end, text)`` of a text subtitle stream in the container (first one by default)."""
    with _open(path) as container:
        candidates = [s for s in container.streams.subtitles if s.codec_context.name in _TEXT_SUBTITLE_CODECS]
        if stream_index is not None:
            candidates = [s for s in candidates if s.index == stream_index]
        if not candidates:
            return []
        stream = candidates[0]
        codec = stream.codec_context.name
        cues = []
        for packet in container.demux(stream):
            if packet.pts is None:
                continue
            raw = bytes(packet)
            if codec == "mov_text" and len(raw) >= 2:
                raw = raw[2 : 2 + int.from_bytes(raw[:2], "big")]
            text = raw.decode("utf-8", errors="replace")
            if codec in ("ass", "ssa"):
                text = text.split(",", 8)[-1]
                text = _ASS_OVERRIDE.sub("", text).replace("\\N", " ").replace("\\n", " ")
            text = re.sub(r"<[^>]+>", "", text).strip()
            if not text:
                continue
            start = float(packet.pts * packet.time_base)
            dur = float(packet.duration * packet.time_base) if packet.duration else 2.0
            cues.append((start, start + dur, text))
        return cues


def read_image(path: str | Path) -> np.ndarray:
    """A still image (JPEG, PNG, WebP, ...) as an RGB array."""
    from PIL import Image, UnidentifiedImageError

    path = Path(path)
    try:
        with Image.open(path) as image:
            return np.asarray(image.convert("RGB"))
    except FileNotFoundError:
        raise MediaError(f"no such image: {path}") from None
    except (UnidentifiedImageError, OSError) as exc:
        raise MediaError(f"{path} is not an image that can be read ({exc})") from None
