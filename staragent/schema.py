"""Records that cross layer boundaries: evidence a tool found, a step of a trajectory, an answer.

Tools produce ``Evidence``; the agent records ``TrajectoryStep``s and returns an ``Answer``; the
benchmark stores and scores them. Everything here is plain, JSON-serialisable pydantic.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Modality = Literal["speech", "ocr", "visual", "caption", "audio", "web", "memory", "other"]


class Evidence(BaseModel):
    """Something seen or heard in the video (or found elsewhere), with where it was found."""

    start: float = Field(description="seconds from the start of the video")
    end: float
    modality: str = Field(description="speech | ocr | visual | caption | audio | web | memory | other")
    text: str
    score: float | None = None
    source: str | None = Field(None, description="tool that produced it")
    id: str | None = Field(None, description="the line's id in its index (s12: speech line 12, o40: on-screen line 40, a3: a named sound)")
    box: list[float] | None = Field(None, description="where on screen, [x0, y0, x1, y1] as fractions of the frame (on-screen text)")
    labels: list[str] = Field(default_factory=list, description="text that labels this line: the heading above it on screen")
    rank: int | None = Field(None, description="its place in the ranking that chose it (1 = best)")
    changes: list[list[float]] = Field(default_factory=list, description="on-screen text: [start, end] of each time what is beside it (a check box, a switch) changed and held")

    def key(self) -> tuple:
        return (round(self.start, 2), round(self.end, 2), self.modality, self.text)


class TokenUsage(BaseModel):
    input: int = 0
    output: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(input=self.input + other.input, output=self.output + other.output)

    @classmethod
    def of(cls, usage_metadata: dict | None) -> TokenUsage | None:
        """The tokens a LangChain message's ``usage_metadata`` reports; None when it reports none."""
        return cls(input=usage_metadata.get("input_tokens", 0), output=usage_metadata.get("output_tokens", 0)) if usage_metadata else None


class TrajectoryStep(BaseModel):
    """One tool call the agent made."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    ok: bool = True
    latency_s: float = 0.0
    summary: str = ""
    error: str | None = None
    cached: bool = Field(False, description="answered from the conversation's tool memory, not re-run")
    tokens: TokenUsage | None = Field(
        None, description="prompt and completion tokens of the planner call that chose this step (on the first step it chose)"
    )
    by_agent: bool = Field(
        False, description="made by the agent, not chosen by the planner: a small model's retrieval step, or a search for an answer that cited nothing"
    )


class Answer(BaseModel):
    """What ``ask`` returns: the answer, the evidence behind it, and how it was reached."""

    answer: str
    evidence: list[Evidence] = Field(default_factory=list)
    trajectory: list[TrajectoryStep] = Field(default_factory=list)
    video: str = ""
    profile: str = ""
    thread_id: str | None = None
    latency_s: float = 0.0
    tokens: TokenUsage = Field(default_factory=TokenUsage)

    def public_dict(self) -> dict[str, Any]:
        """The documented ``--json`` shape of ``staragent ask``."""
        return {
            "answer": self.answer,
            "evidence": [e.model_dump(include={"start", "end", "modality", "text"}) for e in self.evidence],
            "trajectory": [s.model_dump(include={"tool", "args", "latency_s", "ok"}) for s in self.trajectory],
            "video": self.video,
            "profile": self.profile,
        }
