"""faster-whisper (CTranslate2 Whisper): ``base`` (the bundled pack; ``small`` in the local
profile) transcribes whole videos while indexing, in batches of VAD-found speech chunks;
``large-v3`` re-transcribes (or translates) a time range on demand. Both detect the language when
it is not given (each line records it) and time every word; lines are cut at sentence ends and
pauses, so each carries its own times however long the chunk it was heard in."""

from __future__ import annotations

import bisect
import dataclasses
import math
import threading
from pathlib import Path

import numpy as np

from ..errors import ModelUnavailable
from ..media import SAMPLE_RATE
from ..records import SpeechLine, Word
from .asr import chunk_spans, speech_windows, split_words

WINDOW_SECONDS = 28.0  # Whisper hears 30 s at a time; keep a margin for the chunk edges
CHUNK_GAP = 2.0
"""seconds of non-speech between two speech spans that one chunk still spans: a chunk is padded to
30 s anyway, and words at a span's edge that VAD missed are heard (WER on real speech: 4.1 % with
gaps of 1 s, 3.8 % with 2 s; see docs/performance.md)"""
PACK_SEPARATOR = 0.5
"""seconds of silence put between two chunks that share a window when chunks are packed"""
UNHEARD_SECONDS = 4.0
"""a stretch of speech this long with no word heard in it (a piece of a packed window holds no pause
longer than ``CHUNK_GAP``) means the window's text ended early: the piece is decoded again alone"""
TASKS = ("transcribe", "translate")


def whisper_repo(model: str) -> str:
    """The Hugging Face repo of a faster-whisper size name (``small`` -> ``Systran/faster-whisper-small``)."""
    from faster_whisper import utils

    return getattr(utils, "_MODELS", {}).get(model, model)


def locate_whisper(model: str, cache_dir: Path | str | None, setting: str) -> Path:
    from .weights import locate

    return locate(whisper_repo(model), what="faster-whisper model", setting=setting, cache_dir=cache_dir, required=("model.bin", "tokenizer.json"))


def compute_type_for(setting: str, device: str) -> str:
    if setting != "auto":
        return setting
    return "float16" if device.startswith("cuda") else "int8"


class FasterWhisperRecognizer:
    """A ``SpeechRecognizer``. ``batched`` decodes many chunks per forward pass (preprocessing);
    unbatched decoding conditions each window on the previous one (refinement: better text)."""

    def __init__(
        self,
        model_dir: Path,
        label: str,
        device: str = "cpu",
        compute_type: str = "auto",
        batched: bool = True,
        batch_size: int = 16,
        beam_size: int = 5,
        cpu_threads: int = 0,
    ):
        from faster_whisper import BatchedInferencePipeline, WhisperModel

        kind, _, index = device.partition(":")
        self.compute_type = compute_type_for(compute_type, device)
        try:
            self.model = WhisperModel(
                str(model_dir), device=kind, device_index=int(index or 0), compute_type=self.compute_type, local_files_only=True,
                cpu_threads=cpu_threads,
            )
        except (RuntimeError, ValueError) as exc:
            raise ModelUnavailable(f"faster-whisper could not load {label!r} from {model_dir} on {device}: {exc}") from None
        self.name = f"faster-whisper:{label}"
        self.device = device
        self.batch_size = batch_size if batched else 1
        self.beam_size = beam_size
        self.chunk_seconds = WINDOW_SECONDS
        self.chunk_gap = CHUNK_GAP
        self.pack = batched
        """put the speech of several spans into one 30 s window (batched decoding only; see ``speech_windows``)"""
        self.options: dict = {}
        """extra keyword arguments for faster-whisper's ``transcribe`` (e.g. ``max_new_tokens``)"""
        self._pipeline = BatchedInferencePipeline(self.model) if batched else None
        self._model_file = Path(model_dir) / "model.bin"
        self._lock = threading.Lock()  # one CTranslate2 worker: calls take turns

    def memory_bytes(self) -> int:
        return self._model_file.stat().st_size if self._model_file.exists() else 0

    def windows(self, spans: list[tuple[float, float]]) -> list[list[tuple[float, float]]]:
        """What one decoding window hears: speech spans packed together (``speech_windows``), or,
        unpacked, one chunk of nearby spans each."""
        if self.pack:
            return speech_windows(spans, max_len=self.chunk_seconds, max_gap=self.chunk_gap, separator=PACK_SEPARATOR)
        return [[chunk] for chunk in chunk_spans(spans, max_len=self.chunk_seconds, max_gap=self.chunk_gap)]

    @property
    def multilingual(self) -> bool:
        return bool(self.model.model.is_multilingual)

    def transcribe(
        self,
        audio: np.ndarray,
        spans: list[tuple[float, float]] | None = None,
        language: str | None = None,
        task: str = "transcribe",
        word_timestamps: bool = True,
    ) -> list[SpeechLine]:
        """Lines with times relative to the start of ``audio``. ``spans`` (speech found by VAD)
        limits the work to speech; without them Whisper's own VAD finds it. ``task="translate"``
        writes English whatever the language spoken."""
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, not {task!r}")
        if task == "translate" and not self.multilingual:
            raise ModelUnavailable(f"{self.name} is an English-only model and cannot translate; use a multilingual one (e.g. large-v3)")
        audio = np.ascontiguousarray(audio, dtype=np.float32)
        total = len(audio) / SAMPLE_RATE
        windows = None
        if spans is not None:
            spans = [(max(0.0, a), min(total, b)) for a, b in spans if min(total, b) - max(0.0, a) > 0.1]
            windows = self.windows(spans)
            if not windows:
                return []
        options = {"beam_size": self.beam_size, **self.options, "language": language, "task": task, "word_timestamps": word_timestamps}
        lines = self._decode(audio, windows, options)
        if windows is not None and word_timestamps and any(len(w) > 1 for w in windows):
            # Whisper may end a window's text early, at a new voice after a pause, and never hear
            # the pieces after it: those are heard again, each in a window of its own
            again = [(a, b) for w in windows if len(w) > 1 for a, b in w if _unheard(lines, a, b)]
            if again:
                kept = [line for line in lines if not any(a - 0.05 <= line.start <= b + 0.05 for a, b in again)]
                lines = sorted(kept + self._decode(audio, [[piece] for piece in again], options), key=lambda line: line.start)
        return lines

    def _decode(self, audio: np.ndarray, windows: list[list[tuple[float, float]]] | None, options: dict) -> list[SpeechLine]:
        """One pass of the model over ``windows`` (all of ``audio``, found by Whisper's own VAD, when None)."""
        timeline = _Timeline()
        with self._lock:
            if self._pipeline is not None:
                spans = None
                if windows is not None:
                    audio, spans, timeline = _packed(audio, windows)
                clips = [{"start": a, "end": b} for a, b in spans] if spans is not None else None
                segments, info = self._pipeline.transcribe(
                    audio, clip_timestamps=clips, vad_filter=clips is None, batch_size=self.batch_size, **options
                )
            else:
                clips = [t for window in windows for span in window for t in span] if windows is not None else "0"
                segments, info = self.model.transcribe(audio, clip_timestamps=clips, vad_filter=windows is None, **options)
            segments = list(segments)  # decoding happens while iterating
        spoken = options["language"] or info.language
        return [line for s in segments for line in self._lines(s, spoken, timeline)]

    def _lines(self, segment, language: str | None, timeline: _Timeline) -> list[SpeechLine]:
        """The segment as lines: one per sentence or stretch between pauses when its words are
        timed (a batched chunk comes back as one segment of up to 30 s), else the segment whole.
        ``timeline`` moves times in what was decoded to the audio given (see ``_packed``)."""
        confidence = round(math.exp(min(0.0, segment.avg_logprob)), 3)
        timed = [dataclasses.replace(w, **dict(zip(("start", "end"), timeline.word(w.start, w.end)))) for w in (segment.words or []) if w.word.strip()]
        groups = split_words(timed) if timed else []
        if not groups:
            text = segment.text.strip()
            start, end = round(timeline.time(segment.start), 3), round(max(timeline.time(segment.end), timeline.time(segment.start)), 3)
            return [SpeechLine(start=start, end=end, text=text, source=self.name, confidence=confidence, language=language)] if text else []
        lines = []
        for group in groups:
            words = [Word(start=round(w.start, 3), end=round(w.end, 3), text=w.word.strip(), confidence=round(float(w.probability), 3)) for w in group]
            lines.append(SpeechLine(
                start=words[0].start, end=max(words[-1].end, words[0].start), text="".join(w.word for w in group).strip(),
                source=self.name, confidence=confidence, language=language, words=words,
            ))
        return lines


def _unheard(lines: list[SpeechLine], start: float, end: float) -> bool:
    """Whether the words of ``lines`` leave a stretch of at least ``UNHEARD_SECONDS`` between
    ``start`` and ``end`` (speech found by VAD) without a word."""
    words = sorted((w.start, w.end) for line in lines for w in line.words or [] if start - 0.05 <= w.start <= end + 0.05)
    edges = [start, *[t for pair in words for t in pair], end]
    return max(b - a for a, b in zip(edges[::2], edges[1::2])) >= UNHEARD_SECONDS


class _Timeline:
    """Maps times in what the recogniser heard back to the audio it was given. Unpacked, the two
    are the same; packed (``packed``), a time in a separator goes to the nearer edge of the pieces
    either side, and a word stays inside the piece where it starts."""

    def __init__(self, pieces: list[tuple[float, float, float]] | None = None):
        self.pieces = pieces or []  # (start in what was heard, start in the audio, seconds)
        self.starts = [p[0] for p in self.pieces]

    def _piece(self, t: float) -> int:
        i = max(0, bisect.bisect_right(self.starts, t) - 1)
        heard, _, seconds = self.pieces[i]
        if i + 1 < len(self.pieces) and self.starts[i + 1] - t < t - heard - seconds:
            return i + 1  # in a separator, nearer the next piece
        return i

    def _within(self, i: int, t: float) -> float:
        heard, start, seconds = self.pieces[i]
        return start + min(max(0.0, t - heard), seconds)

    def time(self, t: float) -> float:
        return self._within(self._piece(t), t) if self.pieces else t

    def word(self, start: float, end: float) -> tuple[float, float]:
        if not self.pieces:
            return start, end
        i = self._piece(start)
        return self._within(i, start), self._within(i, max(start, end))


def _packed(audio: np.ndarray, windows: list[list[tuple[float, float]]]) -> tuple[np.ndarray, list[tuple[float, float]], _Timeline]:
    """The windows' audio laid end to end, each window's pieces apart by ``PACK_SEPARATOR``
    seconds of silence; the windows' spans in that audio; and its timeline back to ``audio``."""
    gap = np.zeros(int(PACK_SEPARATOR * SAMPLE_RATE), np.float32)
    parts: list[np.ndarray] = []
    pieces: list[tuple[float, float, float]] = []
    spans = []
    at = 0
    for window in windows:
        first = at
        for i, (a, b) in enumerate(window):
            if i:
                parts.append(gap)
                at += gap.size
            piece = audio[int(a * SAMPLE_RATE) : int(b * SAMPLE_RATE)]
            pieces.append((at / SAMPLE_RATE, a, piece.size / SAMPLE_RATE))
            parts.append(piece)
            at += piece.size
        spans.append((first / SAMPLE_RATE, at / SAMPLE_RATE))
    return np.concatenate(parts) if parts else audio[:0], spans, _Timeline(pieces)
