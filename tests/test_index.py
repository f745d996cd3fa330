import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from media_factory import Slide, Sound, make_video

from staragent.errors import MediaError
from staragent.fsutil import read_jsonl
from staragent.index.builder import build_index, index_dir_for, lock_path_for
from staragent.index.fingerprint import file_fingerprint
from staragent.index.stages import STAGES
from staragent.models.pool import ModelPool, ModelSpec


def _runs(messages):
    """Names of the stages a build ran, from its report lines."""
    names = {s.name for s in STAGES}
    return {m.split()[0] for m in messages if m.split() and m.split()[0] in names}


def test_foreign_video_index_holds_each_modality(foreign, foreign_index):
    idx = foreign_index
    assert idx.duration == pytest.approx(foreign.duration, abs=0.3)
    segs = idx.segments
    assert segs[0].start == 0 and segs[-1].end == pytest.approx(foreign.duration, abs=0.3)
    assert all(a.end == b.start for a, b in zip(segs, segs[1:]))
    cuts = idx.scene_cuts
    for i in range(1, len(foreign.slides)):
        start, _ = foreign.slide_span(i)
        assert any(abs(c - start) <= 0.6 for c in cuts), f"no cut near {start}"
    text = " ".join(line.text for line in idx.ocr)
    for phrase in ("Coffee Grinder Z9", "$129.50", "Amara Singh", "4,280"):
        assert phrase in text
    assert idx.stage_info("speech")["source"] == "subtitles:conference.vtt"
    assert [line.text for line in idx.speech][1].startswith("Our keynote speaker")
    tone = [e for e in idx.audio_events if e.label == "tone"]
    assert tone and tone[0].start == pytest.approx(21.0, abs=0.6)
    assert any(e.label == "burst" and e.start == pytest.approx(24.0, abs=0.6) for e in idx.audio_events)


def test_second_build_is_a_cache_hit_and_a_changed_setting_reruns_only_its_stages(foreign, settings):
    first, second, third = [], [], []
    build_index(foreign.path, settings, report=first.append)
    manifest = json.loads((index_dir_for(foreign.path, file_fingerprint(foreign.path), settings) / "manifest.json").read_text())
    build_index(foreign.path, settings, report=second.append)
    assert _runs(first) == {s.name for s in STAGES}
    assert _runs(second) == set() and "up to date" in second[0]
    settings.index = settings.index.model_copy(update={"ocr_min_score": 0.6})
    rebuilt = build_index(foreign.path, settings, report=third.append)
    assert _runs(third) == {"ocr", "segments", "lexical", "text_vectors"}  # keyframe embeddings do not depend on OCR
    assert rebuilt.manifest.stages["frames"].finished_at == manifest["stages"]["frames"]["finished_at"]


class _FlakyReader:
    """An OCR backend that notes what it recognises and, when told to, stops like a Ctrl-C when it
    reads ``stop_at``."""

    name = "counting-ocr"

    def __init__(self, stop_at=None):
        from staragent.models.ocr import RapidOcrReader

        self.inner = RapidOcrReader()
        self.min_score = self.inner.min_score
        self.texts: list[str] = []
        self.stop_at = stop_at

    def detect(self, image):
        return self.inner.detect(image)

    def recognize(self, image, quads):
        found = self.inner.recognize(image, quads)
        if self.stop_at is not None and any(self.stop_at in text for text, _ in found):
            raise KeyboardInterrupt
        self.texts += [text for text, _ in found]
        return found


def _pool(settings, reader):
    pool = ModelPool(settings)
    pool.register(ModelSpec("ocr", lambda s, d: reader))
    return pool


def test_interrupted_build_resumes_without_redoing_finished_work(foreign, settings):
    flaky = _FlakyReader(stop_at="Live Demo")  # the third slide, 20 s in: two pieces of the OCR pass are done
    with pytest.raises(KeyboardInterrupt):
        build_index(foreign.path, settings, _pool(settings, flaky))
    directory = index_dir_for(foreign.path, file_fingerprint(foreign.path), settings)
    partial = read_jsonl(directory / "ocr.partial.jsonl")
    assert len(partial) == 3  # the fingerprint line and the first two pieces (10 s each)
    assert not (directory / "segments.jsonl").exists()

    resumed = _FlakyReader()
    index = build_index(foreign.path, settings, _pool(settings, resumed))
    assert not any("Amara" in text for text in resumed.texts)  # the second slide was read before the interruption
    assert "Amara Singh" in " ".join(line.text for line in index.ocr)
    assert not (directory / "ocr.partial.jsonl").exists()
    spans = {line.text: (line.start, line.end) for line in index.ocr}
    assert spans["Attendance"] == (28.0, pytest.approx(38.0, abs=0.2))  # one line across the checkpoint at 30 s


KILL_SCRIPT = """
import sys, time
from staragent.config import load_settings
from staragent.index.builder import build_index
from staragent.models.pool import ModelPool, ModelSpec
from staragent.models.ocr import RapidOcrReader

class Slow(RapidOcrReader):
    def recognize(self, image, quads):
        time.sleep(0.5)
        return super().recognize(image, quads)

settings = load_settings(cache_dir=sys.argv[2], progress=False)
pool = ModelPool(settings)
pool.register(ModelSpec("ocr", lambda s, d: Slow()))
build_index(sys.argv[1], settings, pool)
"""


def test_a_killed_process_leaves_only_finished_stages_and_the_next_build_completes(foreign, settings):
    directory = index_dir_for(foreign.path, file_fingerprint(foreign.path), settings)
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(foreign.path), str(settings.cache_dir)], cwd=Path(__file__).parent.parent)
    partial = directory / "ocr.partial.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and not (partial.exists() and len(partial.read_text().splitlines()) >= 2):
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    recorded = directory / "manifest.json"
    finished = json.loads(recorded.read_text())["stages"] if recorded.exists() else {}
    assert "ocr" not in finished and "segments" not in finished
    for record in finished.values():  # every recorded stage has its outputs in place
        assert record["fingerprint"]
    messages = []
    index = build_index(foreign.path, settings, report=messages.append)
    assert "ocr" in _runs(messages) and not set(finished) & _runs(messages)  # finished stages are not run again
    assert len(index.segments) > 3


LOCK_SCRIPT = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
lock.release()
"""


def test_a_second_process_waits_for_the_first(foreign, settings):
    lock = lock_path_for(file_fingerprint(foreign.path), settings)
    holder = subprocess.Popen([sys.executable, "-c", LOCK_SCRIPT, str(lock), "2"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    messages = []
    started = time.time()
    build_index(foreign.path, settings, report=messages.append)
    holder.wait()
    assert "waiting" in messages[0]
    assert time.time() - started >= 1.5


def test_bad_input_leaves_no_index_behind(tmp_path, settings, monkeypatch):
    video = make_video(tmp_path / "v.mp4", [Slide(3, ["x"])], [Sound(0.5, 2.5, "tone")], subtitles=None)

    def broken(*args, **kwargs):
        raise MediaError("v.mp4 could not be decoded past 1.0 s")
        yield  # pragma: no cover

    monkeypatch.setattr("staragent.media.scan_samplings", broken)  # the decoding pass every frame reader goes through
    with pytest.raises(MediaError):
        build_index(video.path, settings)
    assert not index_dir_for(video.path, file_fingerprint(video.path), settings).exists()


def test_truncated_faststart_file_is_caught_before_any_work(tmp_path, settings):
    video = make_video(tmp_path / "long.mp4", [Slide(8, ["a"]), Slide(8, ["b"])], [Sound(1, 3, "tone")], subtitles=None, faststart=True)
    data = video.path.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: int(len(data) * 0.4)])
    with pytest.raises(MediaError, match="truncated|corrupt"):
        build_index(cut, settings)
    assert not settings.index_root.exists() or not any(settings.index_root.iterdir())


def test_a_video_without_sound_is_indexed_from_its_pictures(tmp_path, settings):
    video = make_video(tmp_path / "silent.mp4", [Slide(4, ["Silent Slide 77"])], audio=False, subtitles=None)
    index = build_index(video.path, settings)
    assert index.speech == [] and not index.has_audio and index.sound_events == []
    assert index.stage_info("speech")["source"].startswith("none") and "asr" not in index.manifest.models  # no recogniser for silence
    assert "audio_tagger" not in index.manifest.models
    assert "Silent Slide 77" in index.segments[0].ocr_text
    settings.index = settings.index.model_copy(update={"require_audio": True})  # unless sound is required
    with pytest.raises(MediaError, match="no audio stream.*--require-audio"):
        build_index(video.path, settings)


def test_a_copy_under_another_name_reuses_the_index_and_tools_read_the_new_path(foreign, settings, tmp_path):
    import shutil

    first = build_index(foreign.path, settings)
    moved = tmp_path / "elsewhere" / "renamed talk.mp4"
    moved.parent.mkdir()
    shutil.copy(foreign.path, moved)
    shutil.copy(foreign.path.with_suffix(".vtt"), moved.with_suffix(".vtt"))  # its subtitles travel with it
    messages = []
    again = build_index(moved, settings, report=messages.append)
    assert again.dir == first.dir and _runs(messages) == set()
    assert again.video_path == moved.resolve()
    bare = tmp_path / "no-subtitles-beside-it.mp4"  # a copy without its .vtt keeps the transcript it had
    shutil.copy(foreign.path, bare)
    messages = []
    kept = build_index(bare, settings, report=messages.append)
    assert kept.dir == first.dir and _runs(messages) == set() and kept.speech == first.speech
    settings.index = settings.index.model_copy(update={"subtitles": False})  # ... unless told to listen instead
    messages = []
    build_index(bare, settings, report=messages.append)
    assert "speech" in _runs(messages)


def test_embedded_subtitle_stream_is_used_for_speech(tmp_path, settings):
    from media_factory import Cue

    video = make_video(tmp_path / "e.mkv", [Slide(5, ["E"])], [Sound(1, 3, "speech")], [Cue(1.0, 3.0, "Embedded words here")], subtitles="embedded")
    index = build_index(video.path, settings)
    assert index.stage_info("speech")["source"].startswith("subtitle stream")
    assert index.speech[0].text == "Embedded words here"


def test_without_subtitles_whisper_transcribes_speech_with_word_times(tmp_path, settings):
    import shutil

    from media_factory import Cue

    if not shutil.which("espeak-ng"):
        pytest.skip("espeak-ng is not installed (make test installs it)")
    # two sentences with a pause between them: one window for the recogniser, two lines with their own times
    cues = [Cue(1.0, 4.5, "The museum opens at nine in the morning."), Cue(6.0, 8.5, "Tickets cost twelve euros.")]
    video = make_video(tmp_path / "spoken.mp4", [Slide(9, ["Speech"])], [Sound(c.start, c.end, "speech") for c in cues], cues, subtitles=None)
    index = build_index(video.path, settings)
    info = index.stage_info("speech")
    assert info["source"] == "faster-whisper:base" and index.manifest.models["asr"] == "faster-whisper:base"
    assert info["language"] == "en"
    heard = " ".join(line.text for line in index.speech).lower()
    wanted = [("museum",), ("opens",), ("nine", "9"), ("morning",), ("ticket",), ("cost",), ("twelve", "12"), ("euro", "€")]
    assert sum(any(w in heard for w in alternatives) for alternatives in wanted) >= 7, heard
    assert len(index.speech) >= 2  # a line per sentence, each with its own times
    first, second = index.speech[0], index.speech[-1]
    assert 0.8 <= first.start < first.end <= 4.7 and 5.8 <= second.start < second.end <= 9.0, index.speech
    assert "museum" in first.text.lower() and "ticket" in second.text.lower()
    words = [w for line in index.speech for w in line.words]
    assert all(a.start <= b.start for a, b in zip(words, words[1:])) and all(first.start <= w.start <= w.end <= second.end for w in words)


def test_a_cue_past_the_end_is_cut_there_and_searchable_and_dropped_cues_are_reported(tmp_path, settings, caplog):
    video = make_video(tmp_path / "v.mp4", [Slide(4, ["x"])], [Sound(0.5, 3.5, "tone")], subtitles=None)
    (tmp_path / "v.srt").write_text(
        "1\n00:00:01,000 --> 00:00:02,000\nA kettle whistles.\n\n"
        "2\n00:00:03,000 --> 00:00:09,000\nThe lighthouse keeper waves goodbye.\n\n"
        "3\n00:00:06,000 --> 00:00:05,000\nBackwards.\n\n"
        "4\n00:00:20,000 --> 00:00:21,000\nLong after the end.\n",
        encoding="utf-8",
    )
    with caplog.at_level("WARNING", logger="staragent.index"):
        index = build_index(video.path, settings)
    assert "dropped 2 cues (1 ending before they start, 1 starting after the video ends); 1 cue cut at the end" in caplog.text
    assert index.stage_info("speech")["lines"] == 2
    from staragent.index.hybrid_search import cross_modal_search

    hits = cross_modal_search(index, "lighthouse keeper", ["speech"], 3).hits
    assert hits and hits[0].evidence[0].end <= index.duration + 0.01
