"""Narration audio: espeak-ng when it is installed, otherwise a speech-like synthetic signal.

A ``Voice`` speaks subtitle sentences and keeps the clips in memory, so the timeline can be laid out
from each clip's measured length and the renderer later mixes exactly those clips. Clips are trimmed
of leading and trailing silence, so a cue's start and end are where the voice starts and stops.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import ModelUnavailable

NATIVE_RATE = 22_050  # espeak-ng's output rate; the synthetic voice uses it too
WORDS_PER_MINUTE = 160
PEAK = 0.6

_DOLLARS = re.compile(r"\$(\d+(?:\.\d+)?)( million)?")


def spoken_form(text: str) -> str:
    """Rewrite a subtitle line the way a person reads it aloud ("$249" -> "249 dollars")."""
    return _DOLLARS.sub(lambda m: f"{m.group(1)}{m.group(2) or ''} dollars", text)


def _trim(samples: np.ndarray, rate: int) -> np.ndarray:
    """Cut leading and trailing silence, keeping 20 ms either side of the voice."""
    loud = np.flatnonzero(np.abs(samples) > 0.01 * np.abs(samples).max(initial=1e-9))
    if loud.size == 0:
        return samples[:0]
    pad = int(0.02 * rate)
    return samples[max(0, loud[0] - pad) : loud[-1] + pad + 1]


def _normalise(samples: np.ndarray) -> np.ndarray:
    """Scale to a common peak level and store as 16-bit to keep an hour of clips small."""
    peak = float(np.abs(samples).max(initial=0.0))
    if peak > 0:
        samples = samples * (PEAK / peak)
    return np.round(samples * 32767).astype(np.int16)


class Voice:
    """Speaks sentences in parallel and remembers the clips (16-bit mono at ``NATIVE_RATE``)."""

    name = "voice"
    sample_rate = NATIVE_RATE

    def __init__(self) -> None:
        self._clips: dict[str, np.ndarray] = {}

    def prepare(self, sentences: list[str], progress: bool = False) -> None:
        """Speak every sentence not spoken yet, a few at a time."""
        from tqdm import tqdm

        missing = list(dict.fromkeys(s for s in sentences if s not in self._clips))
        if not missing:
            return
        workers = max(1, min(len(missing), os.cpu_count() or 1))
        with ThreadPoolExecutor(workers) as pool:
            clips = pool.map(self._speak, missing)
            for text, clip in zip(missing, tqdm(clips, total=len(missing), desc="speech", unit="line", disable=not progress), strict=True):
                self._clips[text] = clip

    def duration(self, sentence: str) -> float:
        """Length in seconds of the clip for ``sentence`` (spoken on first use)."""
        self.prepare([sentence])
        return len(self._clips[sentence]) / self.sample_rate

    def clip(self, sentence: str, sample_rate: int) -> np.ndarray:
        """The clip for ``sentence`` as float32 at ``sample_rate``."""
        from scipy.signal import resample_poly

        self.prepare([sentence])
        samples = self._clips[sentence].astype(np.float32) / 32767
        if sample_rate != self.sample_rate:
            g = math.gcd(sample_rate, self.sample_rate)
            samples = resample_poly(samples, sample_rate // g, self.sample_rate // g).astype(np.float32)
        return samples

    def _speak(self, sentence: str) -> np.ndarray:
        raise NotImplementedError


class EspeakVoice(Voice):
    """espeak-ng, run once per sentence as a subprocess writing WAV to stdout."""

    name = "espeak-ng"

    def __init__(self, executable: str) -> None:
        super().__init__()
        self.executable = executable

    def _speak(self, sentence: str) -> np.ndarray:
        cmd = [self.executable, "-v", "en-us", "-s", str(WORDS_PER_MINUTE), "--stdout", spoken_form(sentence)]
        try:
            wav = subprocess.run(cmd, capture_output=True, check=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            raise ModelUnavailable(
                f"espeak-ng could not speak {sentence!r} ({exc}); reinstall it, or pass tts=False to use the synthetic voice"
            ) from None
        rate, samples = _read_wav(wav)
        if rate != self.sample_rate:
            raise ModelUnavailable(f"espeak-ng wrote {rate} Hz audio, expected {self.sample_rate} Hz")
        return _normalise(_trim(samples, rate))


def _read_wav(data: bytes) -> tuple[int, np.ndarray]:
    """Sample rate and float samples of 16-bit mono WAV bytes.

    espeak-ng streams to stdout, so the header's data size is a placeholder; the samples run to the
    end of the buffer.
    """
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ModelUnavailable("espeak-ng did not write WAV audio")
    pos, rate = 12, 0
    while pos + 8 <= len(data):
        chunk, size = data[pos : pos + 4], int.from_bytes(data[pos + 4 : pos + 8], "little")
        if chunk == b"fmt ":
            rate = int.from_bytes(data[pos + 12 : pos + 16], "little")
        if chunk == b"data":
            body = data[pos + 8 :]
            body = body[: len(body) // 2 * 2]
            return rate, np.frombuffer(body, dtype="<i2").astype(np.float32) / 32768
        pos += 8 + size
    raise ModelUnavailable("espeak-ng wrote WAV audio without a data chunk")


# Formant frequencies (Hz) of a few vowels; the synthetic voice cycles through them.
_VOWELS = ((730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240), (530, 1840, 2480), (640, 1190, 2390), (490, 1350, 1690))


def _syllables(word: str) -> int:
    digits = sum(ch.isdigit() for ch in word)
    if digits:
        return 2 * digits  # numbers are read out as several words
    return max(1, len(re.findall(r"[aeiouy]+", word.lower())))


class SyntheticVoice(Voice):
    """A voiced buzz shaped like speech: one vowel-like burst per syllable, pauses between words.

    It carries no words, but its pitch, formants and syllable rhythm are close enough to speech that
    a voice-activity detector marks it as speech, which is what the tests of silence handling need.
    Syllables come from a small bank synthesised once, so an hour of narration takes a second.
    """

    name = "synthetic"
    PITCHES = (100, 110, 120, 130, 140)  # Hz
    LENGTHS = (0.13, 0.16, 0.19, 0.22)  # seconds

    def __init__(self) -> None:
        super().__init__()
        rng = np.random.default_rng(0)
        self._bank = {
            (vowel, pitch, length, hiss): _syllable(rng, self.sample_rate, pitch, self.LENGTHS[length], _VOWELS[vowel], hiss)
            for vowel in range(len(_VOWELS))
            for pitch in self.PITCHES
            for length in range(len(self.LENGTHS))
            for hiss in (False, True)
        }

    def _speak(self, sentence: str) -> np.ndarray:
        bank = self._bank
        rate = self.sample_rate
        rng = np.random.default_rng(zlib.crc32(sentence.encode()))
        words = spoken_form(sentence).split()
        total = sum(_syllables(w) for w in words)
        pieces: list[np.ndarray] = []
        done = 0
        for word in words:
            for _ in range(_syllables(word)):
                # The pitch falls over the sentence, as it does in a statement.
                level = min(len(self.PITCHES) - 1, int(len(self.PITCHES) * done / max(1, total)))
                pitch = self.PITCHES[-1 - level]
                key = (int(rng.integers(len(_VOWELS))), pitch, int(rng.integers(len(self.LENGTHS))), bool(rng.random() < 0.5))
                pieces.append(bank[key])
                done += 1
            gap = 0.22 if word.endswith(",") else rng.uniform(0.04, 0.08)
            pieces.append(np.zeros(int(gap * rate), np.float32))
        samples = np.concatenate(pieces[:-1]) if len(pieces) > 1 else pieces[0]
        return _normalise(_trim(samples, rate))


def _syllable(rng: np.random.Generator, rate: int, f0: float, seconds: float, formants: tuple[int, ...],
              hiss: bool) -> np.ndarray:
    """One vowel-like burst: a glottal pulse train through three formant resonators."""
    from scipy.signal import lfilter

    n = int(seconds * rate)
    phase = np.cumsum(np.full(n, f0 / rate))
    pulses = np.diff(np.floor(phase), prepend=0.0)  # one impulse per glottal cycle
    source = lfilter([1.0], [1.0, -0.9], pulses)
    voiced = np.zeros(n)
    for formant, width in zip(formants, (80, 100, 120), strict=True):
        r = math.exp(-math.pi * width / rate)
        voiced += lfilter([1 - r], [1, -2 * r * math.cos(2 * math.pi * formant / rate), r * r], source)
    if hiss:  # a consonant: a short burst of noise before the vowel
        count = int(0.04 * rate)
        voiced[:count] += np.diff(rng.normal(0, 0.05, count + 1))
    ramp = np.sin(np.linspace(0, math.pi, n)) ** 0.5
    return (voiced * ramp).astype(np.float32)


def choose_voice(tts: bool | None) -> Voice:
    """espeak-ng for ``tts=True``, the synthetic voice for ``False``, and whichever is available for None."""
    exe = shutil.which("espeak-ng")
    if tts is None:
        return EspeakVoice(exe) if exe else SyntheticVoice()
    if tts:
        if exe is None:
            raise ModelUnavailable(
                "tts=True needs espeak-ng on PATH (apt-get install espeak-ng); pass tts=None to fall back to a synthetic voice"
            )
        return EspeakVoice(exe)
    return SyntheticVoice()
