"""Non-speech sounds, and the mixer that lays every clip on one mono track.

An hour of 48 kHz float audio is 700 MB, so the track is never built whole: the mixer renders any
window of it on demand from the clips that overlap that window, creating each clip when first needed
and dropping it once the window has passed it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .script import AudioEventSpec

TONE_LEVEL = 0.3
NOISE_LEVEL = 0.2  # RMS
CHIME_NOTES = (1318.5, 1046.5, 784.0)  # E6, C6, G5: a falling three-note chime


def _fade(samples: np.ndarray, rate: int, seconds: float = 0.01) -> np.ndarray:
    """Ramp the ends so that a sound starts and stops without a click."""
    n = min(len(samples) // 2, int(seconds * rate))
    if n:
        ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
        samples[:n] *= ramp
        samples[-n:] *= ramp[::-1]
    return samples


def tone(frequency: float, seconds: float, rate: int) -> np.ndarray:
    t = np.arange(int(round(seconds * rate)), dtype=np.float64) / rate
    return _fade((TONE_LEVEL * np.sin(2 * math.pi * frequency * t)).astype(np.float32), rate)


def noise_burst(seconds: float, rate: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return _fade(rng.normal(0.0, NOISE_LEVEL, int(round(seconds * rate))).clip(-1, 1).astype(np.float32), rate)


def chime(seconds: float, rate: int) -> np.ndarray:
    """Three bell-like notes, each a decaying tone with a quieter octave above it."""
    out = np.zeros(int(round(seconds * rate)), np.float32)
    step = len(out) // len(CHIME_NOTES)
    for i, note in enumerate(CHIME_NOTES):
        t = np.arange(len(out) - i * step, dtype=np.float64) / rate
        bell = (np.sin(2 * math.pi * note * t) + 0.3 * np.sin(4 * math.pi * note * t)) * np.exp(-4.0 * t)
        out[i * step :] += (0.25 * bell).astype(np.float32)
    return _fade(out, rate)


def event_audio(event: AudioEventSpec, rate: int, seed: int) -> np.ndarray | None:
    """The samples of one audio event; None for a silence, which is simply left empty."""
    seconds = event.end - event.start
    if event.kind == "tone":
        return tone(event.frequency or 1000.0, seconds, rate)
    if event.kind == "noise":
        return noise_burst(seconds, rate, seed)
    if event.kind == "chime":
        return chime(seconds, rate)
    return None


def _fit(samples: np.ndarray, length: int) -> np.ndarray:
    """Cut or zero-pad to exactly ``length`` samples (resampling can be off by one)."""
    if len(samples) >= length:
        return samples[:length]
    return np.concatenate([samples, np.zeros(length - len(samples), np.float32)])


@dataclass
class _Clip:
    start: int  # first sample on the track
    length: int
    make: Callable[[], np.ndarray]
    samples: np.ndarray | None = None


class Mixer:
    """A mono track assembled from clips placed at sample offsets, rendered window by window.

    Windows must be requested in increasing order; that is what lets the mixer forget clips it has
    played.
    """

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self._clips: list[_Clip] = []
        self._next = 0  # first clip not yet started by any window
        self._live: list[_Clip] = []

    def add(self, start: float, length: int, make: Callable[[], np.ndarray]) -> None:
        """Place a clip of ``length`` samples, produced by ``make()`` when first heard, at ``start`` seconds."""
        clip = _Clip(int(round(start * self.rate)), length, make)
        bisect.insort(self._clips, clip, key=lambda c: c.start)

    def window(self, first: int, stop: int) -> np.ndarray:
        """Samples ``[first, stop)`` of the track."""
        out = np.zeros(stop - first, np.float32)
        while self._next < len(self._clips) and self._clips[self._next].start < stop:
            self._live.append(self._clips[self._next])
            self._next += 1
        for clip in self._live:
            lo, hi = max(first, clip.start), min(stop, clip.start + clip.length)
            if lo >= hi:
                continue
            if clip.samples is None:
                clip.samples = _fit(clip.make(), clip.length)
            out[lo - first : hi - first] += clip.samples[lo - clip.start : hi - clip.start]
        self._live = [c for c in self._live if c.start + c.length > stop]
        np.clip(out, -1.0, 1.0, out=out)
        return out
