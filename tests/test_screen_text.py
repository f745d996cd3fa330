"""On-screen text that appears, changes and scrolls within one shot is read, each line with its own
time on screen, and each line is recognised about once."""

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from media_factory import credits_roll_video, overlay_video

from staragent.config import load_settings
from staragent.index.builder import build_index
from staragent.index.screen_text import FrameFeed, TextTracker, join_pieces, part_of, same_text
from staragent.records import OcrLine

STEP = 1.0  # ocr_fps: a line is first seen at most one step after it appears, and missed at most one after it leaves


@pytest.fixture(scope="module")
def overlays(tmp_path_factory):
    video, overlays = overlay_video(tmp_path_factory.mktemp("overlays") / "harbour.mp4")
    index = build_index(video.path, load_settings(cache_dir=tmp_path_factory.mktemp("cache"), progress=False))
    return video, overlays, index


def _span(overlay, duration, whole, height=360):
    """When the overlay is on screen whole (or in part), to a tenth of a second."""
    times = [t / 10 for t in range(int(duration * 10) + 1) if overlay.visible_at(t / 10, height, whole)]
    return times[0], min(duration, times[-1] + 0.1)


def test_each_overlay_is_read_with_its_own_span(overlays):
    video, drawn, index = overlays
    assert len(index.scene_cuts) == 0  # one shot: nothing here comes from cutting it into scenes
    for overlay in drawn:
        found = [line for line in index.ocr if line.text.replace(" ", "") == overlay.text.replace(" ", "")]
        assert len(found) == 1, f"{overlay.text!r} read as {[line.text for line in index.ocr]}"
        (first, last), (whole, gone) = _span(overlay, video.duration, whole=False), _span(overlay, video.duration, whole=True)
        # read no earlier than it came into view, and by the first sampled frame that showed it whole; the same at the end
        assert first - 0.05 <= found[0].start <= whole + STEP + 0.05, (overlay.text, found[0].start, first, whole)
        assert gone - 0.05 <= found[0].end <= last + STEP + 0.05, (overlay.text, found[0].end, gone, last)
    title = next(line for line in index.ocr if line.text == "Harbour Report")
    assert (title.start, title.end) == (0.0, pytest.approx(video.duration, abs=0.1))  # it never left


def test_only_new_text_is_recognised(overlays):
    _, drawn, index = overlays
    info = index.stage_info("ocr")
    assert info["frames_sampled"] >= 26
    # every line once, give or take a few re-reads where the moving disc crosses a line
    assert info["lines_recognised"] <= 2 * (len(drawn) + 1) < info["frames_sampled"] * len(drawn)


def test_segments_and_tools_carry_each_lines_own_time(overlays, registry, settings):
    from staragent.tools.base import ToolContext

    _, _, index = overlays
    ferry = next(line for line in index.ocr if "ferry" in line.text)
    holding = [s for s in index.segments if any(line.text == ferry.text for line in s.ocr)]
    assert holding and all(s.start < ferry.end and s.end > ferry.start for s in holding)
    result = registry.get("extract_scene_text")(ToolContext(settings=settings, index=index), {"timestamp": "00:05-00:06"})
    assert "Lena Okafor" in result.texts and "Tickets cost 12 euros" not in result.texts
    shown = {line.text: (line.start, line.end) for line in result.lines}
    assert shown["Lena Okafor"] == (pytest.approx(5.0, abs=STEP), pytest.approx(13.0, abs=STEP))
    assert {(e.start, e.end) for e in result.evidence() if e.text == ferry.text} == {(ferry.start, ferry.end)}


class _SlowReader:
    """The index's OCR models, with recognition that takes a while: readings come back frames late."""

    def __init__(self, reader, delay: float):
        self.reader, self.delay = reader, delay

    def detect(self, image):
        return self.reader.detect(image)

    def recognize(self, image, quads):
        time.sleep(self.delay)
        return self.reader.recognize(image, quads)


def _lines(video, reader, settings, **kwargs):
    import cv2

    feed = FrameFeed(video.path, settings.index.ocr_fps)
    tracker = TextTracker(reader, step=STEP, detect_width=settings.index.ocr_detect_width, min_score=settings.index.ocr_min_score, **kwargs)
    try:
        for frame in feed.between(0.0, video.duration + 1):
            tracker.feed(frame.time, cv2.cvtColor(frame.small, cv2.COLOR_BGR2GRAY), frame.image)
    finally:
        feed.close()
    lines, _ = tracker.finish(video.duration)
    return [(line.text, line.start, line.end) for line in lines]


def test_recognising_on_a_thread_reads_the_same_lines(overlays):
    """Readings settled frames after their lines were found (the recogniser busy on a thread of its
    own) give the lines, texts and spans of reading each frame's new lines at once."""
    from staragent.models.ocr import RapidOcrReader

    video, drawn, _ = overlays
    settings = load_settings(progress=False)
    reader = RapidOcrReader(settings.index.ocr_min_score, settings.index.ocr_min_height)
    at_once = _lines(video, reader, settings)
    assert {o.text.replace(" ", "") for o in drawn} <= {text.replace(" ", "") for text, _, _ in at_once}
    with ThreadPoolExecutor(max_workers=1) as recogniser:
        assert _lines(video, _SlowReader(reader, delay=0.3), settings, recognise_on=recogniser) == at_once


def test_readings_of_one_line_are_merged():
    assert same_text("MarenHolvik", "Maren Holvik")
    assert part_of("Ilse Vander", "Ilse Vandermeer") and not same_text("Ilse Vander", "Ilse Vandermeer")
    assert not same_text("Step 1: check in", "Step 2: board")
    box = [0.1, 0.1, 0.5, 0.2]
    pieces = [OcrLine(text="Keep calm", box=box, score=0.9, start=100.0, end=120.0),
              OcrLine(text="Keep calm", box=box, score=0.95, start=120.04, end=130.0),  # the next piece's first frame
              OcrLine(text="Other", box=box, score=0.9, start=120.04, end=121.0)]
    joined = join_pieces(pieces, [120.0], within=1.0)
    assert [(line.text, line.start, line.end) for line in joined] == [("Keep calm", 100.0, 130.0), ("Other", 120.04, 121.0)]


def test_a_name_rolling_by_under_several_credits_is_read_each_time_with_its_own_span(tmp_path):
    """The same name under three headings of a fast roll: three lines, each on screen while that
    instance is, so that the heading above each one is the one on screen with it."""
    from staragent.models.ocr import RapidOcrReader

    video, drawn = credits_roll_video(tmp_path / "roll.mp4")
    settings = load_settings(progress=False)
    lines = _lines(video, RapidOcrReader(settings.index.ocr_min_score, settings.index.ocr_min_height), settings)
    for text in {o.text for o in drawn}:
        expected = [o for o in drawn if o.text == text]
        found = sorted((start, end) for read, start, end in lines if read.replace(" ", "") == text.replace(" ", ""))
        assert len(found) == len(expected), (text, found, lines)
        for overlay, (start, end) in zip(expected, found):
            (first, last), (whole, gone) = _span(overlay, video.duration, whole=False), _span(overlay, video.duration, whole=True)
            assert first - 0.05 <= start <= whole + STEP + 0.05, (text, start, first, whole)
            assert gone - 0.05 <= end <= last + STEP + 0.05, (text, end, gone, last)


def test_a_box_ticked_beside_a_line_is_a_change_of_that_line_and_a_pointer_passing_is_none(tmp_path):
    """What is beside a line on screen (a check box) is watched: a tick that stays is a change of the
    line from about when it happened, even while the pointer covered the label, and even across the
    boundary between two separately read pieces; a pointer that hovers and leaves changes nothing."""
    from media_factory import settings_video

    video, ticks = settings_video(tmp_path / "settings.mp4")
    settings = load_settings(cache_dir=tmp_path / "cache", progress=False)
    index = build_index(video.path, settings)
    for label, ticked_at in ticks.items():
        line = next(line for line in index.ocr if line.text.replace(" ", "").lower() == label.replace(" ", "").lower())
        if ticked_at is None:
            assert line.changes == [], (label, line.changes)
        else:
            assert len(line.changes) == 1, (label, line.changes)
            # seen changing no earlier than a step before the pointer came, by the first frame after the tick
            assert ticked_at - 1.0 - STEP <= line.changes[0][0] <= ticked_at + STEP, (label, line.changes)

    # asked when a box is ticked, the answer is the change, not when the label came up
    from staragent.agent.runner import VideoAgent

    with VideoAgent(settings) as agent:
        ticked = agent.ask(video.path, "When is Sticky edges ticked?")
        shown = agent.ask(video.path, "When does Sticky edges first appear?")
    assert any(ticks["Sticky edges"] - 1.0 - STEP <= e.start <= ticks["Sticky edges"] + STEP for e in ticked.evidence), ticked.answer
    assert all(e.start < 1.0 for e in shown.evidence) and shown.evidence, shown.answer
