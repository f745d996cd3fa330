"""Answer quality on real media: the fact questions of ``../shared/eval/dev_qa.json`` (or the file
``STARAGENT_EVAL`` names), asked of each agent given (``profile:offline`` by default), run and scored
by ``staragent bench`` (dataset kind ``factqa``): accuracy overall, by kind and by video, tool calls per
question, seconds per answer. A run resumes where a killed one stopped, over answers the same code gave (its commit and
uncommitted changes to the package, ``code_version``): a run made by other code starts over, as ``--fresh`` does.

    python perf/answers.py [profile:offline ...] [--fresh] [--cases FILE]

``--cases FILE`` runs another question file of the same shape (a blind round in ``eval/blind/``) and
saves its results as ``answers_<file stem>_cpu.json``, beside the dev set's.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, WORK, save, summary

DEV_SET = ROOT.parent / "shared" / "eval" / "dev_qa.json"


def dev_set(cases: str | None = None) -> Path | None:
    path = Path(cases or os.environ.get("STARAGENT_EVAL") or DEV_SET)
    return path if path.is_file() else None


def code_version() -> str | None:
    """The commit of the checkout, and a digest of its uncommitted changes to the package: a run
    resumes only over answers the same code gave. None outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        diff = subprocess.run(["git", "diff", "HEAD", "--", "staragent"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{head[:12]}+{hashlib.sha256(diff).hexdigest()[:12]}" if diff else head[:12]


def run_agent(spec: str, dataset, fresh: bool, tag: str = "") -> dict:
    from staragent.bench.agents import make_agent
    from staragent.bench.execution import run_benchmark
    from staragent.bench.rundir import load_run
    from staragent.bench.scoring import score_run
    from staragent.config import load_settings

    out = WORK / "answers" / (spec.replace(":", "-").replace(",", "_") + tag)
    version, marker = code_version(), out / "code_version.txt"
    if out.exists() and not fresh and version and (not marker.is_file() or marker.read_text().strip() != version):
        print(f"{out.name}: made by other code than {version}; starting over (a resumed run would reuse its answers)", flush=True)
        fresh = True
    if fresh:
        shutil.rmtree(out, ignore_errors=True)
    if version:
        out.mkdir(parents=True, exist_ok=True)
        marker.write_text(version + "\n")
    settings = load_settings(cache_dir=WORK / "cache-answers", progress=False)
    agent = make_agent(spec, settings)
    started = time.perf_counter()
    run_benchmark(dataset, agent, out, dataset_spec=dataset.source, agent_spec=spec)
    seconds = time.perf_counter() - started
    summaries = score_run(out, judge=None, metrics=["factqa"])
    _, samples, records = load_run(out)
    scored = {(s.sample_id, s.meta.get("scored_turn", 0)) for s in samples}
    answers = [r for r in records if r.key in scored]
    return {
        "agent": spec,
        "run_dir": str(out.relative_to(ROOT)),
        "factqa": summaries["factqa"],
        "tool_calls_per_question": summary([len(r.trajectory) for r in answers]),
        "answered_after_a_tool_call": sum(1 for r in answers if r.trajectory),
        "seconds_per_answer": summary([r.latency_s for r in answers]),
        "tokens": {"prompt": sum(r.tokens.input for r in answers), "completion": sum(r.tokens.output for r in answers)},
        "wall_seconds": seconds,
    }


def main(*args) -> dict | None:
    from staragent.bench.kinds import load_dataset

    words = [str(a) for a in args]
    fresh = "--fresh" in words
    cases = words[words.index("--cases") + 1] if "--cases" in words[:-1] else None
    specs = [w for w in words if not w.startswith("--") and w != cases] or ["profile:offline"]
    path = dev_set(cases)
    if path is None:
        print(f"answers: no dev set at {DEV_SET} (set STARAGENT_EVAL to the fact-question file); skipped", flush=True)
        return None
    dataset = load_dataset(path)
    runs = []
    for spec in specs:
        result = run_agent(spec, dataset, fresh, tag=f"-{path.stem}" if cases else "")
        f = result["factqa"]
        print(f"answers {spec}: {f['right']}/{f['n']} right ({f['accuracy']}%)", flush=True)
        runs.append(result)
    data = {"command": f"python perf/answers.py --cases {cases}" if cases else "python perf/run.py answers", "dataset": str(path.relative_to(ROOT.parent)) if path.is_relative_to(ROOT.parent) else str(path),
            "questions": len(dataset.samples), "runs": runs}
    save(f"answers_{path.stem}_cpu" if cases else "answers_cpu", data)
    return data


if __name__ == "__main__":
    main(*sys.argv[1:])
