"""Finalisation: the samples of every video of a run, checked again (after any reviewer's edits and
across videos), filtered by the automatic checks and the review decisions, written as one STARBench
JSON file that ``staragent bench run`` reads.

Which samples go in: a sample a reviewer accepted (edits applied) always; one a reviewer rejected
never; an undecided one when its automatic checks found no error (``reviewed_only`` leaves the
undecided out). Every sample keeps its checks and the review decision in ``meta``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ..bench.harness_errors import DatagenError
from ..bench.sample_records import Criterion, Sample
from ..fsutil import read_json, write_json
from .checks import Check, check_sample, find_duplicates, status_of
from .describe import Description
from .review import load_decisions

DATASET_FILE = "dataset.json"


def video_dirs(out: Path) -> list[Path]:
    root = out / "videos"
    return sorted(d for d in root.iterdir() if (d / "samples.json").is_file()) if root.is_dir() else []


def collect(out: Path) -> list[tuple[Sample, Description]]:
    """Every generated sample of the run, with its video's description."""
    found = []
    for directory in video_dirs(out):
        desc = Description.model_validate(read_json(directory / "describe.json"))
        for row in read_json(directory / "samples.json")["samples"]:
            found.append((Sample.model_validate(row), desc))
    return found


def _edited(sample: Sample, decision: dict[str, Any]) -> Sample:
    """The sample with a reviewer's edits to questions, answers and rubrics applied."""
    turns = decision.get("turns") or {}
    if not turns:
        return sample
    conversations = list(sample.conversations)
    pairs = sample.qa_turns()
    positions = {id(t): i for i, t in enumerate(conversations)}
    for key, edit in turns.items():
        pair = pairs[int(key)] if int(key) < len(pairs) else None
        if pair is None:
            continue
        if edit.get("question"):
            conversations[positions[id(pair.question)]] = pair.question.model_copy(update={"content": edit["question"]})
        update: dict[str, Any] = {}
        if edit.get("answer"):
            update["content"] = edit["answer"]
        if edit.get("criteria"):
            update["criteria"] = [Criterion.model_validate(c) for c in edit["criteria"]]
        if update:
            conversations[positions[id(pair.answer)]] = pair.answer.model_copy(update=update)
    return sample.model_copy(update={"conversations": conversations})


def checked_samples(out: Path, *, min_support: float = 0.5) -> list[tuple[Sample, Description]]:
    """Every sample of the run with the review's edits applied and its checks run again (per sample,
    and across each video's questions for duplicates), with its video's description."""
    from ..tools import ToolRegistry
    from .toolbox import ToolBox

    decisions = load_decisions(out)
    registry = ToolRegistry.discover()
    found = [(_edited(s, decisions.get(s.sample_id, {})), d) for s, d in collect(out)]
    duplicates: dict[str, str] = {}
    for video in dict.fromkeys(s.video_id for s, _ in found):  # the same words about two videos ask two things
        keyed = [(f"{s.sample_id}#{p.index}", p.question.content) for s, _ in found if s.video_id == video for p in s.qa_turns()]
        duplicates.update(find_duplicates(keyed))
    samples = []
    for sample, desc in found:
        toolbox = ToolBox(registry, None, None, desc.duration)
        checks = check_sample(sample, desc.span_map(), desc.duration, toolbox, min_support=min_support)
        for pair in sample.qa_turns():
            if (twin := duplicates.get(f"{sample.sample_id}#{pair.index}")) is not None:
                checks.append(Check("duplicate", "error", f"repeats the question of {twin.replace('#', ' turn ')}", pair.index))
        decision = decisions.get(sample.sample_id, {})
        meta = {**sample.meta, "checks": [c.to_dict() for c in checks], "status": status_of(checks)}
        meta["review"] = {k: decision[k] for k in ("decision", "note") if decision.get(k)} or {"decision": "undecided"}
        samples.append((sample.model_copy(update={"meta": meta}), desc))
    return samples


def included(sample: Sample, reviewed_only: bool) -> bool:
    decision = sample.meta["review"].get("decision")
    if decision in ("accept", "reject"):
        return decision == "accept"
    return not reviewed_only and sample.meta["status"] != "fail"


def finalize(
    out: Path, *, reviewed_only: bool = False, min_support: float = 0.5, dataset: Path | None = None, review: bool = False
) -> dict[str, Any]:
    """Write the dataset file (default ``OUT/dataset.json``) and, with ``review``, the review files;
    return what went in and why the rest did not."""
    from .review import export_review

    checked = checked_samples(out, min_support=min_support)
    samples = [s for s, _ in checked]
    if not samples:
        raise DatagenError(f"{out} holds no generated samples; run `staragent datagen VIDEO --out {out}` first")
    kept = [s for s in samples if included(s, reviewed_only)]
    path = dataset or out / DATASET_FILE
    write_json(path, [s.model_dump(mode="json", exclude_none=True) for s in kept])
    paths = export_review(out, checked) if review else {}
    return {
        "review": {k: str(v) for k, v in paths.items()},
        "dataset": str(path),
        "samples": len(kept),
        "turns": sum(len(s.qa_turns()) for s in kept),
        "videos": len({s.video_id for s in kept}),
        "generated": len(samples),
        "status": dict(Counter(s.meta["status"] for s in samples)),
        "decisions": dict(Counter(s.meta["review"]["decision"] for s in samples)),
        "kinds": dict(Counter(s.meta.get("kind", "?") for s in kept)),
        "tasks": dict(Counter(s.task for s in kept)),
        "errors": dict(Counter(c["name"] for s in samples for c in s.meta["checks"] if c["level"] == "error")),
        "yield": yield_summary(samples),
    }


def yield_summary(samples: list[Sample]) -> dict[str, Any]:
    """What the automatic checks let through: generated, passed (no error: ``pass`` or ``flagged``), the
    passed share, and how many passed samples are agentic and multi-turn."""
    passed = [s for s in samples if s.meta.get("status") != "fail"]
    return {
        "generated": len(samples),
        "passed": len(passed),
        "passed_share": round(len(passed) / len(samples), 3) if samples else 0.0,
        "agentic": sum(s.is_agentic for s in passed),
        "multi_turn": sum(s.is_multi_turn for s in passed),
    }

