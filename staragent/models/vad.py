"""Speech activity detection with silero VAD, the ONNX model that ships inside faster-whisper."""

from __future__ import annotations

import numpy as np

from ..media import SAMPLE_RATE


class SileroVAD:
    name = "silero-vad"

    def __init__(self, threshold: float = 0.5):
        from faster_whisper.vad import get_vad_model

        self.threshold = threshold
        get_vad_model()  # load the ONNX session now, so the first call is not slow

    def speech_spans(self, audio: np.ndarray, min_silence: float = 0.5, threshold: float | None = None) -> list[tuple[float, float]]:
        """Spans ``(start, end)`` in seconds where someone is speaking."""
        from faster_whisper.vad import VadOptions, get_speech_timestamps

        if audio.size == 0:
            return []
        options = VadOptions(
            threshold=threshold or self.threshold,
            min_silence_duration_ms=int(min_silence * 1000),
            speech_pad_ms=100,
        )
        stamps = get_speech_timestamps(audio, options, sampling_rate=SAMPLE_RATE)
        return [(s["start"] / SAMPLE_RATE, s["end"] / SAMPLE_RATE) for s in stamps]
