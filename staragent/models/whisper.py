"""faster-whisper (CTranslate2 Whisper): ``base`` (the bundled pack; ``small`` in the local
profile) transcribes whole videos while indexing, in batches of VAD-found speech chunks;
``large-v3`` re-transcribes (or translates) a time range on demand. Both detect the language when
it is not given (each line records it) and time every word; lines are cut at sentence ends and
pauses, so each carries its own times however long the chunk it was heard in."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np

from ..errors import ModelUnavailable
from ..media import SAMPLE_RATE
from ..records import SpeechLine, Word
from .asr import chunk_spans, split_words

WINDOW_SECONDS = 28.0  # Whisper hears 30 s at a time; keep a margin for the chunk edges
CHUNK_GAP = 2.0
"""seconds of non-speech between two speech spans that one chunk still spans: a chunk is padded to
30 s anyway, and words at a span's edge that VAD missed are heard (WER on real speech: 4.1 % with
gaps of 1 s, 3.8 % with 2 s; see docs/performance.md)"""
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
        self.options: dict = {}
        """extra keyword arguments for faster-whisper's ``transcribe`` (e.g. ``max_new_tokens``)"""
        self._pipeline = BatchedInferencePipeline(self.model) if batched else None
        self._model_file = Path(model_dir) / "model.bin"
        self._lock = threading.Lock()  # one CTranslate2 worker: calls take turns

    def memory_bytes(self) -> int:
        return self._model_file.stat().st_size if self._model_file.exists() else 0

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
        if spans is not None:
            spans = [(max(0.0, a), min(total, b)) for a, b in chunk_spans(spans, max_len=self.chunk_seconds, max_gap=self.chunk_gap) if min(total, b) - a > 0.1]
            if not spans:
                return []
        options = {"beam_size": self.beam_size, **self.options, "language": language, "task": task, "word_timestamps": word_timestamps}
        with self._lock:
            if self._pipeline is not None:
                clips = [{"start": a, "end": b} for a, b in spans] if spans is not None else None
                segments, info = self._pipeline.transcribe(
                    audio, clip_timestamps=clips, vad_filter=clips is None, batch_size=self.batch_size, **options
                )
            else:
                clips = [t for span in spans for t in span] if spans is not None else "0"
                segments, info = self.model.transcribe(audio, clip_timestamps=clips, vad_filter=spans is None, **options)
            segments = list(segments)  # decoding happens while iterating
        spoken = language or info.language
        return [line for s in segments for line in self._lines(s, spoken)]

    def _lines(self, segment, language: str | None) -> list[SpeechLine]:
        """The segment as lines: one per sentence or stretch between pauses when its words are
        timed (a batched chunk comes back as one segment of up to 30 s), else the segment whole."""
        confidence = round(math.exp(min(0.0, segment.avg_logprob)), 3)
        timed = [w for w in (segment.words or []) if w.word.strip()]
        groups = split_words(timed) if timed else []
        if not groups:
            text = segment.text.strip()
            start, end = round(segment.start, 3), round(max(segment.end, segment.start), 3)
            return [SpeechLine(start=start, end=end, text=text, source=self.name, confidence=confidence, language=language)] if text else []
        lines = []
        for group in groups:
            words = [Word(start=round(w.start, 3), end=round(w.end, 3), text=w.word.strip(), confidence=round(float(w.probability), 3)) for w in group]
            lines.append(SpeechLine(
                start=words[0].start, end=max(words[-1].end, words[0].start), text="".join(w.word for w in group).strip(),
                source=self.name, confidence=confidence, language=language, words=words,
            ))
        return lines
