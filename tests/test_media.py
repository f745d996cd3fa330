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
            media.validate_video(path)
    assert media.validate_video(silent.path, require_audio=False).has_audio is False


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
