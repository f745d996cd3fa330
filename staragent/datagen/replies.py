"""What the writer model must reply at each stage, as pydantic models. Validators check a reply
against what the stage knows (passed as the validation ``context``): the tasks on offer, the spans of
the window, the tools and their arguments. Their messages go back to the model when a reply fails."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator

from ..bench import text as tx
from ..bench.sample_records import DEFAULT_WEIGHTS, Criterion
from ..bench.tasks import canonical_task, normalise_task
from .taxonomy import ALL_QUESTION_TYPES, CONVERSATION_ROLES

_SPAN = re.compile(r"^\s*\[?\s*[sS]?\s*(\d+)\b")
_SPAN_IN_TEXT = re.compile(r"\b(?:S\d+|segment\s+\d+|span\s+\d+)\b", re.IGNORECASE)
MODALITY_WORDS = {
    "speech": "speech", "said": "speech", "spoken": "speech", "transcript": "speech", "voice": "speech",
    "visual": "visual", "vision": "visual", "video": "visual", "ocr": "visual", "text": "visual", "screen": "visual",
    "on_screen_text": "visual", "picture": "visual", "image": "visual",
    "audio": "audio", "sound": "audio", "sounds": "audio", "music": "audio",
}  # fmt: skip
UNANSWERABLE = "cannot be answered from the video"


def _ctx(info: ValidationInfo) -> dict[str, Any]:
    return info.context or {}


def span_ids(values: Any) -> list[int]:
    """``["S3", 4, "s5"]`` -> ``[3, 4, 5]``; ``ValueError`` for anything else."""
    if isinstance(values, (str, int)):
        values = [values]
    out: list[int] = []
    for value in values or []:
        match = _SPAN.match(str(value))
        if not match:
            raise ValueError(f"{value!r} is not a span label; write labels such as \"S3\"")
        if int(match.group(1)) not in out:
            out.append(int(match.group(1)))
    return out


def _known_spans(ids: list[int], info: ValidationInfo, what: str) -> list[int]:
    allowed = _ctx(info).get("spans")
    if allowed is not None:
        unknown = [i for i in ids if i not in allowed]
        if unknown:
            raise ValueError(
                f"{what} cites {', '.join(f'S{i}' for i in unknown)}, which are not among the spans shown; "
                f"cite labels from the list (S{min(allowed)} to S{max(allowed)})"
            )
    if not ids:
        raise ValueError(f"{what} must cite at least one span label")
    return ids


def _no_labels(text: str, what: str) -> str:
    text = str(text or "").strip()
    if not text:
        raise ValueError(f"the {what} is empty")
    if _SPAN_IN_TEXT.search(text):
        raise ValueError(f"the {what} names a span label ({_SPAN_IN_TEXT.search(text).group(0)}); say the time instead")
    return text


class SummaryReply(BaseModel):
    summary: str

    @field_validator("summary")
    @classmethod
    def _text(cls, value: str) -> str:
        return _no_labels(value, "summary")


class Scenario(BaseModel):
    scenario: str
    tasks: list[str]

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, value: list[str], info: ValidationInfo) -> list[str]:
        allowed = _ctx(info).get("tasks")
        out = []
        for name in value:
            canon = canonical_task(name)
            if canon is None or (allowed is not None and canon not in allowed):
                offer = ", ".join(sorted(allowed)) if allowed else "the catalogue"
                raise ValueError(f"{name!r} is not a task of the catalogue; choose from {offer}")
            if canon not in out:
                out.append(canon)
        if not out:
            raise ValueError("each scenario needs 1 or 2 tasks")
        return out[:2]


class ScenariosReply(BaseModel):
    scenarios: list[Scenario]

    @field_validator("scenarios")
    @classmethod
    def _count(cls, value: list[Scenario], info: ValidationInfo) -> list[Scenario]:
        if not value:
            raise ValueError("write at least one scenario")
        value = value[: _ctx(info).get("max_scenarios", len(value))]
        offered = len(_ctx(info).get("tasks") or ())
        seen: set[str] = set()
        for number, scenario in enumerate(value, start=1):
            fresh = [t for t in scenario.tasks if t not in seen]
            if not fresh and len(seen) < offered:  # a scenario that tests nothing new adds nothing to the benchmark
                raise ValueError(f"scenario {number} repeats the tasks of an earlier scenario ({', '.join(scenario.tasks)}); give it other tasks")
            scenario.tasks = fresh or scenario.tasks
            seen.update(scenario.tasks)
        return value


class TaskTypes(BaseModel):
    task: str
    question_types: list[str]

    @field_validator("question_types")
    @classmethod
    def _types(cls, value: list[str]) -> list[str]:
        known = [normalise_task(t) for t in value if normalise_task(t) in ALL_QUESTION_TYPES]
        if not known:
            raise ValueError(f"none of {value} is a question type of the catalogue")
        return list(dict.fromkeys(known))[:3]


class QuestionTypesReply(BaseModel):
    tasks: list[TaskTypes]

    @model_validator(mode="after")
    def _all_tasks(self, info: ValidationInfo) -> QuestionTypesReply:
        wanted = _ctx(info).get("tasks")
        if wanted:
            given = {canonical_task(t.task) for t in self.tasks}
            missing = [t for t in wanted if t not in given]
            if missing:
                raise ValueError(f"give question types for every task of the scenario; missing: {', '.join(missing)}")
        return self

    def by_task(self) -> dict[str, list[str]]:
        return {canonical_task(t.task) or t.task: t.question_types for t in self.tasks}


class ProposedCall(BaseModel):
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    # Filled by running the call on the video (never taken from the writer's reply).
    response: Any = None
    verified: bool = False
    note: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for alias in ("name", "tool_name"):
                if "tool" not in data and alias in data:
                    data["tool"] = data.pop(alias)
            for alias in ("parameters", "args", "params"):
                if "arguments" not in data and alias in data:
                    data["arguments"] = data.pop(alias)
        return data

    @model_validator(mode="after")
    def _accepted(self, info: ValidationInfo) -> ProposedCall:
        check = _ctx(info).get("check_call")
        if check is not None:
            self.arguments = check(self.tool, self.arguments)
        return self


class QuestionTurn(BaseModel):
    question: str
    difficulty: int = Field(3, ge=1, le=5)
    modalities: list[str] = Field(default_factory=list)
    spans: list[int]
    conversation_role: str | None = None
    tool_calls: list[ProposedCall] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if "conversation_role" not in data and "role" in data:
                data["conversation_role"] = data.pop("role")
            for alias in ("key_segments", "segments", "key_spans"):
                if "spans" not in data and alias in data:
                    data["spans"] = data.pop(alias)
            if isinstance(data.get("difficulty"), str) and data["difficulty"].strip().isdigit():
                data["difficulty"] = int(data["difficulty"].strip())
        return data

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        return _no_labels(value, "question")

    @field_validator("spans", mode="before")
    @classmethod
    def _spans(cls, value: Any, info: ValidationInfo) -> list[int]:
        return _known_spans(span_ids(value), info, "the question")

    @field_validator("modalities", mode="before")
    @classmethod
    def _modalities(cls, value: Any) -> list[str]:
        words = [value] if isinstance(value, str) else list(value or [])
        found = [MODALITY_WORDS.get(normalise_task(w)) for w in words]
        return list(dict.fromkeys(m for m in found if m)) or ["visual"]

    @field_validator("conversation_role", mode="before")
    @classmethod
    def _role(cls, value: Any) -> str | None:
        role = normalise_task(value) if value else None
        return role if role in CONVERSATION_ROLES else None


class QuestionsReply(BaseModel):
    turns: list[QuestionTurn]

    @model_validator(mode="after")
    def _shape(self, info: ValidationInfo) -> QuestionsReply:
        ctx = _ctx(info)
        lo, hi = ctx.get("turns", (1, 3))
        if not lo <= len(self.turns) <= hi:
            want = f"exactly {lo}" if lo == hi else f"{lo} to {hi}"
            raise ValueError(f"write {want} question(s) in \"turns\", not {len(self.turns)}")
        asked = [t.question.lower() for t in self.turns]
        if len(set(asked)) < len(asked):
            raise ValueError("the questions of a conversation must differ")
        if ctx.get("kind") == "agentic":
            if any(not t.tool_calls for t in self.turns):
                raise ValueError("every question of an agentic sample needs the tool calls that answer it, in \"tool_calls\"")
            tool = ctx.get("tool")
            if tool and not any(c.tool == tool for t in self.turns for c in t.tool_calls):
                raise ValueError(f"the tool calls must include {tool}")
            calls = [c for t in self.turns for c in t.tool_calls]
            run = ctx.get("run_calls")
            outcomes = run([(c.tool, c.arguments) for c in calls]) if run else [{} for _ in calls]
            for call, outcome in zip(calls, outcomes, strict=True):
                call.response, call.verified, call.note = outcome.get("response"), bool(outcome.get("verified")), outcome.get("note")
        else:
            for turn in self.turns:
                turn.tool_calls = []
        roles = list(CONVERSATION_ROLES)
        for i, turn in enumerate(self.turns):
            if len(self.turns) > 1 and (turn.conversation_role is None or (i == 0) != (turn.conversation_role == "opener")):
                turn.conversation_role = "opener" if i == 0 else roles[min(i, len(roles) - 1)]
        return self


class Answer(BaseModel):
    answer: str
    spans: list[int]

    @field_validator("answer")
    @classmethod
    def _answer(cls, value: str) -> str:
        return _no_labels(value, "answer")

    @field_validator("spans", mode="before")
    @classmethod
    def _spans(cls, value: Any, info: ValidationInfo) -> list[int]:
        return _known_spans(span_ids(value), info, "the answer")

    @property
    def unanswerable(self) -> bool:
        return UNANSWERABLE in self.answer.lower()


class AnswersReply(BaseModel):
    answers: list[Answer]

    @field_validator("answers")
    @classmethod
    def _count(cls, value: list[Answer], info: ValidationInfo) -> list[Answer]:
        wanted = _ctx(info).get("count")
        if wanted is not None and len(value) != wanted:
            raise ValueError(f"give exactly {wanted} answer(s), one per question in order, not {len(value)}")
        return value


# Penalty criteria of the paper's rubric prompt, with the description each always carries.
STANDARD_PENALTIES = {
    "hallucination": "Must not include anything the video does not show or say",
    "contradiction": "Must not contradict itself",
    "temporal_error": "Must not give a wrong time or order of events",
    "entity_error": "Must not mistake a person, object or place for another",
    "factual_error": "Must not state facts that contradict what happens in the video",
}
MAX_CRITERIA = 5


class CriteriaReply(BaseModel):
    """Criteria in the scorer's own :class:`Criterion` model, with the weights of their categories
    written out (high 5, medium 3, low 1, penalty -5) and the standard penalty descriptions."""

    criteria: list[Criterion]

    @field_validator("criteria", mode="before")
    @classmethod
    def _drop_weights(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{k: v for k, v in c.items() if k != "weight"} if isinstance(c, dict) else c for c in value]
        return value

    @field_validator("criteria")
    @classmethod
    def _rules(cls, value: list[Criterion]) -> list[Criterion]:
        if len(value) > MAX_CRITERIA:
            raise ValueError(f"write at most {MAX_CRITERIA} criteria in all, not {len(value)}")
        names = [c.name for c in value]
        if len(set(names)) < len(names):
            raise ValueError("use every criterion name once")
        if not any(c.category == "high_priority" for c in value):
            raise ValueError("at least one criterion must be high_priority")
        out = []
        for c in value:
            penalty_name = normalise_task(c.name)
            if penalty_name in STANDARD_PENALTIES:
                c = c.model_copy(update={"name": penalty_name, "category": "penalty", "is_penalty": True,
                                         "description": STANDARD_PENALTIES[penalty_name]})  # fmt: skip
            elif not c.description.strip():
                raise ValueError(f"criterion {c.name!r} has no description")
            out.append(c.model_copy(update={"weight": DEFAULT_WEIGHTS[c.category]}))
        if not any(c.is_penalty for c in out):  # every rubric of the paper carries the hallucination penalty
            if len(out) == MAX_CRITERIA:
                raise ValueError(f"leave room for the hallucination penalty: at most {MAX_CRITERIA - 1} other criteria")
            out.append(Criterion(name="hallucination", description=STANDARD_PENALTIES["hallucination"], category="penalty",
                                 weight=DEFAULT_WEIGHTS["penalty"]))  # fmt: skip
        return out


class DraftReply(BaseModel):
    """One turn written from one fact: the question, its reference answer and its rubric (the spans it
    cites and the tool calls are the fact's own, set by the code, not by the writer)."""

    question: str
    answer: str
    criteria: list[Criterion]

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for field, aliases in (("answer", ("reference_answer", "reference")), ("criteria", ("rubric",))):
                for alias in aliases:
                    if field not in data and alias in data:
                        data[field] = data.pop(alias)
        return data

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        return _no_labels(value, "question")

    @field_validator("answer")
    @classmethod
    def _answer(cls, value: str) -> str:
        value = _no_labels(value, "answer")
        if UNANSWERABLE in value.lower():
            raise ValueError("the answer must state the fact given; ask a question the fact answers")
        return value

    @field_validator("criteria", mode="before")
    @classmethod
    def _rubric(cls, value: Any) -> list[Criterion]:
        if isinstance(value, list):  # a bare description: the first is the essential fact, the rest support it
            value = [{"name": f"fact_{i + 1}", "description": c, "category": "high_priority" if i == 0 else "medium_priority"}
                     if isinstance(c, str) else c for i, c in enumerate(value)]  # fmt: skip
        return CriteriaReply.model_validate({"criteria": value}).criteria

    @model_validator(mode="after")
    def _rubric_from_answer(self) -> DraftReply:
        """The essential criteria name what the answer states (not the example's placeholder)."""
        said = set(tx.content_words(self.answer)) | {f"{n:g}" for n in tx.numbers(self.answer, words=False)}
        for c in self.criteria:
            named = set(tx.content_words(c.description)) | {f"{n:g}" for n in tx.numbers(c.description, words=False)}
            if c.category == "high_priority" and not named & said:
                raise ValueError(f"criterion {c.name!r} ({c.description!r}) names nothing the answer says; name the answer's key words")
        return self
