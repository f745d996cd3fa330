"""What each expert role in the ModelPool promises. Tools and index stages depend on these
protocols, never on a concrete backend, so a backend can be swapped (or faked in tests) by
registering another ``ModelSpec`` under the same role name.

Role names (``pool.get(name)``) and their protocols:

========================  ====================  ==============================================
role                      protocol              backends
========================  ====================  ==============================================
``vad``                   SpeechActivity        silero (ONNX, bundled with faster-whisper)
``asr``                   SpeechRecognizer      pocketsphinx (offline), faster-whisper small
``asr_refine``            SpeechRecognizer      faster-whisper large-v3 (also translates to English)
``ocr``                   TextReader            rapidocr (offline), easyocr
``vision``                ImageTextEncoder      open_clip SigLIP
``vlm``                   VideoRefiner          Qwen2.5-VL via transformers + qwen-vl-utils
``audio_tagger``          AudioTagger           an AudioSet classifier via transformers
``audio_lm``              AudioRefiner          Qwen2-Audio / Audio Flamingo 3 via transformers
``chat``                  ChatEngine            a local transformers chat model with tool calling
``detector``              ObjectDetector        OWLv2 / OWL-ViT / Grounding DINO via transformers
``faces``                 FaceIdentifier        OpenCV YuNet + SFace with a gallery of named faces
``translator``            TextTranslator        Marian per language pair, or NLLB / M2M100 / mBART-50
``activity``              ActivityRecognizer    a transformers video classifier (VideoMAE, ...)
========================  ====================  ==============================================

The ``chat`` role holds the raw engine (``chat_engine.LocalChatEngine``). Tools talk to it in plain
text (``ToolContext.chat_model()``, a ``chat_engine.EngineChat``); the agent plans with it through a
LangChain chat model (``agent.planners.transformers.TransformersChatModel``), which renders messages
and tools with the model's template and parses its tool calls.

All audio is 16 kHz mono float32; all images are RGB ``uint8`` arrays ``(H, W, 3)``; times are
seconds from the start of the video.

Optional extras some backends offer beyond the protocols (check with ``hasattr`` or rely on the
role's documented backend):

- faster-whisper recognisers (``asr``, ``asr_refine``): ``transcribe(..., task="translate")``
  writes English whatever is spoken (``ModelUnavailable`` on English-only models),
  ``word_timestamps=False`` skips word timing, ``multilingual``; ``asr`` decodes ``batch_size``
  chunks per pass. The language they detect is recorded on every ``SpeechLine``.
- ``audio_lm``: ``max_seconds``, the longest clip it hears at once.
- ``audio_tagger``: ``tag_batch(clips, top_k, threshold)`` tags many clips in batches.
- every model backend: ``memory_bytes()`` (weights in memory), ``model_id``/``device`` where it
  has them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, Field

from ..records import OcrLine, SpeechLine


@runtime_checkable
class SpeechActivity(Protocol):
    def speech_spans(self, audio: np.ndarray, min_silence: float = 0.5, threshold: float | None = None) -> list[tuple[float, float]]: ...


@runtime_checkable
class SpeechRecognizer(Protocol):
    name: str

    def transcribe(
        self, audio: np.ndarray, spans: list[tuple[float, float]] | None = None, language: str | None = None
    ) -> list[SpeechLine]:
        """Lines with times relative to the start of ``audio``; ``spans`` limits work to speech;
        ``language`` None means detect it. faster-whisper also takes ``task="translate"``."""
        ...


@runtime_checkable
class ChatEngine(Protocol):
    name: str

    def generate(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        *,
        max_new_tokens: int = 1024,
        temperature: float = 0.0,
        thinking: bool = False,
        stop: list[str] | None = None,
    ) -> tuple[str, int, int]:
        """The raw text of the reply to ``messages`` (OpenAI-shaped dicts) with ``tools`` (OpenAI
        function specs) shown, the prompt's token count and the reply's."""
        ...


@runtime_checkable
class TextReader(Protocol):
    name: str

    def read(self, image: np.ndarray) -> list[OcrLine]: ...


@runtime_checkable
class ImageTextEncoder(Protocol):
    name: str
    dim: int

    def embed_images(self, images: list[np.ndarray]) -> np.ndarray:
        """``(n, dim)`` float32, L2-normalised."""
        ...

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """``(n, dim)`` float32, L2-normalised, comparable with ``embed_images``."""
        ...


class RefinedText(BaseModel):
    """What a refiner says about a time range, with the moments it looked at."""

    text: str
    start: float
    end: float
    frame_times: list[float] = Field(default_factory=list)
    model: str = ""


@runtime_checkable
class VideoRefiner(Protocol):
    name: str

    def refine(self, video: Path, start: float, end: float, question: str | None = None) -> RefinedText:
        """Look at ``[start, end)`` of ``video``: answer ``question``, or caption densely when None."""
        ...


@runtime_checkable
class AudioTagger(Protocol):
    name: str

    def tag(self, audio: np.ndarray, top_k: int = 5, threshold: float = 0.2) -> list[tuple[str, float]]:
        """Sound labels with scores for a clip."""
        ...


@runtime_checkable
class AudioRefiner(Protocol):
    name: str

    def refine(self, audio: np.ndarray, question: str | None = None) -> str:
        """Describe the clip, or answer ``question`` about it."""
        ...


class Detection(BaseModel):
    """An object found in an image; ``box`` is ``[x0, y0, x1, y1]`` as fractions of the image."""

    label: str
    score: float
    box: list[float]


@runtime_checkable
class ObjectDetector(Protocol):
    name: str

    def detect(self, images: list[np.ndarray], queries: list[str], threshold: float | None = None) -> list[list[Detection]]:
        """For each image, the objects matching any of ``queries`` (free-text categories)."""
        ...


class FaceMatch(BaseModel):
    """A face in an image; ``name`` is "unknown" when it matches nobody in the gallery."""

    name: str
    role: str | None = None
    confidence: float = Field(description="similarity to the gallery face for a named face, else the detection score")
    detection_score: float
    box: list[float]


@runtime_checkable
class FaceIdentifier(Protocol):
    name: str

    def identify(self, image: np.ndarray) -> list[FaceMatch]: ...


@runtime_checkable
class TextTranslator(Protocol):
    name: str

    def translate(self, texts: list[str], source: str | None, target: str) -> list[str]:
        """Translate each text from ISO 639-1 ``source`` (None: unknown) into ``target``."""
        ...


@runtime_checkable
class ActivityRecognizer(Protocol):
    name: str
    num_frames: int

    def classify(self, frames: list[np.ndarray], top_k: int = 3) -> list[tuple[str, float]]:
        """Action labels with probabilities for one clip given as ``num_frames`` RGB frames."""
        ...
