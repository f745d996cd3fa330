"""A run as an inspect_ai eval log (``bench export --format inspect RUN``), so that ``inspect view``
and inspect_ai's own readers open it.

The log is written as inspect_ai's JSON log format (``EvalLog``, version 2) without importing
inspect_ai, so the export works where it is not installed. Each recorded turn becomes one
``EvalSample`` (id ``SAMPLE_ID/TURN``): its input is the conversation before the question (the ideal
trajectory, with reference answers) and the question, its target the reference answer, its messages
the agent's tool calls and answer, and its scores each scorer's typed
:class:`~staragent.bench.scorers.scorer.Score` (value, answer, explanation, metadata with the judge's
replies). A turn a scorer left out (no answer to judge) carries no score of that scorer and is counted
in its ``unscored_samples``. The results hold each scorer's headline numbers as metrics.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ..fsutil import stable_hash, write_json
from .report import build_summary, latest_rows
from .rundir import load_run, now_iso, read_scores
from .scorers.common import Unit, mean, units_of
from .scorers.registry import all_scorers
from .scorers.scorer import value_at

LOG_VERSION = 2
STATUS = {"complete": "success", "partial": "success", "running": "started", "interrupted": "cancelled"}


def _messages_before(unit: Unit) -> list[dict[str, Any]]:
    history = unit.sample.history_before(unit.pair.index)
    return [{"role": m["role"], "content": m["content"], "source": "input"} for m in history] + [
        {"role": "user", "content": unit.question, "source": "input"}
    ]


def _agent_messages(unit: Unit, model: str) -> list[dict[str, Any]]:
    """The agent's tool calls (each an assistant call and a tool reply) and its answer."""
    record = unit.record
    out: list[dict[str, Any]] = []
    for i, step in enumerate(record.trajectory if record else ()):
        call_id = f"call-{unit.pair.index}-{i}"
        out.append({"role": "assistant", "content": "", "model": model,
                    "tool_calls": [{"id": call_id, "function": step.tool, "arguments": step.args, "type": "function"}]})  # fmt: skip
        reply: dict[str, Any] = {"role": "tool", "content": step.summary, "tool_call_id": call_id, "function": step.tool}
        if not step.ok:
            reply["error"] = {"type": "unknown", "message": step.error or "the tool failed"}
        out.append(reply)
    if record is not None and record.ok:
        out.append({"role": "assistant", "content": record.answer, "model": model, "source": "generate"})
    return out


def _sample(unit: Unit, scores: dict[str, dict[str, Any]], model: str) -> dict[str, Any]:
    record = unit.record
    before = _messages_before(unit)
    answer = record.answer if record is not None and record.ok else ""
    sample: dict[str, Any] = {
        "id": f"{unit.sample.sample_id}/{unit.pair.index}",
        "epoch": 1,
        "input": before,
        "target": unit.reference,
        "messages": before + _agent_messages(unit, model),
        "output": {
            "model": model,
            "choices": [{"message": {"role": "assistant", "content": answer, "model": model}, "stop_reason": "stop"}] if answer else [],
            "completion": answer,
        },
        "scores": scores,
        "metadata": {
            **{k: v for k, v in unit.describe().items() if v is not None},
            "evidence": [e.model_dump(mode="json") for e in record.evidence] if record else [],
            "simulated_tools": record.simulated_tools if record else False,
        },
        "uuid": stable_hash([unit.sample.sample_id, unit.pair.index, record.finished_at if record else ""])[:22],
    }
    if record is not None:
        sample["started_at"] = record.started_at or None
        sample["completed_at"] = record.finished_at or None
        sample["total_time"] = record.latency_s
        sample["model_usage"] = {model: _usage(record.tokens.input, record.tokens.output)}
        if not record.ok:
            message = record.error or "the agent gave no answer"
            sample["error"] = {"message": message, "traceback": message, "traceback_ansi": message}
    return {k: v for k, v in sample.items() if v is not None}


def _usage(tokens_in: int, tokens_out: int) -> dict[str, int]:
    return {"input_tokens": tokens_in, "output_tokens": tokens_out, "total_tokens": tokens_in + tokens_out}


def _metrics(name: str, summary: dict[str, Any] | None, values: list[float]) -> dict[str, dict[str, Any]]:
    """The scorer's headline numbers (and the mean of its per-turn values) as inspect metrics."""
    metrics: dict[str, dict[str, Any]] = {}
    for headline in all_scorers()[name].headlines:
        value = value_at(summary, headline.key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            metrics[headline.key] = {"name": headline.key, "value": value, "metadata": {"label": headline.label}}
    average = mean(values)
    if average is not None:
        metrics.setdefault("mean", {"name": "mean", "value": average})
    return metrics


def eval_log(run_dir: str | Path, judge_tag: str | None = None) -> dict[str, Any]:
    """The run in ``run_dir`` as an inspect_ai ``EvalLog`` (a JSON-ready dict)."""
    meta, samples, records = load_run(run_dir)
    summary = build_summary(run_dir, judge_tag)
    chosen = latest_rows(read_scores(run_dir), judge_tag)
    agent = meta.get("agent", {})
    dataset = meta.get("dataset", {})
    model = f"staragent/{agent.get('spec') or agent.get('name') or 'agent'}"
    units = units_of(samples, records)
    scorers = {name: scorer for name, scorer in all_scorers().items() if name in chosen}
    per_unit: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    values: dict[str, list[float]] = {name: [] for name in scorers}
    answers = {(u.sample.sample_id, u.pair.index): u.answer for u in units}
    for name, scorer in scorers.items():
        for row in chosen[name]:
            key = (row.get("sample_id"), row.get("turn"))
            if key not in answers:  # a corpus-level row, or a turn no longer in the run
                continue
            score = scorer.score_of(row, answers[key])
            if score.value is None:
                continue
            values[name].append(float(score.value))
            per_unit.setdefault(key, {})[name] = {k: v for k, v in dataclasses.asdict(score).items() if v is not None}
    results_scores = [
        {
            "name": name,
            "scorer": name,
            "scored_samples": len(values[name]),
            "unscored_samples": len(units) - len(values[name]),
            "metrics": _metrics(name, summary["metrics"].get(name), values[name]),
            "metadata": {"title": scorer.title, "judge": summary["judges"].get(name), "judge_tag": summary["metric_judge_tags"].get(name)},
        }
        for name, scorer in scorers.items()
    ]
    git = meta.get("environment", {}).get("git", {})
    created = meta.get("created_at") or now_iso()
    run_id = stable_hash([str(Path(run_dir).resolve()), created])[:22]
    packages = {k: v for k, v in (meta.get("environment", {}).get("packages") or {}).items() if v}
    log: dict[str, Any] = {
        "version": LOG_VERSION,
        "status": STATUS.get(str(meta.get("status")), "started"),
        "eval": {
            "eval_id": stable_hash([run_id, judge_tag or ""])[:22],
            "run_id": run_id,
            "created": created,
            "task": f"staragent/{dataset.get('kind') or 'bench'}",
            "task_id": stable_hash(dataset.get("fingerprint") or dataset.get("spec") or "")[:22],
            "task_version": 0,
            "task_display_name": dataset.get("name"),
            "task_args": dataset.get("options") or {},
            "solver": agent.get("name"),
            "solver_args": agent.get("config") or {},
            "dataset": {
                "name": dataset.get("name"),
                "location": dataset.get("spec") or dataset.get("source"),
                "samples": len(units),
                "sample_ids": [f"{u.sample.sample_id}/{u.pair.index}" for u in units],
            },
            "model": model,
            "config": {},
            "packages": packages,
            "metadata": {"run_dir": str(run_dir), "options": meta.get("options", {}), "judges": summary["judges"]},
            "scorers": [{"name": name, "metadata": {"needs": dataclasses.asdict(s.needs)}} for name, s in scorers.items()],
        },
        "plan": {"name": "plan", "steps": [{"solver": agent.get("name") or "agent", "params": agent.get("config") or {}}], "config": {}},
        "results": {"total_samples": len(units), "completed_samples": sum(1 for u in units if u.record and u.record.ok), "scores": results_scores},
        "stats": {
            "started_at": created,
            "completed_at": meta.get("updated_at") or created,
            "model_usage": {model: _usage(sum(r.tokens.input for r in records), sum(r.tokens.output for r in records))},
        },
        "samples": [_sample(u, per_unit.get((u.sample.sample_id, u.pair.index), {}), model) for u in units],
    }
    if git.get("revision"):
        log["eval"]["revision"] = {"type": "git", "origin": "", "commit": git["revision"], "dirty": bool(git.get("dirty"))}
    return log


def log_name(log: dict[str, Any]) -> str:
    """inspect's file naming, ``<created>_<task>_<id>.json``, which ``inspect view`` lists."""
    stamp = log["eval"]["created"].replace(":", "-")
    task = log["eval"]["task"].replace("/", "-")
    return f"{stamp}_{task}_{log['eval']['eval_id']}.json"


def write_eval_log(run_dir: str | Path, out: str | Path | None = None, judge_tag: str | None = None) -> Path:
    """Write the log to ``out`` (a ``.json`` file, or a folder to name it in; default
    ``RUN_DIR/inspect/``) and return its path."""
    log = eval_log(run_dir, judge_tag)
    target = Path(out) if out else Path(run_dir) / "inspect"
    path = target if target.suffix == ".json" else target / log_name(log)
    write_json(path, log)
    return path
