"""YAMNet sound-event tagging from the ``yamnet`` model pack: 521 AudioSet classes scored every
0.48 s over 0.96 s of audio, by an 8-bit ONNX export run with onnxruntime.

The log-mel frontend is YAMNet's own, written here in numpy: 16 kHz audio, 25 ms frames (400
samples, periodic Hann) every 10 ms, a 512-point FFT magnitude, 64 HTK mel bands from 125 to
7500 Hz, ``log(mel + 0.001)``, cut into patches of 96 frames every 48 frames. The offset is
YAMNet's own, and the export's input quantisation starts at log(0.001): a smaller offset only
moves quiet bands onto that clipped floor. The exported model takes a patch quantised to uint8 and
returns uint8 scores; the scales and zero points for both are stored in the model, and the scores
become probabilities through a sigmoid (AudioSet labels are not exclusive).
"""

from __future__ import annotations

import csv
import threading
from pathlib import Path

import numpy as np

from ..media import SAMPLE_RATE
from .audio_tagger import best_labels

FRAME, STEP, FFT = 400, 160, 512
MELS, LOW_HZ, HIGH_HZ = 64, 125.0, 7500.0
LOG_OFFSET = 0.001
PATCH_FRAMES, PATCH_STEP = 96, 48
WINDOW_SAMPLES = (PATCH_FRAMES - 1) * STEP + FRAME
"""audio one patch hears (0.975 s)"""
HOP_SAMPLES = PATCH_STEP * STEP
"""audio between the starts of two patches (0.48 s)"""
QUANT = ("audio_scale", "audio_zero_point", "class_scores_scale", "class_scores_zero_point")


def _hz_to_mel(hz):
    return 2595.0 * np.log10(1.0 + np.asarray(hz, np.float64) / 700.0)


def _mel_to_hz(mel):
    return 700.0 * (10.0 ** (np.asarray(mel, np.float64) / 2595.0) - 1.0)


def mel_filters() -> np.ndarray:
    """``(FFT // 2 + 1, MELS)`` triangular HTK mel filters, unnormalised."""
    freqs = np.linspace(0.0, SAMPLE_RATE / 2, FFT // 2 + 1)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(LOW_HZ), _hz_to_mel(HIGH_HZ), MELS + 2))
    width = np.diff(edges)
    slopes = edges[None, :] - freqs[:, None]
    rising = -slopes[:, :-2] / width[:-1]
    falling = slopes[:, 2:] / width[1:]
    return np.maximum(0.0, np.minimum(rising, falling)).astype(np.float32)


_HANN = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(FRAME) / FRAME)).astype(np.float32)  # periodic
_MEL = mel_filters()


def log_mel(audio: np.ndarray) -> np.ndarray:
    """``(frames, MELS)`` log-mel frames of 16 kHz mono audio (no padding: whole frames only)."""
    audio = np.asarray(audio, np.float32)
    if len(audio) < FRAME:
        return np.zeros((0, MELS), np.float32)
    from scipy.fft import rfft  # in single precision: numpy's took 2 to 8 times as long on these frames

    frames = np.lib.stride_tricks.sliding_window_view(audio, FRAME)[::STEP]
    magnitude = np.abs(rfft(frames * _HANN, n=FFT)).astype(np.float32)
    return np.log(magnitude @ _MEL + LOG_OFFSET)


def patches(audio: np.ndarray, pad_end: bool = True) -> np.ndarray:
    """``(n, 96, 64)`` log-mel patches starting every 0.48 s. With ``pad_end``, a tail too short
    for a whole patch (but at least half a hop long) gets one more patch, padded with silence."""
    audio = np.asarray(audio, np.float32)
    whole = 0 if len(audio) < WINDOW_SAMPLES else 1 + (len(audio) - WINDOW_SAMPLES) // HOP_SAMPLES
    covered = (whole - 1) * HOP_SAMPLES + WINDOW_SAMPLES if whole else 0
    count = whole + int(pad_end and len(audio) - covered >= HOP_SAMPLES // 2)
    if count == 0:
        return np.zeros((0, PATCH_FRAMES, MELS), np.float32)
    needed = (count - 1) * HOP_SAMPLES + WINDOW_SAMPLES
    if len(audio) < needed:
        audio = np.concatenate([audio, np.zeros(needed - len(audio), np.float32)])
    frames = log_mel(audio[:needed])
    return np.lib.stride_tricks.sliding_window_view(frames, (PATCH_FRAMES, MELS))[::PATCH_STEP, 0][:count]


def read_class_map(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [row["display_name"] for row in csv.DictReader(fh)]


class YamnetTagger:
    """An ``AudioTagger`` whose windows are YAMNet's patches (``window`` seconds every ``hop``)."""

    name = "yamnet"
    window = WINDOW_SAMPLES / SAMPLE_RATE
    hop = HOP_SAMPLES / SAMPLE_RATE

    def __init__(self, folder: Path, batch_size: int = 64, threads: int = 0):
        import onnxruntime as ort

        from ..errors import ModelUnavailable

        folder = Path(folder)
        self.model_id = "yamnet"
        self.device = "cpu"
        self.batch_size = batch_size
        self.labels = read_class_map(folder / "yamnet_class_map.csv")
        try:
            graph, quant = _batched_graph(folder / "model.onnx")
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            self._session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # a damaged file that passed its size check: say which pack, not a traceback
            raise ModelUnavailable(f"the YAMNet model in {folder} cannot be loaded ({type(exc).__name__}: {exc})") from None
        self._in_scale, self._in_zero, self._out_scale, self._out_zero = (float(quant[k]) for k in QUANT)
        self._input = self._session.get_inputs()[0].name
        self._bytes = sum(f.stat().st_size for f in folder.iterdir() if f.suffix in (".onnx", ".data"))
        self._lock = threading.Lock()

    def memory_bytes(self) -> int:
        return self._bytes

    def patch_scores(self, batch: np.ndarray) -> np.ndarray:
        """``(n, 521)`` probabilities for ``(n, 96, 64)`` log-mel patches."""
        out = []
        with self._lock:
            for i in range(0, len(batch), self.batch_size):
                chunk = batch[i : i + self.batch_size]
                quantised = np.clip(np.round(chunk / self._in_scale + self._in_zero), 0, 255).astype(np.uint8)[:, None]
                out.append(self._session.run(None, {self._input: quantised})[0])
        if not out:
            return np.zeros((0, len(self.labels)), np.float32)
        logits = self._out_scale * (np.concatenate(out).astype(np.float32) - self._out_zero)
        return 1.0 / (1.0 + np.exp(-np.clip(logits, -60.0, 60.0)))

    def timeline(self, audio: np.ndarray, pad_end: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Start times (seconds from the start of ``audio``) of its windows and ``(n, 521)`` scores."""
        found = patches(audio, pad_end)
        return np.arange(len(found)) * self.hop, self.patch_scores(found)

    def tag_batch(self, clips: list[np.ndarray], top_k: int = 5, threshold: float = 0.2) -> list[list[tuple[str, float]]]:
        """Labels of each clip: every patch scored, each label's best score over the clip."""
        results = []
        for clip in clips:
            _, scores = self.timeline(clip)
            row = scores.max(axis=0) if len(scores) else np.zeros(len(self.labels), np.float32)
            results.append(best_labels(self.labels, row, top_k, threshold))
        return results

    def tag(self, audio: np.ndarray, top_k: int = 5, threshold: float = 0.2) -> list[tuple[str, float]]:
        return self.tag_batch([audio], top_k, threshold)[0]


def _batched_graph(path: Path) -> tuple[bytes, dict[str, float]]:
    """The model with a free batch dimension (the export fixes it at 1, and its one Reshape says
    so), and its quantisation constants."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path), load_external_data=True)
    constants = {init.name: init for init in model.graph.initializer}
    quant = {name: float(numpy_helper.to_array(constants[name])) for name in QUANT}
    for value in (*model.graph.input, *model.graph.output):
        value.type.tensor_type.shape.dim[0].dim_param = "batch"
    del model.graph.value_info[:]  # shapes inferred for batch 1; onnxruntime works them out again
    for node in model.graph.node:
        if node.op_type == "Reshape" and node.input[1] in constants:
            shape = numpy_helper.to_array(constants[node.input[1]])
            if list(shape) == [1, -1]:  # keep the batch, flatten the rest
                constants[node.input[1]].CopyFrom(numpy_helper.from_array(np.array([0, -1], np.int64), node.input[1]))
    return model.SerializeToString(), quant
