"""What preprocessing extracts from a video, as stored in a VideoIndex and read by tools."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Word(BaseModel):
    start: float
    end: float
    text: str
    confidence: float | None = None


class SpeechLine(BaseModel):
    """A stretch of speech: a subtitle cue or a recognised utterance."""

    start: float
    end: float
    text: str
    source: str = Field(description="subtitles | pocketsphinx | faster-whisper:<model> ...")
    confidence: float | None = None
    language: str | None = None
    words: list[Word] | None = None


class OcrLine(BaseModel):
    """A line of text on screen; ``box`` is ``[x0, y0, x1, y1]`` as fractions of the frame (where it
    was read). In an index, ``[start, end)`` is when it was on screen: from the first sampled frame
    that showed it to the first that no longer did."""

    text: str
    box: list[float]
    score: float
    start: float | None = None
    end: float | None = None
    changes: list[list[float]] = Field(default_factory=list)
    """``[start, end]`` of each time what is beside the line (a check box, a switch) changed and held"""

    def overlaps(self, start: float, end: float) -> bool:
        return self.start is not None and self.end is not None and self.start < end and self.end > start


class Keyframe(BaseModel):
    """A frame kept for embeddings and for tools that look at pictures; it stands for the picture
    from ``time`` to ``until``. Keyframes showing the same picture share its ``file``."""

    id: int
    time: float
    until: float
    scene: int
    file: str
    width: int
    height: int


class AcousticEvent(BaseModel):
    start: float
    end: float
    label: str = Field(description="silence | speech | tone | noise | burst | sound")
    detail: str = ""
    loudness_db: float | None = None


class SoundEvent(BaseModel):
    """A sound an audio tagger named (an AudioSet label), over consecutive windows that heard it."""

    start: float
    end: float
    label: str
    score: float = Field(description="the tagger's highest confidence (0-1) over those windows")


class PictureEvent(BaseModel):
    """What a coarse picture model saw over consecutive keyframes: an object class (an ImageNet
    classifier's label, summed up WordNet's hierarchy) or a number of faces."""

    start: float
    end: float
    kind: str = Field(description="object | faces")
    label: str = Field(description="the class's name, or 'N faces'")
    description: str = Field("", description="the class's names and the kinds above it")
    score: float = Field(description="the classifier's summed probability, or the best face detection score, over those keyframes")
    count: int = Field(0, description="faces: how many, in every keyframe of the span")

    def text(self) -> str:
        """The event as evidence, saying which model saw it and how sure it was."""
        if self.kind == "faces":
            people = "a person" if self.count == 1 else f"{self.count} people"
            return f"{self.label} on screen ({people}), found by a face detector"
        return f"{self.description}: seen by a coarse object classifier, {self.score:.0%} sure"


# Words people use for what the acoustic labels measure, so that lexical search finds "beep".
LABEL_WORDS = {
    "tone": "tone beep whistle tonal",
    "sound": "sound",
    "noise": "noise hiss static",
    "burst": "burst bang pop loud",
    "silence": "silence quiet pause",
}


class AudioSummary(BaseModel):
    loudness_db: float | None = None
    peak_db: float | None = None
    silence_ratio: float | None = None
    events: list[AcousticEvent] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list, description="labels from an audio tagger, when one ran")

    def describe(self) -> str:
        """The sounds of this span in words: event labels, their details, tagger labels."""
        kinds = sorted({e.label if not e.detail else f"{e.label} ({e.detail})" for e in self.events if e.label != "speech"})
        return "; ".join(kinds + list(self.tags))

    def search_text(self) -> str:
        labels = {e.label for e in self.events if e.label != "speech"}
        return " ".join([self.describe()] + [LABEL_WORDS.get(label, "") for label in sorted(labels)]).strip()


class Segment(BaseModel):
    """A span ``[start, end)`` of the video with what each modality saw there."""

    id: int
    start: float
    end: float
    scene: int
    speech: list[SpeechLine] = Field(default_factory=list)
    ocr: list[OcrLine] = Field(default_factory=list)
    keyframes: list[int] = Field(default_factory=list)
    audio: AudioSummary = Field(default_factory=AudioSummary)
    caption: str | None = None
    pictures: list[str] = Field(default_factory=list, description="what the coarse picture models saw (``PictureEvent.text``)")
    embedding_rows: dict[str, list[int]] = Field(default_factory=dict, description="modality -> row ids in its FAISS store")

    @property
    def speech_text(self) -> str:
        return " ".join(line.text for line in self.speech)

    @property
    def ocr_text(self) -> str:
        return " | ".join(line.text for line in self.ocr)
