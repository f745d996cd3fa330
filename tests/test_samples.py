"""The synthetic sample videos: files, timings, legibility, sound levels, determinism, input checks."""

from __future__ import annotations

import re
from collections import defaultdict
from itertools import pairwise

import numpy as np
import pytest

from staragent.errors import InputError, ModelUnavailable
from staragent.index.subtitles import parse_subtitles
from staragent.media import frames_at, load_audio, probe
from staragent.samples import SampleScript, build_script, generate_sample_video, sample_paths
from staragent.samples.pools import BALL_COLOURS

MINUTES = 1.5
SEED = 3


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """A 90-second sample: four slides, a ball animation, a beep, a pause and a noise burst."""
    out = tmp_path_factory.mktemp("sample") / "talk.mp4"
    script = generate_sample_video(out, minutes=MINUTES, seed=SEED)
    return sample_paths(out), script


def _rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples)))) if samples.size else 0.0


def _inner(start: float, end: float, margin: float = 0.15) -> tuple[float, float]:
    """A span shrunk at both ends, away from codec ringing at its edges."""
    return start + margin, end - margin


def test_video_has_requested_length_size_rate_and_both_streams(sample):
    paths, script = sample
    info = probe(paths.video)
    assert info.duration == pytest.approx(MINUTES * 60, abs=0.5)
    assert script.duration == pytest.approx(MINUTES * 60, abs=0.05)
    assert info.has_video and info.has_audio
    assert (info.video_codec, info.audio_codec) == ("h264", "aac")
    assert (info.width, info.height) == (640, 360)
    assert info.fps == pytest.approx(25)


def test_sidecar_files_are_complete_and_no_temporary_files_remain(sample):
    paths, script = sample
    assert paths.subtitles.name == "talk.srt" and paths.facts.name == "talk.facts.json"
    assert SampleScript.load(paths.facts) == script
    assert sorted(p.name for p in paths.video.parent.iterdir()) == ["talk.facts.json", "talk.mp4", "talk.srt"]


def test_subtitles_match_the_narration_and_lie_inside_the_video(sample):
    paths, script = sample
    cues = parse_subtitles(paths.subtitles)  # the reader the index uses
    assert len(cues) == len(script.narration) > 0
    for cue, spoken in zip(cues, script.narration, strict=True):
        assert cue.text == spoken.text
        assert cue.start == pytest.approx(spoken.start, abs=0.001)
        assert cue.end == pytest.approx(spoken.end, abs=0.001)
        assert 0 <= cue.start < cue.end <= script.duration
    assert all(a.end <= b.start for a, b in pairwise(cues)), "cues overlap"


def test_every_fact_lies_inside_the_video_and_ocr_facts_inside_their_slide(sample):
    _, script = sample
    assert {f.modality for f in script.facts} == {"ocr", "speech", "audio", "visual"}
    assert len({f.id for f in script.facts}) == len(script.facts)
    for fact in script.facts:
        assert 0 <= fact.start < fact.end <= script.duration, fact
        slide = script.slides[fact.slide]
        if fact.modality == "ocr":
            assert slide.start <= fact.start and fact.end <= slide.end, fact
            if fact.kind == "lookup":
                assert fact.text in slide.lines
        if fact.modality == "speech":
            assert fact.text in {c.text for c in script.narration if c.start == fact.start and c.end == fact.end}


def test_ocr_reads_the_slide_text_from_a_decoded_frame(sample):
    rapidocr = pytest.importorskip("rapidocr_onnxruntime")
    paths, script = sample
    facts = [f for f in script.facts if f.modality == "ocr" and f.kind == "lookup" and f.slide == 0]
    slide = script.slides[0]
    [(_, frame)] = frames_at(paths.video, [(slide.start + slide.end) / 2])
    result, _ = rapidocr.RapidOCR()(frame)
    read = [text for _, text, _ in result or []]
    # rapidocr sometimes drops the space after a colon; every character must still be right.
    squeezed = {re.sub(r"\s+", "", text) for text in read}
    assert facts and all(re.sub(r"\s+", "", f.text) in squeezed for f in facts), read
    assert any(f.text in read for f in facts), read
    assert slide.title in read


def test_the_ball_animation_shows_a_ball_of_the_stated_colour(sample):
    paths, script = sample
    [motion] = [s for s in script.slides if s.kind == "motion"]
    [fact] = [f for f in script.facts if f.modality == "visual"]
    assert fact.answer == motion.ball and fact.slide == motion.index
    [(_, frame)] = frames_at(paths.video, [(motion.start + motion.end) / 2], max_width=None)
    distance = np.abs(frame.astype(int) - np.array(BALL_COLOURS[motion.ball])).sum(axis=2)
    assert (distance < 60).sum() > 0.01 * frame.shape[0] * frame.shape[1]


def test_audio_is_loud_during_speech_and_tones_and_quiet_during_pauses(sample):
    paths, script = sample
    audio = load_audio(paths.video)
    rate = 16_000

    def level(start: float, end: float) -> float:
        lo, hi = _inner(start, end)
        return _rms(audio[int(lo * rate) : int(hi * rate)])

    assert all(level(c.start, c.end) > 0.02 for c in script.narration)
    kinds = {e.kind for e in script.audio_events}
    assert {"tone", "silence", "noise"} <= kinds
    for event in script.audio_events:
        if event.kind == "silence":
            assert level(event.start, event.end) < 0.002, event
        else:
            assert level(event.start, event.end) > 0.05, event


def test_same_seed_gives_the_same_script_and_another_seed_other_facts(sample):
    _, script = sample
    assert build_script(MINUTES, seed=SEED) == script
    other = build_script(MINUTES, seed=SEED + 1)
    assert {f.text for f in other.facts if f.modality == "ocr"} != {f.text for f in script.facts if f.modality == "ocr"}


def test_synthetic_voice_is_used_when_tts_is_off_and_reads_as_speech_to_vad(tmp_path):
    out = tmp_path / "buzz.mp4"
    script = generate_sample_video(out, minutes=0.25, seed=1, tts=False)
    assert script.tts == "synthetic"
    assert probe(out).duration == pytest.approx(15, abs=0.5)
    audio = load_audio(out)
    assert all(_rms(audio[int(c.start * 16_000) : int(c.end * 16_000)]) > 0.02 for c in script.narration)
    vad = pytest.importorskip("faster_whisper.vad")
    speech = vad.get_speech_timestamps(audio, vad.VadOptions(min_silence_duration_ms=300))
    for cue in script.narration:
        middle = (cue.start + cue.end) / 2 * 16_000
        assert any(s["start"] <= middle <= s["end"] for s in speech), cue


def test_without_espeak_the_default_falls_back_to_the_synthetic_voice(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert build_script(0.2, seed=2).tts == "synthetic"
    with pytest.raises(ModelUnavailable, match="espeak-ng"):
        build_script(0.2, seed=2, tts=True)


def test_rendering_is_byte_for_byte_reproducible(tmp_path):
    for name in ("one.mp4", "two.mp4"):
        generate_sample_video(tmp_path / name, minutes=0.2, seed=5, tts=False)
    for suffix in (".mp4", ".srt", ".facts.json"):
        assert (tmp_path / f"one{suffix}").read_bytes() == (tmp_path / f"two{suffix}").read_bytes(), suffix


def test_an_hour_long_script_never_repeats_an_entity_and_keeps_speech_off_sound_events():
    script = build_script(60, seed=0, tts=False)
    assert script.duration == 3600
    slides = [s for s in script.slides if s.kind == "slide"]
    assert len(slides) >= 150
    assert len({s.title for s in slides}) == len(slides)
    topic_slides = defaultdict(set)
    for fact in script.facts:
        topic_slides[fact.topic].add(fact.slide)
    assert all(len(found) == 1 for found in topic_slides.values()), "an entity appears on two slides"
    assert len({f.question for f in script.facts}) == len(script.facts)
    assert {f.kind for f in script.facts} == {"lookup", "arithmetic"}
    lengths = [s.end - s.start for s in slides[:-1]]
    assert 15 <= float(np.median(lengths)) <= 25 and min(lengths) >= 10 and max(lengths) <= 40
    for a, b in pairwise(script.slides):
        assert a.end == b.start
    for event in script.audio_events:
        clearance = 0.5 if event.kind != "silence" else 0.0
        for cue in script.narration:
            assert cue.end + clearance <= event.start or event.end + clearance <= cue.start, (cue, event)
    silences = [e for e in script.audio_events if e.kind == "silence"]
    assert len(silences) >= 5 and all(3 <= e.end - e.start <= 8 for e in silences)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"minutes": 0}, "positive"),
        ({"minutes": -2}, "positive"),
        ({"minutes": 0.05}, "too short"),
        ({"minutes": 1, "width": 160, "height": 90}, "too small"),
        ({"minutes": 1, "width": 641}, "even"),
        ({"minutes": 1, "fps": 0}, "fps"),
        ({"minutes": 1, "seed": "seven"}, "seed"),
    ],
)
def test_bad_settings_raise_input_error(tmp_path, kwargs, message):
    with pytest.raises(InputError, match=message):
        generate_sample_video(tmp_path / "x.mp4", **kwargs)
    assert not (tmp_path / "x.mp4").exists()


def test_unwritable_or_odd_outputs_raise_input_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(InputError, match="cannot write"):
        generate_sample_video(blocker / "x.mp4", minutes=0.5)
    with pytest.raises(InputError, match=r"\.mp4"):
        generate_sample_video(tmp_path / "x.avi", minutes=0.5)
    with pytest.raises(InputError, match="directory"):
        generate_sample_video(tmp_path, minutes=0.5)


def test_a_failed_render_leaves_no_video_under_the_final_name(tmp_path, monkeypatch):
    import staragent.samples.generate as generate

    def broken_render(script, voice, path, progress=False):
        path.write_bytes(b"half an mp4")
        raise RuntimeError("killed mid-render")

    monkeypatch.setattr(generate, "render_video", broken_render)
    with pytest.raises(RuntimeError):
        generate_sample_video(tmp_path / "talk.mp4", minutes=0.25, tts=False)
    assert list(tmp_path.iterdir()) == []
