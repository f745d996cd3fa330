"""The stages of the construction pipeline, one function each. A stage takes the outputs of the
stages it depends on (plain JSON data) and returns its own; :mod:`.pipeline` runs them in order,
caches each output and skips what is already done.

describe -> summaries -> scenarios -> question_types -> plan -> questions -> answers -> criteria -> samples
"""

from __future__ import annotations

import json
import random
from typing import Any

from ..bench.harness_errors import DatagenError
from ..bench.sample_records import Criterion, Sample, ToolCall, Turn
from ..bench.tasks import CANONICAL_TASKS
from ..prompts import render
from ..timecodes import format_range, format_time
from .checks import check_sample, find_duplicates, status_of
from .describe import Description, describe, render_spans
from .replies import (
    UNANSWERABLE,
    AnswersReply,
    CriteriaReply,
    QuestionsReply,
    QuestionTypesReply,
    ScenariosReply,
    SummaryReply,
)
from .taxonomy import (
    AGENTIC_TOOLS,
    COMPANION_TOOLS,
    DEFAULT_QUESTION_TYPES,
    DIFFICULTY_MIX,
    KIND_MIX,
    LONG_HORIZON_TASKS,
    QUESTION_TYPES,
    TASK_GUIDE,
    TASK_NEEDS,
    TOOL_NEEDS,
    agentic_task,
    fits,
    resolve_tasks,
)

FALLBACK_SCENARIO = "Someone who watched the video wants to check what was said, shown and heard in it."
WRITTEN_SHOWN = 15  # earlier questions shown to the writer so that it does not repeat them
TOOL_RESULT_CHARS = 1200
MODALITY_NAMES = {"speech": "speech", "ocr": "on-screen text", "sound": "sounds", "caption": "picture descriptions"}


def _description(inputs: dict[str, Any]) -> Description:
    return Description.model_validate(inputs["describe"])


def modalities_of(desc: Description) -> str:
    found = [name for kind, name in MODALITY_NAMES.items() if kind in desc.evidence()]
    return "has " + ", ".join(found) if found else "holds little"


def overview(desc: Description, summaries: list[dict[str, Any]]) -> str:
    """One line per window: its time and its summary (the start of its spans when the summary failed)."""
    by_id = desc.span_map()
    lines = []
    for row, window in zip(summaries, desc.windows, strict=True):
        text = row.get("summary") or render_spans([by_id[i] for i in window.spans])[:400]
        lines.append(f"[{format_range(window.start, window.end)}] {text}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- stages


def stage_describe(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    desc = describe(run.index, run.video_id, run.options.window_chars)
    if not desc.spans:
        raise DatagenError(f"{run.video.name} has nothing to ask about: its index holds no speech, on-screen text or sounds")
    run.count_items(len(desc.windows))
    return desc.model_dump(mode="json")


def stage_summaries(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    desc = _description(inputs)
    by_id = desc.span_map()

    def one(window: Any) -> dict[str, Any]:
        prompt = render(
            "datagen_summarize", spans=render_spans([by_id[i] for i in window.spans]), start=format_time(window.start),
            end=format_time(window.end), duration=format_time(desc.duration),
        )  # fmt: skip
        value, error = run.ask(prompt, SummaryReply)
        return {"window": window.id, "summary": value.summary if value else None, "error": error}

    return {"summaries": run.map(desc.windows, one, "summaries")}


def offered_tasks(run: Any, desc: Description) -> list[str]:
    """Canonical tasks asked for (``--tasks``) that the video's evidence can ground."""
    canonical, _, _ = resolve_tasks(run.options.tasks)
    evidence = desc.evidence()
    return [t for t in CANONICAL_TASKS if t in canonical and fits(TASK_NEEDS.get(t), evidence)]


def stage_scenarios(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    desc = _description(inputs)
    offer = offered_tasks(run, desc) or [t for t in CANONICAL_TASKS if fits(TASK_NEEDS.get(t), desc.evidence())]
    prompt = render(
        "datagen_scenarios", max_scenarios=run.options.max_scenarios, duration=format_time(desc.duration),
        modalities=modalities_of(desc), overview=overview(desc, inputs["summaries"]["summaries"]),
        tasks=[(t, TASK_GUIDE[t]) for t in offer],
    )  # fmt: skip
    value, error = run.ask(prompt, ScenariosReply, {"tasks": set(offer), "max_scenarios": run.options.max_scenarios})
    scenarios = [s.model_dump() for s in value.scenarios] if value else [{"scenario": FALLBACK_SCENARIO, "tasks": offer[:2]}]
    run.count_items(len(scenarios))
    return {"scenarios": scenarios, "error": error}


def stage_question_types(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    catalogue = list(QUESTION_TYPES.items())

    def one(scenario: dict[str, Any]) -> dict[str, Any]:
        prompt = render("datagen_question_types", scenario=scenario["scenario"], tasks=scenario["tasks"], catalogue=catalogue)
        value, error = run.ask(prompt, QuestionTypesReply, {"tasks": scenario["tasks"]})
        chosen = value.by_task() if value else {}
        types = {t: chosen.get(t) or list(DEFAULT_QUESTION_TYPES[t]) for t in scenario["tasks"]}
        return {**scenario, "question_types": types, "error": error}

    return {"scenarios": run.map(inputs["scenarios"]["scenarios"], one, "question types")}


def agentic_tools(run: Any, desc: Description) -> list[str]:
    """Tools asked for that the video's evidence supports (a tool named in ``--tasks`` always)."""
    _, tools, named = resolve_tasks(run.options.tasks)
    evidence = desc.evidence()
    return [t for t in AGENTIC_TOOLS if t in tools and t in run.registry and (t in named or fits(TOOL_NEEDS.get(t), evidence))]


def weighted_cycle(shares: dict[Any, float], n: int) -> list[Any]:
    """The first ``n`` picks of a smooth weighted round robin over ``shares``: every prefix keeps the
    proportions as closely as it can, so a longer plan starts with the shorter one."""
    current = dict.fromkeys(shares, 0.0)
    total = sum(shares.values())
    picks = []
    for _ in range(n):
        for key in current:
            current[key] += shares[key]
        chosen = max(current, key=lambda k: current[k])
        current[chosen] -= total
        picks.append(chosen)
    return picks


GOLDEN = 0.6180339887498949


def stage_plan(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Which samples to write: kind, task, scenario, window(s) of the video, target difficulty. Fixed
    by the options and the seed, so the mix of kinds, tasks and difficulty levels is controlled rather
    than left to the writer, and questions are spread over the whole video. Slot ``i`` does not depend
    on how many slots there are: raising ``--per-video`` adds samples and keeps those already written."""
    desc = _description(inputs)
    scenarios = inputs["question_types"]["scenarios"]
    wanted = set(offered_tasks(run, desc))
    pairs = [(i, t) for i, s in enumerate(scenarios) for t in s["tasks"] if t in wanted]
    tools = agentic_tools(run, desc)
    kinds = [k for k in run.options.kinds if (tools if k == "agentic" else pairs)]
    if not kinds:
        raise DatagenError(
            f"nothing to generate for {run.video.name}: the tasks asked for ({', '.join(run.options.tasks) or 'all'}) need "
            f"content the video lacks (it {modalities_of(desc)})"
        )
    total = run.options.per_video
    order = weighted_cycle({k: KIND_MIX[k] for k in kinds}, total)
    levels = weighted_cycle(DIFFICULTY_MIX, total)
    n_windows = len(desc.windows)
    offset = random.Random(f"{run.options.seed}:{desc.video_id}").random()
    slots = []
    seen = dict.fromkeys(kinds, 0)
    for i, kind in enumerate(order):
        n = seen[kind]
        seen[kind] += 1
        window = int(((offset + i * GOLDEN) % 1.0) * n_windows)  # a low-discrepancy walk over the video
        if kind == "agentic":
            tool = tools[n % len(tools)]
            scenario_index, task, types = n % len(scenarios), agentic_task(tool), []
            turns = 2 if tool == "memory_tool" or n % 2 else 1
        else:
            tool = None
            scenario_index, task = pairs[n % len(pairs)]
            types = scenarios[scenario_index]["question_types"].get(task, [])
            turns = 1 if kind == "single" else 2 + n % 2
        windows = [window]
        if task in LONG_HORIZON_TASKS and n_windows > 1:  # ask across distant parts of the video
            windows.append((window + n_windows // 2) % n_windows)
        slots.append({
            "id": f"{kind[0]}{i:02d}", "kind": kind, "task": task, "tool": tool, "turns": turns, "difficulty": levels[i],
            "scenario": scenarios[scenario_index]["scenario"], "question_types": types, "windows": sorted(windows),
        })  # fmt: skip
    run.count_items(len(slots))
    return {"slots": slots}


def _slot_spans(desc: Description, slot: dict[str, Any]) -> list[Any]:
    return desc.window_spans(slot["windows"])


def _span_range(spans: list[Any]) -> tuple[str, str]:
    return format_time(spans[0].start), format_time(spans[-1].end)


def stage_questions(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    desc = _description(inputs)
    slots = inputs["plan"]["slots"]
    written: list[str] = []
    rows: list[dict[str, Any]] = []

    def one(slot: dict[str, Any], shown: list[str]) -> dict[str, Any]:
        spans = _slot_spans(desc, slot)
        agentic = slot["kind"] == "agentic"
        start, end = _span_range(spans)
        prompt = render(
            "datagen_questions", kind=slot["kind"], turns=slot["turns"], difficulty=slot["difficulty"], task=slot["task"],
            task_guide=TASK_GUIDE.get(slot["task"], f"questions answered by using the {slot['tool']} tool"),
            question_types=slot["question_types"], scenario=slot["scenario"], tool=slot["tool"], duration=format_time(desc.duration),
            tool_lines=[run.toolbox.line(t) for t in dict.fromkeys([slot["tool"], *COMPANION_TOOLS]) if t in run.registry] if agentic else [],
            spans=render_spans(spans), start=start, end=end, written=shown, example_span=spans[0].label,
            example_args=run.toolbox.example_arguments(slot["tool"], spans[0].start, spans[0].end) if agentic else "{}",
        )  # fmt: skip
        turns = (slot["turns"], slot["turns"]) if slot["kind"] == "single" else (2, 3) if slot["kind"] == "multi" else (1, 2)
        context = {"kind": slot["kind"], "turns": turns, "spans": {s.id for s in spans}, "tool": slot["tool"]}
        if agentic:
            context.update(check_call=run.toolbox.check, run_calls=run.toolbox.run_calls)
        value, error = run.ask(prompt, QuestionsReply, context)
        return {"slot": slot["id"], "turns": [t.model_dump(mode="json") for t in value.turns] if value else None, "error": error}

    width = max(1, run.options.concurrency)
    with run.bar(len(slots), "questions") as bar:
        for at in range(0, len(slots), width):  # in waves, each seeing the questions of the waves before it
            shown = written[-WRITTEN_SHOWN:]
            wave = run.map(slots[at : at + width], lambda s, shown=shown: one(s, shown))
            bar.update(len(wave))
            rows += wave
            written += [t["question"] for row in wave for t in row["turns"] or []]
    run.count_items(len(rows))
    return {"samples": rows}


def _call_line(call: dict[str, Any]) -> str:
    head = f"{call['tool']}({json.dumps(call['arguments'], ensure_ascii=False)})"
    if call.get("response") is None:
        return f"{head} -> (result unknown: {call.get('note') or 'not run'})"
    body = json.dumps(call["response"], ensure_ascii=False)
    return f"{head} -> {body[:TOOL_RESULT_CHARS]}{'…' if len(body) > TOOL_RESULT_CHARS else ''}"


def stage_answers(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    desc = _description(inputs)
    slots = {s["id"]: s for s in inputs["plan"]["slots"]}
    todo = [row for row in inputs["questions"]["samples"] if row["turns"]]

    def one(row: dict[str, Any]) -> dict[str, Any]:
        slot = slots[row["slot"]]
        spans = _slot_spans(desc, slot)
        start, end = _span_range(spans)
        calls = [c for t in row["turns"] for c in t["tool_calls"]]
        prompt = render(
            "datagen_answers", scenario=slot["scenario"], spans=render_spans(spans), start=start, end=end,
            duration=format_time(desc.duration), tool_results="\n".join(_call_line(c) for c in calls),
            turns=[{"question": t["question"], "spans": [f"S{i}" for i in t["spans"]]} for t in row["turns"]],
        )  # fmt: skip
        value, error = run.ask(prompt, AnswersReply, {"count": len(row["turns"]), "spans": {s.id for s in spans}})
        return {"slot": row["slot"], "answers": [a.model_dump() for a in value.answers] if value else None, "error": error}

    return {"samples": run.map(todo, one, "answers")}


def stage_criteria(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    questions = {row["slot"]: row for row in inputs["questions"]["samples"]}
    todo = []
    for row in inputs["answers"]["samples"]:
        for i, answer in enumerate(row["answers"] or []):
            if UNANSWERABLE not in answer["answer"].lower():  # such a sample fails its checks: no rubric needed
                todo.append((row["slot"], i, questions[row["slot"]]["turns"][i], answer))

    def one(item: tuple) -> dict[str, Any]:
        slot, i, turn, answer = item
        prompt = render(
            "datagen_criteria", question=turn["question"], answer=answer["answer"],
            tool_calls="; ".join(_call_line(c) for c in turn["tool_calls"]),
        )  # fmt: skip
        value, error = run.ask(prompt, CriteriaReply)
        criteria = [c.model_dump(mode="json", exclude_none=True) for c in value.criteria] if value else None
        return {"slot": slot, "turn": i, "criteria": criteria, "error": error}

    return {"turns": run.map(todo, one, "criteria")}


def assemble(desc: Description, slot: dict[str, Any], turns: list[dict], answers: list[dict], criteria: dict[int, list[dict]], writer: dict) -> Sample:
    by_id = desc.span_map()
    conversations: list[Turn] = []
    for i, (q, a) in enumerate(zip(turns, answers, strict=True)):
        conversations.append(Turn(
            role="user", content=q["question"], difficulty=q["difficulty"], modalities=q["modalities"],
            key_segments=q["spans"], conversation_role=q.get("conversation_role"),
        ))  # fmt: skip
        calls = [
            ToolCall(tool=c["tool"], parameters=c["arguments"], expected_response=c.get("response"), verified=c.get("verified", False),
                     **({"note": c["note"]} if c.get("note") else {}))
            for c in q.get("tool_calls") or []
        ]  # fmt: skip
        evidence = [{"segment": s, "start": by_id[s].start, "end": by_id[s].end} for s in a["spans"] if s in by_id]
        conversations.append(Turn(
            role="assistant", content=a["answer"], criteria=[Criterion.model_validate(c) for c in criteria.get(i, [])],
            tool_calls=calls, evidence=evidence,
        ))  # fmt: skip
    return Sample(
        sample_id=f"{desc.video_id}-{slot['id']}", video_id=desc.video_id, duration=desc.duration,
        sample_type="multi_turn" if len(turns) > 1 else "single_turn", scenario=slot["scenario"], task=slot["task"],
        conversations=conversations, video_path=desc.video,
        meta={"kind": slot["kind"], "tool": slot["tool"], "question_types": slot["question_types"],
              "target_difficulty": slot["difficulty"], "windows": slot["windows"], "writer": writer},
    )  # fmt: skip


def stage_samples(run: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """Assemble the samples in the benchmark's own schema and run the automatic checks on them."""
    desc = _description(inputs)
    slots = {s["id"]: s for s in inputs["plan"]["slots"]}
    questions = {r["slot"]: r for r in inputs["questions"]["samples"]}
    answers = {r["slot"]: r for r in inputs["answers"]["samples"]}
    criteria: dict[str, dict[int, list]] = {}
    for row in inputs["criteria"]["turns"]:
        if row["criteria"]:
            criteria.setdefault(row["slot"], {})[row["turn"]] = row["criteria"]
    samples, dropped = [], []
    for slot_id, slot in slots.items():
        q, a = questions.get(slot_id), answers.get(slot_id)
        if not q or not q["turns"] or not a or not a["answers"]:
            stage, row = ("questions", q) if not q or not q["turns"] else ("answers", a)
            dropped.append({"slot": slot_id, "stage": stage, "error": (row or {}).get("error") or "not written"})
            continue
        samples.append(assemble(desc, slot, q["turns"], a["answers"], criteria.get(slot_id, {}), run.writer.identity))
    rows = checked_rows(run, desc, samples)
    run.count_items(len(rows))
    return {"samples": rows, "dropped": dropped}


def checked_rows(run: Any, desc: Description, samples: list[Sample]) -> list[dict[str, Any]]:
    """The samples as JSON rows, each with its automatic checks and status in ``meta`` (duplicates
    across the video's questions included)."""
    spans = desc.span_map()
    duplicates = find_duplicates([(f"{s.sample_id}#{p.index}", p.question.content) for s in samples for p in s.qa_turns()])
    rows = []
    for sample in samples:
        checks = [c.to_dict() for c in check_sample(sample, spans, desc.duration, run.toolbox, min_support=run.options.min_support)]
        for pair in sample.qa_turns():
            if (twin := duplicates.get(f"{sample.sample_id}#{pair.index}")) is not None:
                checks.append({"name": "duplicate", "level": "error", "detail": f"repeats the question of {twin.replace('#', ' turn ')}", "turn": pair.index})
        sample.meta.update(checks=checks, status=status_of(checks))
        rows.append(sample.model_dump(mode="json", exclude_none=True))
    return rows
