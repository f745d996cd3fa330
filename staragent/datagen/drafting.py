"""Samples written from facts (the ``facts`` strategy): one writer call per turn, each about one fact.

The plan fixes each sample's kind (single-turn, multi-turn, agentic) and target difficulty; the facts
come from :func:`.facts.spread_order`. For each turn the writer sees one fact and nothing else of the
video (the spans beside it lured a 1.5B model into asking about a nearby title card instead), the
conversation so far and, for an agentic sample, what the fact's own tool returned when run on the video
(the call is the code's, so it always names a real tool with arguments it accepts), and writes the
question, the reference answer and its rubric in one reply.

A turn that cannot be used is not asked again: a reply that stays unusable after the writer's retries, a
question that repeats an earlier one, a tool that refuses the fact's moment, or a draft that fails the
automatic checks moves the sample on to the next fact (a follow-up turn to the next fact in time), at
most ``max_repairs`` times. Every attempt is recorded with its outcome, which is the yield's bookkeeping.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from ..bench.sample_records import Sample
from ..prompts import render
from ..timecodes import format_time, to_clock
from .checks import check_sample, find_duplicates
from .describe import Description, render_span
from .facts import BENCH_MODALITY, MODALITY_WORDS, Fact
from .replies import DraftReply
from .stages import assemble, weighted_cycle
from .taxonomy import DEFAULT_QUESTION_TYPES, DIFFICULTY_MIX, KIND_MIX, TASK_GUIDE, agentic_task

# Tasks a fact of each kind can ground, in the order they are preferred; the least used one is taken,
# so the samples spread over the taxonomy.
TASKS_BY_MODALITY: dict[str, tuple[str, ...]] = {
    "speech": ("information_retrieval", "audio_understanding", "summarization", "sentiment_analysis", "instruction_extraction"),
    "screen": ("entity_recognition", "information_retrieval", "temporal_understanding"),
    "sound": ("audio_understanding", "temporal_understanding"),
    "caption": ("event_understanding", "motion_analysis"),
}
NUMBER_TASK = "quantitative_reasoning"
AGENTIC_QUESTION_TYPE = "key_information_extraction"
FOLLOW_UP_ROLES = ("deepener", "synthesizer")
TURNS = {"single": 1, "multi": 2, "agentic": 1}
TOOL_RESULT_CHARS = 1200


@dataclass(frozen=True)
class Slot:
    id: str
    kind: str
    difficulty: int

    @property
    def turns(self) -> int:
        return TURNS[self.kind]


@dataclass
class Attempt:
    """One fact tried for one turn of a sample, and what became of it."""

    slot: str
    turn: int
    fact: int
    outcome: str  # "kept", or why the sample moved on: "duplicate", a check's name, "no usable reply", "tool refused"
    detail: str = ""

    @property
    def kept(self) -> bool:
        return self.outcome == "kept"


def plan_slots(kinds: list[str], per_video: int) -> list[Slot]:
    """``per_video`` slots in the kinds' proportions (a longer plan starts with the shorter one) and the
    paper's difficulty mix."""
    order = weighted_cycle({k: KIND_MIX[k] for k in kinds}, per_video)
    levels = weighted_cycle(DIFFICULTY_MIX, per_video)
    return [Slot(id=f"{kind[0]}{i:02d}", kind=kind, difficulty=levels[i]) for i, kind in enumerate(order)]


def tool_call_of(fact: Fact, duration: float) -> dict[str, Any]:
    """The call that reads the fact back from the video: its own tool on its own moment (whole seconds
    that cover it, inside the video)."""
    return {"tool": fact.tool, "arguments": {"timestamp": f"{to_clock(fact.start)}-{to_clock(min(fact.end + 0.999, duration))}"}}


class FactDrafter:
    """Writes the samples of one video from its ordered facts (see the module docstring)."""

    def __init__(self, run: Any, desc: Description, order: list[Fact], *, tasks: list[str], tools: list[str], max_repairs: int):
        self.run = run
        self.desc = desc
        self.order = order
        self.tasks = tasks
        self.tools = tools
        self.max_repairs = max_repairs
        self.spans = desc.span_map()
        self.used: set[int] = set()
        self.written: list[tuple[str, str]] = []  # (key, question) of every kept turn
        self.task_uses: Counter[str] = Counter()
        self.tool_uses: Counter[str] = Counter()
        self.attempts: list[Attempt] = []

    # -- which fact next
    def _first_fact(self, slot: Slot) -> Fact | None:
        fresh = [f for f in self.order if f.id not in self.used]
        if slot.kind != "agentic":
            return fresh[0] if fresh else None
        usable = [f for f in fresh if f.tool in self.tools]
        if not usable:
            return None
        tool = min({f.tool for f in usable}, key=lambda t: (self.tool_uses[t], self.tools.index(t)))  # spread over the tools
        return next(f for f in usable if f.tool == tool)

    def _follow_up_fact(self, previous: Fact) -> Fact | None:
        """The fact nearest after the previous turn's (before it when none follows): a follow-up."""
        fresh = [f for f in self.order if f.id not in self.used]
        return min(fresh, key=lambda f: (f.start < previous.start, abs(f.start - previous.end)), default=None)

    def _task(self, slot: Slot, fact: Fact) -> tuple[str, str]:
        if slot.kind == "agentic":
            return agentic_task(fact.tool), AGENTIC_QUESTION_TYPE
        wanted = [*TASKS_BY_MODALITY[fact.modality], *([NUMBER_TASK] if fact.has_numbers else [])]
        fitting = [t for t in wanted if t in self.tasks] or self.tasks
        task = min(fitting, key=lambda t: (self.task_uses[t], fitting.index(t)))
        types = DEFAULT_QUESTION_TYPES[task]
        return task, types[self.task_uses[task] % len(types)]

    # -- one turn
    def _tool_call(self, fact: Fact) -> dict[str, Any]:
        """The fact's call, run on the video; ``ValueError`` when the tool refuses it."""
        call = tool_call_of(fact, self.desc.duration)
        call["arguments"] = self.run.toolbox.check(call["tool"], call["arguments"])
        outcome = self.run.toolbox.run_calls([(call["tool"], call["arguments"])])[0]
        return {**call, **outcome}

    def _write_turn(self, slot: Slot, index: int, fact: Fact, task: str, question_type: str, before: list[tuple[dict, dict, list]]) -> tuple[Attempt, tuple | None]:
        call = None
        if slot.kind == "agentic":
            try:
                call = self._tool_call(fact)
            except ValueError as exc:
                return Attempt(slot.id, index, fact.id, "tool refused", str(exc)), None
        role = "opener" if index == 0 else FOLLOW_UP_ROLES[min(index - 1, len(FOLLOW_UP_ROLES) - 1)]
        result = json.dumps(call.get("response"), ensure_ascii=False)[:TOOL_RESULT_CHARS] if call else ""
        prompt = render(
            "datagen_fact", duration=format_time(self.desc.duration), when=format_time(fact.start), task=task, question_type=question_type,
            task_guide=TASK_GUIDE.get(task, f"questions answered by using the {fact.tool} tool"), difficulty=slot.difficulty,
            conversation=[{"question": q["question"], "answer": a["answer"]} for q, a, _ in before],
            role=role, tool_call=f"{call['tool']}({json.dumps(call['arguments'])})" if call else "", tool_result=result,
            fact=render_span(fact.as_span()), fact_kind=MODALITY_WORDS[fact.modality],
        )  # fmt: skip
        value, error = self.run.ask(prompt, DraftReply)
        if value is None:
            return Attempt(slot.id, index, fact.id, "no usable reply", error or ""), None
        question = {
            "question": value.question, "difficulty": slot.difficulty, "modalities": [BENCH_MODALITY[fact.modality]], "spans": [fact.span],
            "conversation_role": role if slot.turns > 1 else None, "tool_calls": [call] if call else [],
        }  # fmt: skip
        answer = {"answer": value.answer, "spans": [fact.span]}
        return Attempt(slot.id, index, fact.id, "kept"), (question, answer, [c.model_dump(mode="json", exclude_none=True) for c in value.criteria])

    def _problems(self, sample: Sample, index: int, key: str) -> list[str]:
        """Why the draft's newest turn cannot stay: a repeated question, or a check's error."""
        question = sample.qa_turns()[index].question.content
        problems = ["duplicate"] if key in find_duplicates([*self.written, (key, question)]) else []
        checks = check_sample(sample, self.spans, self.desc.duration, self.run.toolbox, min_support=self.run.options.min_support)
        problems += [c.name for c in checks if c.level == "error" and c.turn in (index, None)]
        return list(dict.fromkeys(problems))

    # -- one sample
    def write(self, slot: Slot) -> Sample | None:
        """The slot's sample; when its facts run out, its last draft (which fails its checks), or None
        when the writer gave nothing usable."""
        kept: list[tuple[dict, dict, list]] = []
        facts: list[Fact] = []
        task, question_type, last = "", "", None
        moves = 0
        while len(kept) < slot.turns and moves <= self.max_repairs:
            fact = self._first_fact(slot) if not kept else self._follow_up_fact(facts[-1])
            if fact is None:
                break
            self.used.add(fact.id)
            if not kept:
                task, question_type = self._task(slot, fact)
            attempt, turn = self._write_turn(slot, len(kept), fact, task, question_type, kept)
            if turn is not None:
                draft = self._assemble(slot, task, question_type, [*kept, turn], fact.tool if slot.kind == "agentic" else None)
                key = f"{draft.sample_id}#{len(kept)}"
                problems = self._problems(draft, len(kept), key)
                last = draft
                if not problems:
                    self.attempts.append(attempt)
                    self.written.append((key, turn[0]["question"]))
                    kept.append(turn)
                    facts.append(fact)
                    continue
                attempt.outcome, attempt.detail = ", ".join(problems), turn[0]["question"]
            self.attempts.append(attempt)
            moves += 1
        if last is not None and len(kept) == slot.turns:
            self.task_uses[task] += 1
            if slot.kind == "agentic":
                self.tool_uses[facts[0].tool] += 1
        return last

    def _assemble(self, slot: Slot, task: str, question_type: str, turns: list[tuple], tool: str | None) -> Sample:
        plan = {
            "id": slot.id, "kind": slot.kind, "task": task, "tool": tool, "difficulty": slot.difficulty,
            "scenario": scenario_for(slot.kind, task), "question_types": [question_type], "windows": [],
        }  # fmt: skip
        return assemble(self.desc, plan, [q for q, _, _ in turns], [a for _, a, _ in turns], {i: c for i, (_, _, c) in enumerate(turns)}, self.run.writer.identity)


def scenario_for(kind: str, task: str) -> str:
    """The viewing situation of a sample, from its task (the facts strategy asks the writer for none)."""
    if kind == "agentic":
        return "Someone asks an assistant that can run tools on the video about one moment of it."
    return f"Someone who watched the video asks about {TASK_GUIDE.get(task, 'what it says and shows')}."


def yield_of(attempts: list[Attempt]) -> dict[str, Any]:
    """How the drafting went: turns tried, kept, and why the others moved on."""
    reasons = Counter(reason for a in attempts if not a.kept for reason in a.outcome.split(", "))
    return {"tried": len(attempts), "kept": sum(a.kept for a in attempts), "moved_on": dict(reasons)}


def attempts_data(attempts: list[Attempt]) -> list[dict[str, Any]]:
    return [asdict(a) for a in attempts]
