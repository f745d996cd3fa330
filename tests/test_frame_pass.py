"""One decoding pass shared by the video lane and the on-screen text lane."""

import threading

import numpy as np
import pytest
from media_factory import Slide, Sound, make_video

from staragent import media
from staragent.errors import MediaError
from staragent.index.frame_pass import FramePass

LANES = {"frames": (2.0, 96), "ocr": (1.0, 160)}


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "v.mp4"
    return make_video(path, [Slide(3, ["One"]), Slide(3, ["Two"], (0, 90, 0))], [Sound(1, 2, "tone", 440)], subtitles=None).path


def _alone(video, fps, width):
    return [(f.time, f.small) for f in media.scan_frames(video, fps, width)]


def _read(frames, into: list, stop_after: int | None = None):
    for frame in frames:
        into.append((frame.time, frame.small, frame.image(320)))
        if stop_after is not None and len(into) == stop_after:
            frames.close()
            return


def test_each_lane_gets_the_frames_a_pass_of_its_own_gives(video):
    shared = FramePass(video, LANES, depth=2)
    got = {lane: [] for lane in LANES}
    readers = [threading.Thread(target=_read, args=(shared.frames(lane), got[lane])) for lane in LANES]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(timeout=60)
    shared.close()
    for lane, (fps, width) in LANES.items():
        alone = _alone(video, fps, width)
        assert [t for t, *_ in got[lane]] == [t for t, _ in alone]
        assert all(np.array_equal(a[1], b[1]) for a, b in zip(got[lane], alone))
        assert all(image.shape == (180, 320, 3) for *_, image in got[lane])
    assert len(got["frames"]) == pytest.approx(2 * len(got["ocr"]), abs=1)


def test_a_lane_that_stops_reading_does_not_hold_up_the_other(video):
    shared = FramePass(video, LANES, depth=1)
    frames, ocr = [], []
    stopper = threading.Thread(target=_read, args=(shared.frames("ocr"), ocr, 2))
    stopper.start()
    _read(shared.frames("frames"), frames)
    stopper.join(timeout=60)
    shared.close()
    assert len(ocr) == 2
    assert [t for t, *_ in frames] == [t for t, _ in _alone(video, *LANES["frames"])]


def test_a_decoding_error_reaches_every_lane(video, monkeypatch):
    first = next(media.scan_frames(video, 1.0, 96))

    def broken(*args, **kwargs):
        yield 0, first
        raise MediaError("v.mp4 could not be decoded past 1.0 s")

    monkeypatch.setattr(media, "scan_samplings", broken)
    shared = FramePass(video, LANES)
    errors = []

    def read(lane):
        try:
            list(shared.frames(lane))
        except MediaError:
            errors.append(lane)

    readers = [threading.Thread(target=read, args=(lane,)) for lane in LANES]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(timeout=30)
    shared.close()
    assert sorted(errors) == sorted(LANES)
