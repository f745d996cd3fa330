"""Benchmark records: samples (STARBench / LongShOTBench shape), their turns, rubric criteria and
expected tool calls, and the per-turn record the runner appends to ``trajectories.jsonl``.

Everything is pydantic and JSON round-trips. Unknown fields of a sample or a turn are kept (``extra``),
so a dataset can carry more than we model without losing it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..fsutil import stable_hash
from ..schema import Evidence, TokenUsage, TrajectoryStep
from .harness_errors import DatasetError

CriterionCategory = Literal["high_priority", "medium_priority", "low_priority", "penalty"]

# Rubric weights of the STARBench criteria prompt (Appendix B.5): high 5, medium 3, low 1, penalty -5.
DEFAULT_WEIGHTS: dict[str, float] = {"high_priority": 5.0, "medium_priority": 3.0, "low_priority": 1.0, "penalty": -5.0}

_CATEGORY_ALIASES = {
    "high": "high_priority",
    "high_priority": "high_priority",
    "highpriority": "high_priority",
    "medium": "medium_priority",
    "medium_priority": "medium_priority",
    "mediumpriority": "medium_priority",
    "low": "low_priority",
    "low_priority": "low_priority",
    "lowpriority": "low_priority",
    "penalty": "penalty",
    "penalties": "penalty",
}


class Criterion(BaseModel):
    """One rubric criterion. ``weight`` is what the dataset says (kept as is); ``points`` is what scoring
    uses: the dataset's magnitude when given, else the default of the category, negative for penalties."""

    model_config = ConfigDict(extra="allow")

    name: str = "criterion"
    description: str
    category: CriterionCategory = "medium_priority"
    weight: float | None = None
    is_penalty: bool = False

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        raw = str(data.get("category") or "").strip().lower().replace("-", "_").replace(" ", "_")
        category = _CATEGORY_ALIASES.get(raw)
        if raw and category is None:
            raise ValueError(
                f"unknown criterion category {data.get('category')!r}; use high_priority, medium_priority, "
                "low_priority or penalty"
            )
        penalty = bool(data.get("is_penalty")) or category == "penalty"
        if category is None:
            category = "penalty" if penalty else "medium_priority"
        if penalty:
            category = "penalty"
        data["category"] = category
        data["is_penalty"] = penalty
        return data

    @property
    def points(self) -> float:
        magnitude = abs(self.weight) if self.weight is not None else abs(DEFAULT_WEIGHTS[self.category])
        return -magnitude if self.is_penalty else magnitude

    @property
    def released_weight(self) -> float:
        """The weight as the released scorer reads it: the dataset's, sign included, else the category's
        default. A penalty given a positive weight keeps it (and so counts toward the released maximum)."""
        return float(self.weight) if self.weight is not None else DEFAULT_WEIGHTS[self.category]


class ToolCall(BaseModel):
    """An expected tool call of an agentic sample (Table 7 of the STARBench paper)."""

    model_config = ConfigDict(extra="allow")

    tool: str
    parameters: dict[str, Any] = Field(default_factory=dict)
    expected_response: Any = None

    @model_validator(mode="before")
    @classmethod
    def _accept_variants(cls, data: Any) -> Any:
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise ValueError(f"a tool call given as a string must be JSON ({exc.msg})") from None
        if isinstance(data, dict):
            data = dict(data)
            if "tool" not in data:
                for alias in ("name", "tool_name", "function"):
                    if alias in data:
                        data["tool"] = data.pop(alias)
                        break
            if "parameters" not in data:
                for alias in ("arguments", "args", "params"):
                    if alias in data:
                        data["parameters"] = data.pop(alias)
                        break
            if isinstance(data.get("parameters"), str):
                try:
                    data["parameters"] = json.loads(data["parameters"])
                except json.JSONDecodeError:
                    raise ValueError("tool call parameters given as a string must be a JSON object") from None
            if data.get("parameters") is None:
                data["parameters"] = {}
        return data


class Turn(BaseModel):
    """A conversation turn. User turns carry the question and its metadata; assistant turns carry the
    reference answer, its rubric and, for agentic samples, the expected tool calls. An assistant turn may
    also carry a stored ``prediction`` (VDAct outputs, released candidate responses) for replay."""

    model_config = ConfigDict(extra="allow")

    role: Literal["user", "assistant"]
    content: str = ""
    difficulty: int | None = None
    modalities: list[str] = Field(default_factory=list)
    key_segments: list[Any] = Field(default_factory=list)
    conversation_role: str | None = None
    criteria: list[Criterion] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    prediction: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            role = str(data.get("role") or data.get("from") or "").strip().lower()
            data["role"] = {"human": "user", "gpt": "assistant", "model": "assistant", "bot": "assistant"}.get(role, role)
            if "content" not in data and "value" in data:
                data["content"] = data.pop("value")
            if data.get("prediction") is None and data.get("candidate_response"):
                data["prediction"] = data["candidate_response"]
            for key in ("criteria", "tool_calls", "modalities", "key_segments"):
                if data.get(key) is None:
                    data.pop(key, None)
            if isinstance(data.get("modalities"), str):
                data["modalities"] = [m.strip() for m in data["modalities"].replace("+", ",").split(",") if m.strip()]
        return data

    @field_validator("difficulty", mode="before")
    @classmethod
    def _difficulty(cls, value: Any) -> Any:
        if value in (None, ""):
            return None
        return int(value)


class QATurn(BaseModel):
    """A question and its reference answer: the unit the runner asks and the scorers judge."""

    index: int
    question: Turn
    answer: Turn

    @property
    def expected_tool_calls(self) -> list[ToolCall]:
        return self.answer.tool_calls or self.question.tool_calls


class Sample(BaseModel):
    """One benchmark sample (``single_turn`` or ``multi_turn``) in the STARBench release shape."""

    model_config = ConfigDict(extra="allow")

    sample_id: str
    video_id: str = ""
    duration: float | None = None
    sample_type: str = "single_turn"
    scenario: str = ""
    task: str = ""
    conversations: list[Turn]
    video_path: str | None = Field(None, description="explicit video file; else found by video_id under a root")
    tool_calls: list[ToolCall] = Field(default_factory=list, description="sample-level expected calls")
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if "sample_id" not in data:
                for alias in ("id", "qid", "question_id"):
                    if alias in data:
                        data["sample_id"] = data[alias]
                        break
            if data.get("sample_id") is not None:
                data["sample_id"] = str(data["sample_id"])
            if data.get("video_id") is not None:
                data["video_id"] = str(data["video_id"])
            if data.get("tool_calls") is None:
                data.pop("tool_calls", None)
            if data.get("duration") in ("", None):
                data.pop("duration", None)
        return data

    @model_validator(mode="after")
    def _check_turns(self) -> Sample:
        if not self.qa_turns():
            raise ValueError("the conversation has no user question followed by an assistant answer")
        return self

    def qa_turns(self) -> list[QATurn]:
        """Each user turn paired with the assistant turn that follows it. Sample-level expected tool
        calls go to the first pair that has none of its own."""
        pairs: list[QATurn] = []
        pending: Turn | None = None
        for turn in self.conversations:
            if turn.role == "user":
                pending = turn
            elif pending is not None:
                pairs.append(QATurn(index=len(pairs), question=pending, answer=turn))
                pending = None
        if self.tool_calls and pairs and not any(p.expected_tool_calls for p in pairs):
            first = pairs[0]
            pairs[0] = QATurn(
                index=0, question=first.question, answer=first.answer.model_copy(update={"tool_calls": self.tool_calls})
            )
        return pairs

    @property
    def is_agentic(self) -> bool:
        return any(p.expected_tool_calls for p in self.qa_turns())

    @property
    def is_multi_turn(self) -> bool:
        return self.sample_type == "multi_turn" or len(self.qa_turns()) > 1

    def history_before(self, index: int) -> list[dict[str, str]]:
        """The ideal trajectory up to turn ``index``: earlier questions with their REFERENCE answers."""
        history: list[dict[str, str]] = []
        for pair in self.qa_turns()[:index]:
            history.append({"role": "user", "content": pair.question.content})
            history.append({"role": "assistant", "content": pair.answer.content})
        return history


class TurnRecord(BaseModel):
    """One line of ``RUN_DIR/trajectories.jsonl``: what the agent did on one turn of one sample."""

    schema_version: int = 1
    sample_id: str
    turn: int
    video_id: str = ""
    video: str | None = None
    question: str
    answer: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    trajectory: list[TrajectoryStep] = Field(default_factory=list)
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    latency_s: float = 0.0
    ok: bool = True
    error: str | None = None
    agent: str = ""
    simulated_tools: bool = False
    started_at: str = ""
    finished_at: str = ""

    @property
    def key(self) -> tuple[str, int]:
        return (self.sample_id, self.turn)


VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".mov", ".avi")


@dataclass
class Dataset:
    name: str
    kind: str
    source: str
    samples: list[Sample]
    meta: dict[str, Any] = field(default_factory=dict)

    def fingerprint(self) -> str:
        return stable_hash([s.model_dump(mode="json") for s in self.samples])

    def select(self, ids: Iterable[str] | None = None, limit: int | None = None) -> Dataset:
        samples = self.samples
        if ids:
            wanted = [str(i) for i in ids]
            known = {s.sample_id for s in samples}
            missing = [i for i in wanted if i not in known]
            if missing:
                raise DatasetError(
                    f"{self.name} has no sample with id {', '.join(missing[:5])}"
                    f"{' ...' if len(missing) > 5 else ''}; check the ids passed to --samples"
                )
            keep = set(wanted)
            samples = [s for s in samples if s.sample_id in keep]
        if limit is not None:
            samples = samples[: max(0, limit)]
        return Dataset(self.name, self.kind, self.source, samples, dict(self.meta))
