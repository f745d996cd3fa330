"""Acoustic statistics: the offline profile's audio understanding.

Audio is cut into fixed windows; for each we measure loudness (dBFS), spectral flatness (tonal
sounds are near 0, noise near 1), the dominant frequency and how far that frequency moves within the
window (a bell holds its pitch; a creaking hinge, a siren or a cat slides it). Windows are then labelled and merged
into events: silence, tone, noise, burst (a short sound much louder than its surroundings), and
sound (anything else that is not speech). It cannot tell a dog from a doorbell, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..media import SAMPLE_RATE
from ..records import AcousticEvent, AudioSummary

SILENCE_DB = -45.0
TONE_FLATNESS = 0.02
TONE_PEAK_SHARE = 0.5
TONE_STEADINESS = 0.25  # a tone's loudness barely moves within a window; a voice's does
NOISE_FLATNESS = 0.25
SLIDING_PITCH = 0.6
"""semitones the dominant frequency moves per tenth of a window, at the median, above which a tonal
sound's pitch slides rather than holds (a struck bell: 0.1-0.3; a creaking hinge: 1-2)"""
SLIDING_MIN_SECONDS = 1.5  # a shorter tonal fragment is too brief to tell a slide from a change of note
BURST_RISE_DB = 12.0
BURST_MAX_SECONDS = 3.0


@dataclass
class AcousticFrames:
    """Per-window measurements; window ``i`` covers ``[times[i], times[i] + window)``."""

    window: float
    times: np.ndarray
    rms_db: np.ndarray
    flatness: np.ndarray
    peak_hz: np.ndarray
    peak_share: np.ndarray
    unsteadiness: np.ndarray
    """coefficient of variation of the loudness of ten sub-windows"""
    pitch_motion: np.ndarray
    """median move of the dominant frequency between consecutive fifths of the window, in semitones
    (a jump to a harmonic or down to the fundamental does not count as a move)"""

    def to_npz(self, path) -> None:
        np.savez(path, window=self.window, times=self.times, rms_db=self.rms_db, flatness=self.flatness,
                 peak_hz=self.peak_hz, peak_share=self.peak_share, unsteadiness=self.unsteadiness, pitch_motion=self.pitch_motion)

    @classmethod
    def from_npz(cls, path) -> AcousticFrames:
        data = np.load(path)
        return cls(float(data["window"]), data["times"], data["rms_db"], data["flatness"], data["peak_hz"], data["peak_share"],
                   data["unsteadiness"], data["pitch_motion"])

    def between(self, start: float, end: float) -> np.ndarray:
        """Indices of the windows that overlap ``[start, end)``."""
        return np.nonzero((self.times + self.window > start) & (self.times < end))[0]


def measure(audio: np.ndarray, window: float = 0.5, chunk_windows: int = 512) -> AcousticFrames:
    from scipy.fft import rfft  # in single precision, unlike numpy's

    size = max(64, int(window * SAMPLE_RATE))
    count = len(audio) // size
    times = np.arange(count, dtype=np.float64) * (size / SAMPLE_RATE)
    rms_db = np.empty(count, np.float32)
    flatness = np.empty(count, np.float32)
    peak_hz = np.empty(count, np.float32)
    peak_share = np.empty(count, np.float32)
    unsteadiness = np.empty(count, np.float32)
    pitch_motion = np.empty(count, np.float32)
    sub = size // 10
    taper = np.hanning(size).astype(np.float32)
    freqs = np.fft.rfftfreq(size, 1.0 / SAMPLE_RATE)
    for first in range(0, count, chunk_windows):  # chunks bound the memory of the FFT
        last = min(count, first + chunk_windows)
        block = audio[first * size : last * size].reshape(last - first, size)
        rms = np.sqrt(np.mean(block.astype(np.float64) ** 2, axis=1))
        rms_db[first:last] = 20 * np.log10(np.maximum(rms, 1e-6))
        parts = np.sqrt(np.mean(block[:, : sub * 10].reshape(len(block), 10, sub).astype(np.float64) ** 2, axis=2))
        unsteadiness[first:last] = parts.std(axis=1) / np.maximum(parts.mean(axis=1), 1e-9)
        power = np.abs(rfft(block * taper, axis=1)) ** 2 + 1e-12
        power[:, 0] = 1e-12  # ignore DC
        flatness[first:last] = np.exp(np.mean(np.log(power), axis=1)) / np.mean(power, axis=1)
        peak = np.argmax(power, axis=1)
        peak_hz[first:last] = freqs[peak]
        near = np.stack([np.take_along_axis(power, np.clip(peak + d, 0, power.shape[1] - 1)[:, None], 1)[:, 0] for d in range(-3, 4)])
        peak_share[first:last] = near.sum(axis=0) / power.sum(axis=1)
        pitch_motion[first:last] = _pitch_motion(block)
    return AcousticFrames(window, times, rms_db, flatness, peak_hz, peak_share, unsteadiness, pitch_motion)


# a move by one of these ratios is the peak changing harmonic, not the pitch moving
_HARMONIC_JUMPS = 12 * np.log2(np.array([1.0, 2.0, 3.0, 0.5, 1 / 3]))


def _pitch_motion(block: np.ndarray, parts: int = 5) -> np.ndarray:
    """Per row of ``block``: the median move, in semitones, of the dominant frequency between
    consecutive ``parts`` of the row. The peak is placed between FFT bins by a parabola through the
    log power of its neighbours, so that a held pitch reads as still."""
    from scipy.fft import rfft

    sub = block.shape[1] // parts
    pieces = block[:, : sub * parts].reshape(len(block), parts, sub) * np.hanning(sub).astype(np.float32)
    power = np.log(np.abs(rfft(pieces, axis=2)) ** 2 + 1e-12)
    power[:, :, :3] = -60.0  # nothing below a few bins: DC and rumble (below any log power measured)
    peak = np.clip(np.argmax(power, axis=2), 1, power.shape[2] - 2)
    left, mid, right = (np.take_along_axis(power, (peak + d)[..., None], 2)[..., 0] for d in (-1, 0, 1))
    curve = left - 2 * mid + right
    offset = np.clip(0.5 * (left - right) / np.where(np.abs(curve) < 1e-9, -1e-9, curve), -0.5, 0.5)
    offset = np.nan_to_num(offset)
    semitones = 12 * np.log2(peak + offset)
    moves = np.abs(np.diff(semitones, axis=1)[..., None] - _HARMONIC_JUMPS).min(axis=2)
    return np.median(moves, axis=1).astype(np.float32)


def _local_background(rms_db: np.ndarray, window: float, span: float = 20.0) -> np.ndarray:
    """Median loudness of the surrounding ``span`` seconds, per window."""
    from scipy.ndimage import median_filter

    size = max(3, int(span / window) | 1)
    return median_filter(rms_db, size=size, mode="nearest")


def _label(frames: AcousticFrames, speech_mask: np.ndarray) -> list[str]:
    if len(frames.rms_db) == 0:
        return []
    background = _local_background(frames.rms_db, frames.window)
    labels = []
    for i in range(len(frames.times)):
        loud = frames.rms_db[i]
        if loud < SILENCE_DB:
            labels.append("silence")
        elif frames.flatness[i] < TONE_FLATNESS and frames.peak_share[i] > TONE_PEAK_SHARE and frames.unsteadiness[i] < TONE_STEADINESS:
            labels.append("tone")
        elif speech_mask[i]:
            labels.append("speech")
        elif frames.flatness[i] > NOISE_FLATNESS:
            labels.append("noise")
        elif loud > background[i] + BURST_RISE_DB:
            labels.append("burst")
        else:
            labels.append("sound")
    return labels


def _speech_mask(frames: AcousticFrames, speech_spans: list[tuple[float, float]], min_share: float = 0.25) -> np.ndarray:
    """Windows at least ``min_share`` covered by speech (the tail of a word is still speech)."""
    covered = np.zeros(len(frames.times), np.float64)
    for start, end in speech_spans:
        lo = np.clip(start - frames.times, 0, frames.window)
        hi = np.clip(end - frames.times, 0, frames.window)
        covered += hi - lo
    return covered >= min_share * frames.window


def detect_events(frames: AcousticFrames, speech_spans: list[tuple[float, float]]) -> list[AcousticEvent]:
    """Merge labelled windows into events; a short loud stretch of noise becomes a ``burst``."""
    labels = _label(frames, _speech_mask(frames, speech_spans))
    events: list[AcousticEvent] = []
    i = 0
    while i < len(labels):
        j = i
        while j + 1 < len(labels) and labels[j + 1] == labels[i]:
            j += 1
        start = float(frames.times[i])
        end = float(frames.times[j] + frames.window)
        label = labels[i]
        loud = float(np.max(frames.rms_db[i : j + 1]))
        detail = ""
        pitch = int(round(float(np.median(frames.peak_hz[i : j + 1])), -1))
        if label == "tone":
            # what people call a short steady tone
            detail = f"beep (steady tone near {pitch} Hz)" if end - start <= BURST_MAX_SECONDS else f"steady tone near {pitch} Hz"
        elif label == "noise":
            if end - start <= BURST_MAX_SECONDS:
                label, detail = "burst", "short burst of broadband noise"
            else:
                detail = "broadband noise"
        elif label == "silence":
            detail = f"{end - start:.1f} s of silence"
        elif label == "burst":
            if end - start <= BURST_MAX_SECONDS:
                detail = "sudden loud sound"
            else:
                label = "sound"  # too long to be sudden: loud against the quiet around it
        if label == "sound" and float(np.median(frames.flatness[i : j + 1])) < TONE_FLATNESS:
            detail = _tonal_sound(pitch, float(np.median(frames.pitch_motion[i : j + 1])), end - start)
        events.append(AcousticEvent(start=round(start, 3), end=round(end, 3), label=label, detail=detail, loudness_db=round(loud, 1)))
        i = j + 1
    return _join_fragments(events)


def _tonal_sound(pitch: int, motion: float, seconds: float) -> str:
    """A tonal sound that changes in loudness, told by what its pitch does: a held pitch is struck or
    played (a bell, a chime, a note); one that keeps sliding is rubbed, blown or called (a hinge, a
    siren, an animal; music with glides reads so too). What made it stays a guess, in parentheses."""
    if seconds < SLIDING_MIN_SECONDS:
        return f"tonal sound near {pitch} Hz, changing in loudness (a chime, bell or music)"
    if motion < SLIDING_PITCH:
        return f"tonal sound near {pitch} Hz holding its pitch while it changes in loudness (a chime, bell or held note)"
    return f"tonal sound near {pitch} Hz whose pitch keeps sliding (a squeak, creak, whine or siren, an animal's call, or music)"


# Most telling first: a run of adjacent windows takes the label of its most specific part.
_SPECIFIC = ("tone", "noise", "burst", "sound")


def _join_fragments(events: list[AcousticEvent]) -> list[AcousticEvent]:
    """One sound cut into several labels by the window grid (a beep's onset and decay fall in
    windows that read as "sound") becomes one event with the most specific label."""
    out: list[AcousticEvent] = []
    for event in events:
        prev = out[-1] if out else None
        if prev and prev.label in _SPECIFIC and event.label in _SPECIFIC and abs(prev.end - event.start) < 1e-6:
            keep = prev if _SPECIFIC.index(prev.label) <= _SPECIFIC.index(event.label) else event
            label, detail = keep.label, keep.detail
            length = event.end - prev.start
            if label == "tone" and length > BURST_MAX_SECONDS:
                detail = detail.replace("beep (", "").rstrip(")") if detail.startswith("beep (") else detail
            out[-1] = AcousticEvent(start=prev.start, end=event.end, label=label, detail=detail,
                                    loudness_db=max(prev.loudness_db or -120.0, event.loudness_db or -120.0))
        else:
            out.append(event)
    return out


def summarize(frames: AcousticFrames, events: list[AcousticEvent], start: float, end: float, tags: list[str] | None = None) -> AudioSummary:
    """Loudness, silence share and the events overlapping ``[start, end)``."""
    idx = frames.between(start, end)
    inside = [e for e in events if e.end > start and e.start < end and e.label != "silence"]
    if len(idx) == 0:
        return AudioSummary(events=inside, tags=tags or [])
    db = frames.rms_db[idx]
    return AudioSummary(
        loudness_db=round(float(10 * np.log10(np.mean(10 ** (db / 10)))), 1),
        peak_db=round(float(np.max(db)), 1),
        silence_ratio=round(float(np.mean(db < SILENCE_DB)), 3),
        events=inside,
        tags=tags or [],
    )
