"""VideoIndex: read access to one built index directory. Loading is lazy and cached per object."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..fsutil import read_jsonl
from ..media import SAMPLE_RATE
from ..records import AcousticEvent, Keyframe, OcrLine, PictureEvent, Segment, SoundEvent, SpeechLine
from .manifest import Manifest

TEXT_MODALITIES = ("speech", "ocr", "caption", "audio", "labels")
"""``labels``: what the coarse picture models saw (searched as the ``visual`` modality where no
SigLIP store exists)"""
VECTOR_DIRS = ("text_vectors", "vectors")
"""where the text stores and the ``visual`` store are (indexed by ``modality == "visual"``)"""


def segment_texts(segments: list[Segment]) -> dict[str, dict[int, str]]:
    """The text each modality contributes to lexical search, per segment."""
    return {
        "speech": {s.id: s.speech_text for s in segments},
        "ocr": {s.id: " ".join(line.text for line in s.ocr) for s in segments},
        "caption": {s.id: s.caption or "" for s in segments},
        "audio": {s.id: s.audio.search_text() for s in segments},
        "labels": {s.id: " ".join(s.pictures) for s in segments},
    }


def read_pcm(directory: Path, start: float = 0.0, end: float | None = None) -> np.ndarray:
    """The index's audio (``audio.npy``, 16 kHz int16) as float32 in [-1, 1], optionally a slice."""
    pcm = np.load(directory / "audio.npy", mmap_mode="r")
    lo = int(start * SAMPLE_RATE)
    hi = len(pcm) if end is None else int(end * SAMPLE_RATE)
    return np.asarray(pcm[lo:hi], dtype=np.float32) / 32767.0


def read_keyframe(directory: Path, file: str) -> np.ndarray:
    """A stored keyframe picture as an RGB array."""
    return decode_keyframe((directory / "keyframes" / file).read_bytes())


def decode_keyframe(data: bytes) -> np.ndarray:
    """A keyframe picture's file contents as an RGB array."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"))


class VideoIndex:
    def __init__(self, directory: str | Path, device: str = "auto"):
        self.dir = Path(directory)
        self.device = device
        """where vector stores are searched (``models.device``: a GPU when FAISS can use it)"""
        manifest = Manifest.load(self.dir)
        if manifest is None or "segments" not in manifest.stages:
            raise InputError(f"{self.dir} is not a complete staragent index; run `staragent index VIDEO` to build it")
        self.manifest = manifest

    # ------------------------------------------------------------ facts about the video
    @property
    def video_path(self) -> Path:
        return Path(self.manifest.video["path"])

    @property
    def duration(self) -> float:
        return float(self.manifest.media.get("duration") or 0.0)

    @property
    def has_audio(self) -> bool:
        return bool(self.manifest.media.get("has_audio"))

    def stage_info(self, stage: str) -> dict:
        record = self.manifest.stages.get(stage)
        return record.info if record else {}

    # ------------------------------------------------------------ stored records
    @functools.cached_property
    def segments(self) -> list[Segment]:
        return [Segment(**row) for row in read_jsonl(self.dir / "segments.jsonl")]

    @functools.cached_property
    def keyframes(self) -> list[Keyframe]:
        return [Keyframe(**row) for row in read_jsonl(self.dir / "keyframes.jsonl")]

    @functools.cached_property
    def speech(self) -> list[SpeechLine]:
        return [SpeechLine(**row) for row in read_jsonl(self.dir / "speech.jsonl")]

    @functools.cached_property
    def ocr(self) -> list[OcrLine]:
        """Every line of on-screen text with its span, in order of appearance."""
        return [OcrLine(**row) for row in read_jsonl(self.dir / "ocr.jsonl")]

    @functools.cached_property
    def audio_events(self) -> list[AcousticEvent]:
        return [AcousticEvent(**row) for row in read_jsonl(self.dir / "audio_events.jsonl")]

    @functools.cached_property
    def sound_events(self) -> list[SoundEvent]:
        """Sounds an audio tagger named (empty when none ran)."""
        path = self.dir / "audio_tags.jsonl"
        return [SoundEvent(**row) for row in read_jsonl(path) if "label" in row] if path.exists() else []

    @functools.cached_property
    def pictures(self) -> list[PictureEvent]:
        """What the coarse picture models saw (empty when they did not run)."""
        path = self.dir / "pictures.jsonl"
        return [PictureEvent(**row) for row in read_jsonl(path)] if path.exists() else []

    @functools.cached_property
    def acoustic_frames(self):
        from ..models.audio import AcousticFrames

        return AcousticFrames.from_npz(self.dir / "acoustics.npz")

    @functools.cached_property
    def scene_cuts(self) -> list[float]:
        return json.loads((self.dir / "scenes.json").read_text())["cuts"]

    # ------------------------------------------------------------ queries over a time range
    def segments_between(self, start: float, end: float) -> list[Segment]:
        return [s for s in self.segments if s.end > start and s.start < end]

    def speech_between(self, start: float, end: float) -> list[SpeechLine]:
        return [line for line in self.speech if line.end > start and line.start < end]

    def keyframes_between(self, start: float, end: float) -> list[Keyframe]:
        return [k for k in self.keyframes if k.time < end and k.until > start]

    def ocr_between(self, start: float, end: float) -> list[OcrLine]:
        """The lines of text on screen at some moment of the range, each with its own span, in
        order of appearance."""
        return [line for line in self.ocr if line.overlaps(start, end)]

    def events_between(self, start: float, end: float) -> list[AcousticEvent]:
        return [e for e in self.audio_events if e.end > start and e.start < end]

    def sounds_between(self, start: float, end: float) -> list[SoundEvent]:
        return [e for e in self.sound_events if e.end > start and e.start < end]

    def pictures_between(self, start: float, end: float) -> list[PictureEvent]:
        return [e for e in self.pictures if e.end > start and e.start < end]

    def audio(self, start: float = 0.0, end: float | None = None) -> np.ndarray:
        return read_pcm(self.dir, start, end)

    def keyframe_image(self, keyframe: Keyframe) -> np.ndarray:
        return read_keyframe(self.dir, keyframe.file)

    # ------------------------------------------------------------ search structures
    @functools.cached_property
    def segment_tokens(self) -> dict[str, dict[int, frozenset[str]]]:
        """Search tokens of each segment in each text modality (for query-coverage weighting)."""
        from .text import tokenize

        return {m: {i: frozenset(tokenize(t)) for i, t in texts.items()} for m, texts in segment_texts(self.segments).items()}

    @functools.cached_property
    def token_idf(self) -> dict[str, float]:
        """Inverse document frequency of each search token over segments (any modality)."""
        import math

        frequency: dict[str, int] = {}
        for seg in self.segments:
            seen = set().union(*(docs.get(seg.id, frozenset()) for docs in self.segment_tokens.values()))
            for token in seen:
                frequency[token] = frequency.get(token, 0) + 1
        total = len(self.segments)
        return {token: math.log((total + 1) / (count + 0.5)) for token, count in frequency.items()}

    @functools.cache  # noqa: B019 - one index object per video, lives as long as it
    def lexical(self, modality: str):
        from .lexical import LexicalIndex

        directory = self.dir / "bm25" / modality
        return LexicalIndex.load(directory) if directory.exists() else None

    @functools.cache  # noqa: B019
    def vectors(self, modality: str):
        """The FAISS store of ``modality``: keyframe embeddings (``visual``) or text passages."""
        from .vectors import VectorStore

        directory = self.dir / VECTOR_DIRS[modality == "visual"]
        return VectorStore.load(directory, modality, self.device) if (directory / f"{modality}.faiss").exists() else None

    def vector_modalities(self) -> list[str]:
        found: set[str] = set()
        for folder in VECTOR_DIRS:
            path = self.dir / folder / "stores.json"
            found |= set(json.loads(path.read_text()).get("stores", {})) if path.exists() else set()
        return sorted(found)
