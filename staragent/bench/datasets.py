"""Readers of the dataset file formats. Every loader returns a :class:`Dataset` of
:class:`~staragent.bench.sample_records.Sample`; :func:`staragent.bench.kinds.load_dataset` picks the loader
by the kind's task (:mod:`staragent.bench.kinds`).

A dataset spec is a path, optionally prefixed by its kind:

- ``PATH.json`` / ``PATH.jsonl`` or ``starbench:PATH`` — STARBench / LongShOTBench samples (a list, a
  ``{"samples": [...]}`` object, a ``{sample_id: sample}`` mapping, or JSON lines). Assistant turns may
  carry a released ``candidate_response``; the ``replay`` agent answers with it.
- ``hf:ID[:CONFIG][@SPLIT]`` — the same shape from the Hugging Face hub (needs ``datasets`` and network).
- ``vdact:PATH`` — VDAct model outputs (``{id, dial_id, turn_num, question, ref_answer, gen_answer}``),
  one multi-turn sample per dialogue, with the scenario summary of ``summaries/<scenario>.txt`` beside
  the ``results`` folder (scenario id = ``dial_id`` without its last two digits). A turn listed twice
  is kept once (see :func:`dedupe_vdact_rows`).
- ``videoautobench:PATH`` — VideoAutoBench questions (``{qid: {video_id, persona, question,
  "selected answer", "rejected answer"}}``); the selected answer is the reference.

Loaders take options (``load_dataset(spec, responses=FILE)``; on the command line
``--dataset-option responses=FILE``): ``name`` for every kind, ``summaries=DIR`` for VDAct and
``responses=FILE`` for VideoAutoBench (a model's answers, replayable with ``--agent replay``). An
option a kind does not take is an error, not silently ignored.
- ``giraffe:PATH`` — Giraffe-Bench-style rows ``{id, evaluator: sgae|ppe|mgae, context, question,
  ground_truth, prediction?}``.
- ``synthetic:PATH.facts.json`` — the offline benchmark built from a sample-video script.
- ``factqa:PATH`` — fact questions about real videos (``{"videos": {...}, "cases": [...]}``, the shape
  of ``../shared/eval/dev_qa.json``), scored by answer patterns and cited spans (``scorers.factqa``).

Without a prefix the kind is recognised from the file's name and content, else from its first row. A malformed row raises
:class:`~staragent.bench.harness_errors.DatasetError` naming the file, the row and the problem.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .harness_errors import DatasetError
from .sample_records import Dataset, Sample, Turn

HUB_EXTRA_HINT = "pip install 'staragent[hub]'"

log = logging.getLogger("staragent.bench")


def shared_data_dir() -> Path:
    """``STARAGENT_SHARED_DATA`` or ``<repo>/../shared/data``: third-party data used by tests and checks."""
    env = os.environ.get("STARAGENT_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _json_or_none(path: Path) -> Any:
    """The JSON value of ``path``, or None when it is not one JSON document (JSON lines, say)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSON or JSON-lines file. A mapping of id -> row becomes rows with an ``id`` key."""
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if path.suffix == ".jsonl" or (stripped.startswith("{") and "\n{" in stripped and not _is_json(stripped)):
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(
                    f"{path}: line {number} is not valid JSON ({exc.msg}); fix or remove that line"
                ) from None
        return rows
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix the file") from None
    if isinstance(data, dict):
        for key in ("samples", "data", "rows"):
            if isinstance(data.get(key), list):
                return data[key]
        if all(isinstance(v, dict) for v in data.values()):
            return [{"id": k, **v} for k, v in data.items()]
        raise DatasetError(f"{path} holds a JSON object that is neither a list of rows nor a mapping of id to row")
    if not isinstance(data, list):
        raise DatasetError(f"{path} must hold a JSON list of rows")
    return data


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def _row_error(path: Path, number: int, row: Any, exc: ValidationError | ValueError) -> DatasetError:
    ident = row.get("sample_id") or row.get("id") if isinstance(row, dict) else None
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()))
        problem = f"{where + ': ' if where else ''}{err.get('msg')}"
    else:
        problem = str(exc)
    label = f"row {number}" + (f" ({ident})" if ident else "")
    return DatasetError(f"{path}: {label} is malformed: {problem}; fix that row or remove it from the file")


def load_starbench_rows(rows: list[dict[str, Any]], path: Path | str, name: str | None = None, **_: Any) -> Dataset:
    samples = []
    seen: set[str] = set()
    for number, row in enumerate(rows, start=1):
        try:
            sample = Sample.model_validate(row)
        except (ValidationError, ValueError) as exc:
            raise _row_error(Path(path), number, row, exc) from None
        if sample.sample_id in seen:
            raise DatasetError(f"{path}: sample id {sample.sample_id!r} appears twice (row {number}); ids must be unique")
        seen.add(sample.sample_id)
        samples.append(sample)
    return Dataset(name or Path(path).stem, "starbench", str(path), samples)


def load_hf(spec: str, name: str | None = None, **_: Any) -> Dataset:
    """``ID[:CONFIG][@SPLIT]`` from the Hugging Face hub (split ``test`` by default)."""
    match = re.match(r"^([^:@]+)(?::([^@]+))?(?:@(.+))?$", spec.strip())
    if not match:
        raise DatasetError(f"cannot read the hub dataset spec {spec!r}; write hf:OWNER/NAME[:CONFIG][@SPLIT]")
    repo, config, split = match.group(1), match.group(2), match.group(3) or "test"
    rows = _fetch_hf_rows(repo, config, split)
    return load_starbench_rows(rows, f"hf:{spec}", name=name or f"{repo.split('/')[-1]}-{config or 'default'}-{split}")


def _import_hf_datasets() -> Any:
    try:
        import datasets as hf_datasets
    except ImportError:
        raise DatasetError(
            f"loading from the Hugging Face hub needs the `datasets` package: {HUB_EXTRA_HINT}; "
            "or download the split as JSONL and pass its path"
        ) from None
    return hf_datasets


def _fetch_hf_rows(repo: str, config: str | None, split: str) -> list[dict[str, Any]]:
    hf_datasets = _import_hf_datasets()
    try:  # pragma: no cover - network
        ds = hf_datasets.load_dataset(repo, config, split=split)
    except Exception as exc:
        raise DatasetError(f"could not load {repo} ({config or 'default'}, split {split}) from the hub: {exc}") from None
    return [dict(row) for row in ds]


def load_vdact_rows(
    rows: list[dict[str, Any]], path: Path, summaries: str | Path | None = None, name: str | None = None, **_: Any
) -> Dataset:
    """One multi-turn sample per dialogue; the generated answers become replayable predictions."""
    summaries_dir = Path(summaries) if summaries else path.parent.parent / "summaries"
    if summaries and not summaries_dir.is_dir():
        raise DatasetError(f"VDAct summaries folder not found: {summaries_dir}; pass the folder of <scenario>.txt files")
    for number, row in enumerate(rows, start=1):
        missing = [k for k in ("dial_id", "turn_num", "question", "ref_answer") if k not in row]
        if missing:
            raise DatasetError(
                f"{path}: row {number} lacks {', '.join(missing)}; VDAct rows need dial_id, turn_num, question, "
                "ref_answer (and gen_answer for replay)"
            )
    rows, duplicates = dedupe_vdact_rows(rows, path)
    dialogues: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        dialogues.setdefault(str(row["dial_id"]), []).append(row)
    samples = []
    for dial_id, turns in dialogues.items():
        turns.sort(key=lambda r: int(r["turn_num"]))
        scenario_id = dial_id[:-2]
        summary_file = summaries_dir / f"{scenario_id}.txt"
        summary = summary_file.read_text(encoding="utf-8").strip() if summary_file.is_file() else ""
        conversations: list[Turn] = []
        for r in turns:
            conversations.append(Turn(role="user", content=str(r["question"])))
            conversations.append(
                Turn(
                    role="assistant",
                    content=str(r["ref_answer"]),
                    prediction=None if r.get("gen_answer") is None else str(r["gen_answer"]),
                    turn_id=str(r.get("id", "")),
                    turn_num=int(r["turn_num"]),
                )
            )
        samples.append(
            Sample(
                sample_id=dial_id,
                video_id=scenario_id,
                sample_type="multi_turn" if len(turns) > 1 else "single_turn",
                scenario=summary,
                task="vdact_dialogue",
                conversations=conversations,
                meta={"summary": summary, "scenario_id": scenario_id},
            )
        )
    meta: dict[str, Any] = {"summaries": str(summaries_dir)}
    if duplicates["identical"] or duplicates["conflicting"]:
        meta["duplicates_dropped"] = duplicates
    return Dataset(name or path.stem, "vdact", str(path), samples, meta)


def dedupe_vdact_rows(rows: list[dict[str, Any]], path: Path | str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Each turn ``(dial_id, turn_num)`` once: a repeat identical to the first row is dropped; a repeat
    that differs (another generated answer) is dropped too, keeping the first. Both are counted, and
    logged as a warning, so ``n`` counts turns, not rows."""
    first: dict[tuple[str, int], dict[str, Any]] = {}
    counts = {"identical": 0, "conflicting": 0}
    for row in rows:
        key = (str(row["dial_id"]), int(row["turn_num"]))
        if key not in first:
            first[key] = row
        else:
            counts["identical" if row == first[key] else "conflicting"] += 1
    if counts["identical"]:
        log.warning("%s: dropped %d duplicate rows identical to an earlier row of the same turn", path, counts["identical"])
    if counts["conflicting"]:
        log.warning(
            "%s: %d turns are listed twice with different contents; kept the first row of each", path, counts["conflicting"]
        )
    return list(first.values()), counts


def _clean_question(text: str) -> str:
    text = str(text).strip()
    text = re.sub(r"^\*+\s*|\s*\*+$", "", text)
    return text.strip()


def load_videoautobench_rows(
    rows: list[dict[str, Any]], path: Path, name: str | None = None, responses: str | Path | None = None, **_: Any
) -> Dataset:
    """Questions with their selected/rejected answers; ``responses`` (a responses file, or a ``response``
    field in the rows) become replayable predictions."""
    if responses and not Path(responses).is_file():
        raise DatasetError(f"VideoAutoBench responses file not found: {responses}; pass a file of {{qid: {{response}}}} rows")
    answers = load_videoautobench_responses(responses) if responses else {}
    samples = []
    for number, row in enumerate(rows, start=1):
        qid = row.get("qid") or row.get("id")
        if not qid or "question" not in row:
            raise DatasetError(f"{path}: row {number} lacks a question id or question; VideoAutoBench rows need both")
        selected = row.get("selected answer") or row.get("selected_answer") or ""
        rejected = row.get("rejected answer") or row.get("rejected_answer") or ""
        samples.append(
            Sample(
                sample_id=str(qid),
                video_id=str(row.get("video_id", "")),
                sample_type="single_turn",
                task="videoautobench",
                conversations=[
                    Turn(role="user", content=_clean_question(row["question"])),
                    Turn(role="assistant", content=str(selected), prediction=answers.get(str(qid), row.get("response"))),
                ],
                meta={"persona": row.get("persona", ""), "rejected_answer": rejected, "selected_answer": selected},
            )
        )
    return Dataset(name or path.stem, "videoautobench", str(path), samples)


def load_videoautobench_responses(path: str | Path) -> dict[str, str]:
    """``{qid: response}`` from a VideoAutoBench responses file (mapping or rows with qid/response)."""
    rows = read_rows(Path(path))
    out = {}
    for number, row in enumerate(rows, start=1):
        qid = row.get("qid") or row.get("id")
        if not qid or "response" not in row:
            raise DatasetError(f"{path}: row {number} lacks qid or response")
        out[str(qid)] = str(row["response"])
    return out


GIRAFFE_EVALUATORS = ("sgae", "ppe", "mgae")


def load_giraffe_rows(rows: list[dict[str, Any]], path: Path, name: str | None = None, **_: Any) -> Dataset:
    samples = []
    for number, row in enumerate(rows, start=1):
        evaluator = str(row.get("evaluator", "")).lower()
        if evaluator not in GIRAFFE_EVALUATORS:
            raise DatasetError(
                f"{path}: row {number} has evaluator {row.get('evaluator')!r}; use one of {', '.join(GIRAFFE_EVALUATORS)}"
            )
        ident = row.get("id") or row.get("sample_id") or f"row{number}"
        prediction = row.get("prediction")
        if isinstance(prediction, list):
            prediction = "\n".join(f"{i}. {p}" for i, p in enumerate(prediction, start=1))
        question = row.get("question") or row.get("query") or "Predict what happens next in this video."
        samples.append(
            Sample(
                sample_id=str(ident),
                video_id=str(row.get("video_id", "")),
                sample_type="single_turn",
                task=f"giraffe_{evaluator}",
                conversations=[
                    Turn(role="user", content=str(question)),
                    Turn(role="assistant", content=str(row.get("ground_truth") or ""), prediction=prediction),
                ],
                meta={"evaluator": evaluator, "context": str(row.get("context", "")), "dataset": row.get("dataset", "")},
            )
        )
    return Dataset(name or path.stem, "giraffe", str(path), samples)
