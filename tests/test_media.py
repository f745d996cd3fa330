import numpy as np
import pytest
from media_factory import Slide, Sound, make_video

from staragent import media
from staragent.errors import MediaError


@pytest.fixture(scope="module")
def short(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "short.mp4"
    return make_video(path, [Slide(3, ["One"]), Slide(3, ["Two"], (0, 90, 0))], [Sound(1, 2, "tone", 440), Sound(4, 5, "noise")], subtitles=None)


def test_probe_describes_streams(short):
    info = media.probe(short.path)
    assert info.has_video and info.has_audio
    assert (info.width, info.height) == (640, 360)
    assert info.fps == pytest.approx(10.0)
    assert info.duration == pytest.approx(6.0, abs=0.3)


def test_load_audio_is_16k_mono_and_slices_by_time(short):
    audio = media.load_audio(short.path)
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert len(audio) / media.SAMPLE_RATE == pytest.approx(6.0, abs=0.2)
    tone = media.load_audio(short.path, start=1.2, end=1.8)
    quiet = media.load_audio(short.path, start=2.2, end=2.8)
    assert len(tone) == int(0.6 * media.SAMPLE_RATE)
    assert np.sqrt(np.mean(tone**2)) > 0.1 > np.sqrt(np.mean(quiet**2)) * 10


@pytest.mark.parametrize("fmt, layout", [("s16", "stereo"), ("fltp", "stereo"), ("u8", "mono")])
def test_load_audio_matches_resampling_every_decoded_frame(tmp_path, fmt, layout):
    """Audio is resampled in batches for speed; the samples must be those of the frame-by-frame way,
    whatever the stream's sample format and channels."""
    import av

    path, rate = tmp_path / "tones.mkv", 44_100
    t = np.arange(rate * 12) / rate
    left, right = 0.4 * np.sin(2 * np.pi * 330 * t), 0.3 * np.sin(2 * np.pi * 1250 * t)
    signal = np.stack([left, right] if layout == "stereo" else [left + right])
    codec = {"s16": "pcm_s16le", "fltp": "aac", "u8": "pcm_u8"}[fmt]
    with av.open(str(path), "w") as container:
        stream = container.add_stream(codec, rate=rate, layout=layout)
        for start in range(0, signal.shape[1], 1024):
            part = signal[:, start : start + 1024]
            if fmt == "s16":
                data = (part.T.reshape(1, -1) * 32_000).astype(np.int16)
            elif fmt == "u8":
                data = (part.T.reshape(1, -1) * 120 + 128).astype(np.uint8)
            else:
                data = part.astype(np.float32)
            frame = av.AudioFrame.from_ndarray(data, format=fmt, layout=layout)
            frame.sample_rate, frame.pts = rate, start
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)

    expected = []
    with av.open(str(path)) as container:
        resampler = av.AudioResampler(format="flt", layout="mono", rate=media.SAMPLE_RATE)
        for frame in [*container.decode(audio=0), None]:
            expected += [out.to_ndarray().reshape(-1) for out in resampler.resample(frame)]
    assert np.array_equal(media.load_audio(path), np.concatenate(expected))


def test_scan_samples_at_the_requested_rate(short):
    frames = list(media.scan_frames(short.path, fps=2.0, width=96))
    times = [f.time for f in frames]
    assert len(frames) == pytest.approx(12, abs=1)
    assert all(b > a for a, b in zip(times, times[1:]))
    assert frames[0].small.shape == (54, 96, 3)
    assert frames[0].image().shape == (360, 640, 3)


def test_frames_at_seek_to_the_right_picture(short):
    (t1, first), (t2, second) = media.frames_at(short.path, [1.0, 4.5])
    assert t1 == pytest.approx(1.0, abs=0.15) and t2 == pytest.approx(4.5, abs=0.15)
    assert second[..., 1].mean() > first[..., 1].mean() + 20  # the second slide is green


def test_embedded_subtitles_are_read(tmp_path):
    from media_factory import Cue

    video = make_video(tmp_path / "subs.mkv", [Slide(4, ["S"])], cues=[Cue(0.5, 2.0, "hello there"), Cue(2.5, 3.5, "bye")], subtitles="embedded")
    info = media.probe(video.path)
    assert len(info.subtitle_streams) == 1
    assert media.read_subtitle_stream(video.path) == [(0.5, 2.0, "hello there"), (2.5, 3.5, "bye")]


def test_validation_names_each_problem(tmp_path, short):
    cases = {}
    cases["missing"] = (tmp_path / "nope.mp4", "no such file")
    (tmp_path / "empty.mp4").write_bytes(b"")
    cases["empty"] = (tmp_path / "empty.mp4", "empty")
    (tmp_path / "text.mp4").write_text("not a video at all")
    cases["text"] = (tmp_path / "text.mp4", "not a video")
    cases["dir"] = (tmp_path, "directory")
    silent = make_video(tmp_path / "silent.mp4", [Slide(2, ["quiet"])], audio=False, subtitles=None)
    cases["silent"] = (silent.path, "no audio stream")
    for path, message in cases.values():
        with pytest.raises(MediaError, match=message):
            media.validate_video(path, require_audio=True)
    assert media.validate_video(silent.path).has_audio is False  # pictures alone are enough by default


def test_audio_only_and_truncated_files_are_rejected(tmp_path, short):
    import av

    audio_only = tmp_path / "sound.m4a"
    with av.open(str(audio_only), "w") as out:
        stream = out.add_stream("aac", rate=16000)
        stream.layout = "mono"
        frame = av.AudioFrame.from_ndarray(np.zeros((1, 16000), np.float32), format="flt", layout="mono")
        frame.sample_rate, frame.pts = 16000, 0
        for p in [*stream.encode(frame), *stream.encode()]:
            out.mux(p)
    with pytest.raises(MediaError, match="audio-only"):
        media.validate_video(audio_only)

    data = short.path.read_bytes()
    head_cut = tmp_path / "cut.mp4"
    head_cut.write_bytes(data[: len(data) // 3])
    with pytest.raises(MediaError, match="truncated|corrupt|not a video"):
        media.validate_video(head_cut)


def _interleaved(target, seconds: float, fmt: str | None = None, codecs: tuple[str, str] = ("mpeg4", "aac")) -> None:
    """A small video whose picture and sound packets alternate, as real recordings do."""
    import av

    with av.open(target, "w", format=fmt) as out:
        video = out.add_stream(codecs[0], rate=10)
        video.width, video.height, video.pix_fmt = 160, 120, "yuv420p"
        audio = out.add_stream(codecs[1], rate=16000)
        audio.layout = "mono"
        t = np.arange(1600) / 16000
        for n in range(int(seconds * 10)):
            picture = av.VideoFrame.from_ndarray(np.full((120, 160, 3), (n * 9) % 255, np.uint8), format="rgb24")
            picture.pts = n
            sound = av.AudioFrame.from_ndarray((0.2 * np.sin(2 * np.pi * 440 * (t + n / 10))).astype(np.float32)[None], format="flt", layout="mono")
            sound.sample_rate, sound.pts = 16000, n * 1600
            for packet in [*video.encode(picture), *audio.encode(sound)]:
                out.mux(packet)
        for packet in [*video.encode(), *audio.encode()]:
            out.mux(packet)


def test_a_file_cut_short_is_refused_though_its_header_still_promises_the_whole_length(tmp_path):
    whole = tmp_path / "talk.mkv"
    _interleaved(str(whole), 20)
    assert media.validate_video(whole).duration == pytest.approx(20, abs=0.2)
    data = whole.read_bytes()
    for share in (0.5, 0.7):
        cut = tmp_path / f"cut{share}.mkv"
        cut.write_bytes(data[: int(len(data) * share)])
        with pytest.raises(MediaError, match=r"looks truncated: its header says 20\.\d s but its pictures and sound stop at"):
            media.validate_video(cut)


def test_a_recording_without_a_duration_in_its_header_gets_the_length_of_its_packets(tmp_path):
    import io

    class Pipe(io.RawIOBase):  # a live recording: the muxer cannot go back to write the duration
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, chunk):
            self.data += chunk
            return len(chunk)

    pipe = Pipe()
    _interleaved(pipe, 6, fmt="webm", codecs=("libvpx", "libopus"))
    live = tmp_path / "live.webm"
    live.write_bytes(bytes(pipe.data))
    assert media.probe(live).duration == 0
    assert media.validate_video(live).duration == pytest.approx(6, abs=0.2)


def test_containers_without_any_media_are_named_as_such(tmp_path):
    import av

    header_only = tmp_path / "nothing.mp4"
    with av.open(str(header_only), "w") as out:  # a stream declared, no frame ever written
        stream = out.add_stream("mpeg4", rate=10)
        stream.width, stream.height, stream.pix_fmt = 160, 120, "yuv420p"
        out.start_encoding()
    with pytest.raises(MediaError, match="holds no audio or video streams"):
        media.validate_video(header_only)
    whole = tmp_path / "talk.mkv"
    _interleaved(str(whole), 2)
    stub = tmp_path / "stub.mkv"
    stub.write_bytes(whole.read_bytes()[:40])
    with pytest.raises(MediaError, match="ends before its first frame|not a video FFmpeg can read"):
        media.validate_video(stub)
