import numpy as np

from staragent.media import SAMPLE_RATE
from staragent.models.audio import detect_events, measure, summarize


def _clip():
    rng = np.random.default_rng(1)
    t = np.arange(20 * SAMPLE_RATE) / SAMPLE_RATE
    audio = np.zeros_like(t, dtype=np.float32)
    audio[(t >= 2) & (t < 4)] = 0.3 * np.sin(2 * np.pi * 1000 * t[(t >= 2) & (t < 4)])
    audio[(t >= 8) & (t < 9)] = rng.uniform(-0.4, 0.4, int(SAMPLE_RATE))
    audio[(t >= 12) & (t < 17)] = 0.2 * rng.standard_normal(int(5 * SAMPLE_RATE))
    return audio.astype(np.float32)


def _first(events, label):
    return next(e for e in events if e.label == label)


def test_tone_noise_burst_and_silence_are_told_apart():
    frames = measure(_clip(), window=0.5)
    events = detect_events(frames, speech_spans=[])
    tone = _first(events, "tone")
    assert (tone.start, tone.end) == (2.0, 4.0) and "1000 Hz" in tone.detail
    burst = _first(events, "burst")
    assert burst.start == 8.0 and burst.end == 9.0
    noise = _first(events, "noise")
    assert noise.start == 12.0 and noise.end == 17.0
    assert _first(events, "silence").start == 0.0


def test_speech_spans_take_precedence_over_sound_labels():
    frames = measure(_clip(), window=0.5)
    events = detect_events(frames, speech_spans=[(12.0, 17.0)])
    assert any(e.label == "speech" and e.start == 12.0 for e in events)
    assert not any(e.label == "noise" for e in events)


def test_summary_over_a_range():
    frames = measure(_clip(), window=0.5)
    events = detect_events(frames, [])
    loud = summarize(frames, events, 2.0, 4.0)
    quiet = summarize(frames, events, 5.0, 7.0)
    assert loud.loudness_db > -20 and quiet.silence_ratio == 1.0
    assert "tone" in loud.describe() and quiet.events == []


def _tonal_sounds():
    """Two tonal sounds that change in loudness, each 4 s: a note struck again and again at one
    pitch, then a pitch that slides up and down as a hinge's or a siren's does."""
    t = np.arange(14 * SAMPLE_RATE) / SAMPLE_RATE
    audio = np.zeros_like(t)
    struck = (t >= 1) & (t < 5)
    since_strike = (t[struck] - 1) % 0.8
    audio[struck] = 0.3 * np.exp(-4 * since_strike) * (np.sin(2 * np.pi * 660 * t[struck]) + 0.4 * np.sin(2 * np.pi * 1320 * t[struck]))
    slid = (t >= 8) & (t < 12)
    hz = 650 + 250 * np.sin(2 * np.pi * 0.9 * (t[slid] - 8))
    phase = 2 * np.pi * np.cumsum(hz) / SAMPLE_RATE
    audio[slid] = 0.3 * (0.6 + 0.4 * np.sin(2 * np.pi * 2.5 * t[slid])) * np.sin(phase)
    return audio.astype(np.float32)


def test_a_tonal_sound_is_told_by_whether_its_pitch_holds_or_slides():
    events = detect_events(measure(_tonal_sounds(), window=0.5), speech_spans=[])
    struck = next(e for e in events if e.start < 3 < e.end)
    slid = next(e for e in events if e.start < 10 < e.end)
    assert struck.label == slid.label == "sound"
    assert "bell" in struck.detail and "slid" not in struck.detail and "creak" not in struck.detail
    assert "slid" in slid.detail and "creak" in slid.detail and "bell" not in slid.detail
