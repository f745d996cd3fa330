"""The dev set (../shared/eval/dev_qa.json) answered by the real LLM planner and by the rule planner,
side by side: accuracy by kind, tool calls per question, seconds per answer (p50 / p95), prompt and
completion tokens, answers given after at least one tool call, and cited times past the video's end.

    staragent llm serve &                               # the real LLM (pip install 'staragent[llm]')
    python perf/llm_dev.py                        # both planners, then docs/performance.md
    python perf/llm_dev.py --only llm --limit 10  # a part of one run

Each run is `staragent bench run` (resumable: run the script again to finish a stopped run) then
`staragent bench score` (the factqa metric: answer pattern and cited span). The results go to
perf/results/llm_dev.json and the section "The dev set: LLM planner and rule planner" of
docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import ROOT, WORK, save, summary  # noqa: E402

DATASET = ROOT.parent.parent / "shared" / "eval" / "dev_qa.json"
if not DATASET.is_file():  # a checkout beside ../shared rather than a worktree under /work/wt
    DATASET = ROOT.parent / "shared" / "eval" / "dev_qa.json"
AGENTS = {"rules": "profile:offline", "llm": "profile:openai"}


CACHE = WORK / "cache-answers"
"""the indexes perf/answers.py builds of the same media: built once, read by both"""


def staragent(*args: str, env: dict | None = None) -> None:
    command = [sys.executable, "-m", "staragent", "--quiet", *args]
    print("$", " ".join(command[2:]), flush=True)
    subprocess.run(command, check=True, env={**os.environ, "STARAGENT_CACHE_DIR": str(CACHE), **(env or {})})


def run_dir(name: str, dataset: Path) -> Path:
    return WORK / (f"dev-{name}" if dataset.resolve() == DATASET.resolve() else f"{dataset.stem}-{name}")


def run(name: str, dataset: Path, base_url: str, limit: int | None) -> Path:
    out = run_dir(name, dataset)
    env = {"STARAGENT_PLANNER__BASE_URL": base_url} if name == "llm" else {}
    staragent("bench", "run", str(dataset), "--agent", AGENTS[name], "--out", str(out), "--retry-errors",
              *(["--limit", str(limit)] if limit else []), env=env)
    staragent("bench", "score", str(out), "--metrics", "factqa")
    return out


def video_durations(dataset: Path) -> dict[str, float]:
    from staragent.media import probe

    videos = json.loads(dataset.read_text())["videos"]
    return {name: probe(dataset.parent / v["file"]).duration for name, v in videos.items()}


def measure(out: Path, durations: dict[str, float]) -> dict:
    """The numbers of one run, from its scored turns and their records."""
    from staragent.agent.grounding import quoted_in
    from staragent.timecodes import times_in_text

    scores = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines() if line.strip()]
    rows = {(r["sample_id"], r["turn"]): r for r in scores if r.get("metric") == "factqa"}
    records = {}
    for line in (out / "trajectories.jsonl").read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            records[(record["sample_id"], record["turn"])] = record
    scored = [records[key] for key in rows if key in records]
    by_kind: dict[str, list[bool]] = {}
    for row in rows.values():
        by_kind.setdefault(row["kind"], []).append(bool(row.get("right")))
    def outside(record: dict) -> bool:
        """A time cited past the video's end (a time quoted from the evidence, such as a clock on
        screen, or from the question is no citation)."""
        quoted = "\n".join([record["question"], *(e["text"] for e in record["evidence"]), *(s["summary"] for s in record["trajectory"])])
        end = durations.get(record["video_id"], float("inf")) + 1
        return any(m.end > end and not quoted_in(m, quoted) for m in times_in_text(record["answer"]))

    right = sum(1 for r in rows.values() if r.get("right"))
    return {
        "questions": len(rows),
        "right": right,
        "accuracy": round(100 * right / len(rows), 1) if rows else None,
        "by_kind": {k: {"n": len(v), "right": sum(v)} for k, v in sorted(by_kind.items())},
        "errors": sum(1 for r in scored if not r.get("ok", True)),
        "tool_calls_per_question": per_question(scored, lambda s: True),
        "planner_calls_per_question": per_question(scored, lambda s: not s.get("by_agent")),
        "answers_after_a_tool_call": sum(1 for r in scored if r["trajectory"]),
        "answers_after_a_planner_call": sum(1 for r in scored if any(not s.get("by_agent") for s in r["trajectory"])),
        "answers_citing_times_outside_the_video": sum(1 for r in scored if outside(r)),
        "seconds": summary([r["latency_s"] for r in scored]),
        "prompt_tokens": summary([r["tokens"]["input"] for r in scored]),
        "completion_tokens": summary([r["tokens"]["output"] for r in scored]),
    }


def same_answers(llm: Path, rules: Path) -> int | None:
    """How many of the LLM's scored answers are the rule planner's word for word (the draft a small
    model is shown, kept or put back when the model found nothing)."""
    if not (llm / "trajectories.jsonl").is_file() or not (rules / "trajectories.jsonl").is_file():
        return None

    def answers(out: Path) -> dict:
        scored = {(r["sample_id"], r["turn"]) for r in map(json.loads, (out / "scores.jsonl").read_text().splitlines()) if r.get("metric") == "factqa"}
        records = (json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines() if line.strip())
        return {(r["sample_id"], r["turn"]): r["answer"].strip() for r in records if (r["sample_id"], r["turn"]) in scored}

    mine, theirs = answers(llm), answers(rules)
    return sum(1 for key, text in mine.items() if theirs.get(key) == text)


def per_question(records: list[dict], counts) -> float | None:
    return round(sum(1 for r in records for s in r["trajectory"] if counts(s)) / len(records), 2) if records else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1", help="the LLM server (`staragent llm serve`)")
    parser.add_argument("--only", choices=sorted(AGENTS))
    parser.add_argument("--limit", type=int, help="the first N cases only")
    args = parser.parse_args(argv)
    from staragent.agent.planners.openai import served_models

    durations = video_durations(args.dataset)
    results = {}
    for name in [args.only] if args.only else list(AGENTS):
        out = run(name, args.dataset, args.base_url, args.limit)
        results[name] = measure(out, durations)
        results[name]["command"] = f"python perf/llm_dev.py --only {name}" + (f" --limit {args.limit}" if args.limit else "")
        if name == "llm":
            results[name]["model"] = served_models(args.base_url)[0]
    dev = args.dataset.resolve() == DATASET.resolve()
    stem = "llm_dev" if dev else f"llm_{args.dataset.stem}"
    previous = WORK.parent.parent / "perf" / "results" / f"{stem}.json"
    if args.only and previous.is_file():  # keep the other planner's last run beside this one
        results = {**json.loads(previous.read_text()).get("runs", {}), **results}
    if "llm" in results and (copied := same_answers(run_dir("llm", args.dataset), run_dir("rules", args.dataset))) is not None:
        results["llm"]["answers_as_the_rules_drafted"] = copied
    command = "python perf/llm_dev.py" + ("" if dev else f" --dataset {args.dataset}") + (f" --limit {args.limit}" if args.limit else "")
    notes = json.loads(previous.read_text()).get("notes", []) if previous.is_file() else []  # written by hand: kept, to be revised
    print(save(stem, {"command": command, "dataset": str(args.dataset.name), "runs": results, **({"notes": notes} if notes else {})}))
    import report

    report.main()


if __name__ == "__main__":
    main()
