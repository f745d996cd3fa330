"""Speech recognisers. Every backend turns 16 kHz mono audio (optionally restricted to speech spans)
into ``SpeechLine``s with times relative to the start of the audio it was given."""

from __future__ import annotations

import numpy as np

from ..media import SAMPLE_RATE
from ..records import SpeechLine, Word


def chunk_spans(spans: list[tuple[float, float]], max_len: float = 20.0, max_gap: float = 1.0) -> list[tuple[float, float]]:
    """Join nearby speech spans into chunks no longer than ``max_len`` (long spans are cut)."""
    chunks: list[list[float]] = []
    for start, end in sorted(spans):
        if chunks and start - chunks[-1][1] <= max_gap and end - chunks[-1][0] <= max_len:
            chunks[-1][1] = max(chunks[-1][1], end)
            continue
        while end - start > max_len:
            chunks.append([start, start + max_len])
            start += max_len
        chunks.append([start, end])
    return [(a, b) for a, b in chunks]


def decoding_groups(recognizer, spans: list[tuple[float, float]]) -> tuple[list[list[tuple[float, float]]], list[list[tuple[float, float]]]]:
    """How ``recognizer`` is run over ``spans``: its decoding windows (what one window hears: a
    recogniser that decodes fixed windows, faster-whisper, says; else one chunk of nearby spans
    each), and the pieces of ``batch_size`` windows at a time, what one ``transcribe`` call takes.
    Silence between windows is never decoded."""
    windows = recognizer.windows(spans) if hasattr(recognizer, "windows") else [[chunk] for chunk in chunk_spans(spans)]
    group = max(1, getattr(recognizer, "batch_size", 1))
    return windows, [[piece for window in windows[i : i + group] for piece in window] for i in range(0, len(windows), group)]


def speech_windows(spans: list[tuple[float, float]], max_len: float, max_gap: float, separator: float) -> list[list[tuple[float, float]]]:
    """Speech spans put together, in order, into windows of at most ``max_len`` seconds, for a
    recogniser that pays for a whole window however little of it holds speech (Whisper hears 30 s
    at a time). A window is a list of pieces of the audio, each a stretch of spans whose gaps are
    no longer than ``max_gap`` (so that words at a span's edge that VAD missed are still heard);
    the recogniser hears ``separator`` seconds of silence between two pieces. A span longer than
    a window is cut."""
    windows: list[list[list[float]]] = []
    used = 0.0
    for start, end in chunk_spans(spans, max_len=max_len, max_gap=0.0):  # long spans cut, touching ones joined
        pieces = windows[-1] if windows else None
        if pieces and start - pieces[-1][1] <= max_gap and used + start - pieces[-1][1] + end - start <= max_len:
            used += end - pieces[-1][1]
            pieces[-1][1] = end
        elif pieces and used + separator + end - start <= max_len:
            pieces.append([start, end])
            used += separator + end - start
        else:
            windows.append([[start, end]])
            used = end - start
    return [[(a, b) for a, b in pieces] for pieces in windows]


PAUSE = 0.8
"""seconds of silence between two words that end a line"""
LONGEST_LINE = 12.0
"""seconds; a longer sentence is cut after its last comma (or wherever it reaches this length)"""
SENTENCE_ENDS = (".", "?", "!", "…", "。", "？", "！")
TITLES = frozenset({"mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "mt.", "jr.", "sr.", "vs.", "no."})
"""abbreviations that end in a full stop but not a sentence"""
CLAUSE_ENDS = (",", ";", ":", "，", "、", "；", "：")


def split_words(words: list) -> list[list]:
    """Timed words (anything with ``start``, ``end`` and ``word`` or ``text``) grouped into lines:
    a line ends with a sentence, at a pause of ``PAUSE`` seconds, and before it grows longer than
    ``LONGEST_LINE`` seconds (after a comma where it has one), so that every line keeps the times of
    what it says however long the audio it was recognised in."""

    def text(w) -> str:
        return (getattr(w, "word", None) or getattr(w, "text", "")).strip()

    lines: list[list] = []
    for w in words:
        line = lines[-1] if lines else None
        ended = text(line[-1]).endswith(SENTENCE_ENDS) and text(line[-1]).lower() not in TITLES if line else False
        if line is None or w.start - line[-1].end >= PAUSE or ended:
            lines.append([w])
            continue
        if w.end - line[0].start > LONGEST_LINE:
            cut = max((i for i, x in enumerate(line[:-1]) if text(x).endswith(CLAUSE_ENDS)), default=None)
            if cut is None:
                lines.append([w])
            else:
                lines[-1], tail = line[: cut + 1], line[cut + 1 :]
                lines.append([*tail, w])
            continue
        line.append(w)
    return lines


def shift_lines(lines: list[SpeechLine], offset: float, until: float) -> list[SpeechLine]:
    """Lines recognised in a clip moved into the video: every time (words too) plus ``offset``,
    none past ``until``; empty lines dropped."""
    out = []
    for line in lines:
        if not line.text.strip():
            continue
        words = [w.model_copy(update={"start": offset + w.start, "end": min(until, offset + w.end)}) for w in line.words or []]
        out.append(line.model_copy(update={"start": offset + line.start, "end": min(until, offset + line.end), "words": words or None}))
    return out


class PocketSphinxRecognizer:
    """CMU PocketSphinx with the en-us model bundled in its wheel: offline and weak, but real."""

    name = "pocketsphinx"

    def __init__(self) -> None:
        from pocketsphinx import Decoder

        self._decoder = Decoder(samprate=SAMPLE_RATE, loglevel="FATAL")
        self._frame_rate = 100.0  # pocketsphinx reports word times in 10 ms frames

    def transcribe(
        self, audio: np.ndarray, spans: list[tuple[float, float]] | None = None, language: str | None = None
    ) -> list[SpeechLine]:
        if language and not language.lower().startswith("en"):
            from ..errors import ModelUnavailable

            raise ModelUnavailable(f"pocketsphinx only has an English model here; cannot transcribe {language!r}")
        total = len(audio) / SAMPLE_RATE
        spans = chunk_spans(spans if spans is not None else [(0.0, total)])
        lines = []
        for start, end in spans:
            piece = audio[int(start * SAMPLE_RATE) : int(end * SAMPLE_RATE)]
            if piece.size < SAMPLE_RATE // 10:
                continue
            line = self._decode(piece, start)
            if line is not None:
                lines.append(line)
        return lines

    def _decode(self, piece: np.ndarray, offset: float) -> SpeechLine | None:
        pcm = (np.clip(piece, -1.0, 1.0) * 32767).astype(np.int16).tobytes()
        decoder = self._decoder
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hyp = decoder.hyp()
        if hyp is None or not hyp.hypstr.strip():
            return None
        words = [
            # "we'll(2)": the dictionary's second pronunciation of the word, not part of it
            Word(start=offset + s.start_frame / self._frame_rate, end=offset + (s.end_frame + 1) / self._frame_rate, text=s.word.split("(")[0])
            for s in decoder.seg()
            if s.word not in ("<s>", "</s>", "<sil>") and not s.word.startswith("[") and not s.word.startswith("++")
        ]
        if not words:
            return None
        text = " ".join(w.text for w in words)
        return SpeechLine(start=words[0].start, end=words[-1].end, text=text, source=self.name, language="en", words=words)
