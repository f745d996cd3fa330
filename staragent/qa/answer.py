"""The reading core's answer: text, and the ids of the lines it rests on."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..schema import Evidence, TokenUsage


class Answer(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list, description="ids of the evidence lines the answer rests on")
    evidence: list[Evidence] = Field(default_factory=list, description="those lines, in the order cited")
    found: bool = Field(True, description="False when the video is taken not to hold the answer")
    confidence: float = Field(0.0, description="0-1, from the ranker's calibrated score of the best line")
    reader: str = ""
    tokens: TokenUsage | None = Field(None, description="what the reader's model call cost, when it made one")
