"""Sound-event labels from an AudioSet classifier. While indexing, the tagger scores the audio
window by window (``timeline``); each window keeps its best labels above a threshold, and the
windows of one label that overlap or touch become one ``SoundEvent`` (``merge_windows``) with the
best score among them. Segments inherit the labels of the events they overlap.

Two backends: YAMNet from its model pack (``yamnet``, the offline profile's, 0.96 s windows every
0.48 s) and, here, an AudioSet classifier through transformers (the Audio Spectrogram Transformer
``MIT/ast-finetuned-audioset-10-10-0.4593`` by default, ``index.audio_tag_window`` windows)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ..media import SAMPLE_RATE
from ..records import SoundEvent
from .torch_runtime import load_files, load_pretrained, module_bytes, torch_dtype


def best_labels(labels: list[str], row: np.ndarray, top_k: int, threshold: float) -> list[tuple[str, float]]:
    """The ``top_k`` labels of one window's scores that reach ``threshold``, best first."""
    best = np.argsort(-row)[:top_k]
    return [(labels[j], round(float(row[j]), 3)) for j in best if row[j] >= threshold]


def label_windows(tagger, audio: np.ndarray, first: int, count: int, top_k: int, threshold: float) -> list[dict]:
    """The ``count`` windows of ``tagger`` that start at sample ``first`` and after, as
    ``{"start", "end", "tags"}`` (seconds, best labels), leaving out those with no label."""
    hop, window = int(round(tagger.hop * SAMPLE_RATE)), int(round(tagger.window * SAMPLE_RATE))
    last = min(len(audio), first + (count - 1) * hop + window)
    times, scores = tagger.timeline(audio[first:last], pad_end=last >= len(audio))
    rows = []
    for t, row in zip(times[:count], scores[:count]):
        start = first / SAMPLE_RATE + float(t)
        tags = best_labels(tagger.labels, row, top_k, threshold)
        if tags:
            rows.append({"start": round(start, 3), "end": round(min(start + tagger.window, len(audio) / SAMPLE_RATE), 3), "tags": [list(x) for x in tags]})
    return rows


def merge_windows(windows: list[dict]) -> list[SoundEvent]:
    """``{"start", "end", "tags": [[label, score], ...]}`` windows, in time order, as events: the
    windows of a label that overlap or touch join into one event scored by its best window."""
    current: dict[str, SoundEvent] = {}
    done: list[SoundEvent] = []
    for window in windows:
        for label, score in window["tags"]:
            event = current.get(label)
            if event is not None and window["start"] <= event.end + 1e-6:
                event.end = max(event.end, window["end"])
                event.score = max(event.score, score)
                continue
            if event is not None:
                done.append(event)
            current[label] = SoundEvent(start=window["start"], end=window["end"], label=label, score=score)
    return sorted([*done, *current.values()], key=lambda e: (e.start, -e.score))


class TransformersAudioTagger:
    """An ``AudioTagger`` (see ``interfaces``), with ``tag_batch`` for many clips at once."""

    name = "audio-tagger"

    def __init__(self, model_dir: Path, label: str, device: str = "cpu", dtype: str = "auto", batch_size: int = 16, window: float = 10.0):
        import torch
        from transformers import AutoFeatureExtractor, AutoModelForAudioClassification

        self.model_id = label
        self.device = device
        self.batch_size = batch_size
        self.window = self.hop = window
        self.extractor = load_files(AutoFeatureExtractor, model_dir, "audio tagger's feature extractor")
        self.dtype = torch_dtype(dtype, device)
        self.model = load_pretrained(AutoModelForAudioClassification, model_dir, device, dtype)
        config = self.model.config
        self.labels = [config.id2label[i] for i in range(config.num_labels)]
        # AudioSet clips carry several sounds at once: independent (sigmoid) scores, unless the
        # checkpoint says its labels exclude each other
        self.exclusive = getattr(config, "problem_type", None) == "single_label_classification"
        self._lock = threading.Lock()
        self._torch = torch

    def memory_bytes(self) -> int:
        return module_bytes(self.model)

    def scores(self, clips: list[np.ndarray]) -> np.ndarray:
        """``(len(clips), labels)`` probabilities, ``batch_size`` clips per forward pass."""
        torch = self._torch
        out = []
        with self._lock, torch.inference_mode():
            for i in range(0, len(clips), self.batch_size):
                batch = [np.asarray(c, np.float32) if len(c) else np.zeros(SAMPLE_RATE // 10, np.float32) for c in clips[i : i + self.batch_size]]
                features = self.extractor(batch, sampling_rate=SAMPLE_RATE, return_tensors="pt")
                features = {k: v.to(self.device, dtype=self.dtype if v.is_floating_point() else v.dtype) for k, v in features.items()}
                logits = self.model(**features).logits.float()
                probs = logits.softmax(-1) if self.exclusive else logits.sigmoid()
                out.append(probs.cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, len(self.labels)), np.float32)

    def timeline(self, audio: np.ndarray, pad_end: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Start times of back-to-back ``window``-second windows of ``audio`` and their scores; a
        shorter tail (half a second or more) is a window of its own when ``pad_end``."""
        step = int(self.window * SAMPLE_RATE)
        starts = [i for i in range(0, len(audio), step) if len(audio) - i >= (SAMPLE_RATE // 2 if pad_end else step)]
        return np.asarray(starts, np.float64) / SAMPLE_RATE, self.scores([audio[i : i + step] for i in starts])

    def tag_batch(self, clips: list[np.ndarray], top_k: int = 5, threshold: float = 0.2) -> list[list[tuple[str, float]]]:
        return [best_labels(self.labels, row, top_k, threshold) for row in self.scores(clips)]

    def tag(self, audio: np.ndarray, top_k: int = 5, threshold: float = 0.2) -> list[tuple[str, float]]:
        """Sound labels with scores for one clip, best first."""
        return self.tag_batch([audio], top_k, threshold)[0]
