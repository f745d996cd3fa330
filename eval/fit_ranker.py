"""Fit the reading core's ranker weights and its not-found threshold, and measure each feature.

    .venv/bin/python eval/fit_ranker.py [--train FILE ...] [--validate FILE] [--no-write]

Training questions (default: every blind round in ``eval/blind`` whose first run is recorded in
``perf/results/blind_rounds.json``; a round not yet run stays out, its first run is the honest measure) and validation questions (default: ``../shared/eval/dev_qa.json``, never trained on) are
fact-question files. For each question every line of its video's index gets its features; the lines
that answer it are those inside its ``span`` whose text, read with their neighbours, matches one of
its ``any`` patterns (else the lines that begin inside the span). The weights maximise the likelihood of those
lines under a softmax over each question's lines (listwise), with an L2 penalty. The threshold is the
best line's score that best separates answerable questions from those whose answer is absent. The
result is written to ``staragent/qa/ranker.json`` with the metrics, and an ablation table (each
feature left out, the rest refitted) is printed for docs/design.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from staragent.qa.core import read_frame  # noqa: E402
from staragent.qa.features import FEATURES, add_typed, line_features  # noqa: E402
from staragent.qa.frame import SpacyQuestionReader  # noqa: E402
from staragent.qa.lines import pool_of  # noqa: E402
from staragent.qa.retrieve import signals  # noqa: E402

FIRST_RUNS = ROOT / "perf" / "results" / "blind_rounds.json"
DEV_SET = ROOT.parent / "shared" / "eval" / "dev_qa.json"
ABSENT_KINDS = ("absent",)
SKIPPED_KINDS = ("summary", "visual-refusal")
"""an overview and a question about the pictures are not answered by one line"""
L2 = 0.05
STEPS = 600


@dataclass
class Example:
    case_id: str
    rows: np.ndarray
    positive: np.ndarray
    """boolean per line"""
    absent: bool


def _contexts(index_dirs: dict[str, Path]):
    from staragent.agent.session import open_tool_context
    from staragent.config import load_settings

    settings = load_settings(cache_dir=ROOT / ".cache" / "bench" / "cache-answers", progress=False)
    return {name: open_tool_context(path, settings) for name, path in index_dirs.items()}


def examples(path: Path, contexts: dict) -> list[Example]:
    data = json.loads(path.read_text())
    reader = SpacyQuestionReader()
    found = []
    for case in data["cases"]:
        if case.get("kind") in SKIPPED_KINDS:
            continue
        ctx = contexts[(path, case["video"])]
        turns = case.get("chat") or [case["q"]]
        pool = pool_of(ctx.index)
        frame = read_frame(pool, turns[-1], previous=turns[-2] if len(turns) > 1 else None, question_reader=reader)
        rows = line_features(frame, pool, signals(ctx.index, pool, frame, ctx.extras.get("query_encoders")))
        add_typed(rows, frame, pool, list(range(len(pool.lines))))
        patterns = [re.compile(p, re.I) for p in case["any"]]
        span = case.get("span")
        positive = np.zeros(len(pool.lines), dtype=bool)
        if span is not None and case.get("kind") not in ABSENT_KINDS:
            inside = [i for i, e in enumerate(pool.lines) if e.end > span[0] and e.start < span[1]]
            matched = [i for i in inside if any(p.search(pool.context_texts[i]) or p.search(pool.lines[i].text) for p in patterns)]
            # a question answered by a moment ("when does the window open?") matches no line: the lines
            # that came up inside the span answer it, not those on screen throughout
            began = [i for i in inside if span[0] <= pool.lines[i].start <= span[1]]
            positive[matched or began or inside] = True
        found.append(Example(case.get("id", "?"), rows, positive, case.get("kind") in ABSENT_KINDS))
    return found


def trained_rounds() -> list[Path]:
    """The blind rounds a model may be fitted on: those whose first run is recorded. A round committed
    but not yet run is held out, so its first run still measures questions no fitted weight has seen."""
    runs = json.loads(FIRST_RUNS.read_text())["runs"]
    recorded = {Path(run["file"]).name for run in runs}
    return sorted(p for p in (ROOT / "eval" / "blind").glob("round*.json") if p.name in recorded)


def video_paths(path: Path) -> dict[tuple[Path, str], Path]:
    data = json.loads(path.read_text())
    return {(path, name): (path.parent / v["file"]).resolve() for name, v in data["videos"].items()}


def fit(train: list[Example], mask: np.ndarray | None = None) -> np.ndarray:
    """Listwise softmax regression by gradient descent (Adam); ``mask`` zeroes left-out features."""
    mask = np.ones(len(FEATURES)) if mask is None else mask
    w = np.zeros(len(FEATURES))
    m, v = np.zeros_like(w), np.zeros_like(w)
    usable = [e for e in train if e.positive.any()]
    for step in range(1, STEPS + 1):
        grad = L2 * w
        for e in usable:
            x = e.rows * mask
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            target = e.positive / e.positive.sum()
            grad += x.T @ (p - target) / len(usable)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= 0.05 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w * mask


def top_hits(examples_: list[Example], w: np.ndarray, k: int) -> tuple[int, int]:
    usable = [e for e in examples_ if e.positive.any()]
    return sum(bool(e.positive[np.argsort(-(e.rows @ w), kind="stable")[:k]].any()) for e in usable), len(usable)


def threshold(examples_: list[Example], w: np.ndarray) -> tuple[float, float]:
    """The best-score threshold that best separates answerable from absent (balanced accuracy),
    and a scale for the confidence sigmoid (so that the spread of best scores maps onto 0-1)."""
    answerable = [float((e.rows @ w).max()) for e in examples_ if e.positive.any()]
    absent = [float((e.rows @ w).max()) for e in examples_ if e.absent]
    if not absent:
        return float(np.quantile(answerable, 0.05)), 1.0
    best, best_acc = 0.0, -1.0
    for t in sorted(answerable + absent):
        acc = np.mean([s >= t for s in answerable]) + np.mean([s < t for s in absent])
        if acc > best_acc:
            best, best_acc = t, acc
    below = max([s for s in absent if s < best], default=best - 1.0)
    cut = (best + below) / 2
    spread = float(np.std(answerable)) or 1.0
    return cut, 4.0 / spread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", nargs="*", type=Path)
    parser.add_argument("--validate", type=Path, default=DEV_SET)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    train_files = args.train or trained_rounds()
    files = [*train_files, args.validate]
    paths = {key: video for f in files for key, video in video_paths(f).items()}
    by_video = _contexts({str(v): v for v in set(paths.values())})
    contexts = {key: by_video[str(video)] for key, video in paths.items()}
    train = [e for f in train_files for e in examples(f, contexts)]
    valid = examples(args.validate, contexts)
    w = fit(train)
    cut, scale = threshold(train, w)
    metrics = {"train_top1": top_hits(train, w, 1), "train_top3": top_hits(train, w, 3),
               "valid_top1": top_hits(valid, w, 1), "valid_top3": top_hits(valid, w, 3)}
    print(json.dumps({"weights": dict(zip(FEATURES, np.round(w, 4).tolist())), "threshold": cut, "metrics": metrics}, indent=1))
    print("\n| feature left out | weight | validation top-1 | validation top-3 |\n| --- | --- | --- | --- |")
    print(f"| (none) | | {metrics['valid_top1'][0]}/{metrics['valid_top1'][1]} | {metrics['valid_top3'][0]}/{metrics['valid_top3'][1]} |")
    for i, name in enumerate(FEATURES):
        mask = np.ones(len(FEATURES))
        mask[i] = 0
        wi = fit(train, mask)
        t1, t3 = top_hits(valid, wi, 1), top_hits(valid, wi, 3)
        print(f"| {name} | {w[i]:+.2f} | {t1[0]}/{t1[1]} | {t3[0]}/{t3[1]} |", flush=True)
    if not args.no_write:
        out = ROOT / "staragent" / "qa" / "ranker.json"
        record = {"weights": dict(zip(FEATURES, np.round(w, 4).tolist())), "threshold": round(cut, 4), "scale": round(scale, 4),
                  "fitted_on": [str(f.relative_to(ROOT)) for f in train_files], "validated_on": "shared/eval/dev_qa.json",
                  "questions": {"train": len(train), "validate": len(valid)},
                  "metrics": {k: list(v) for k, v in metrics.items()}, "command": "python eval/fit_ranker.py"}
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, indent=1) + "\n")
        tmp.replace(out)
        print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
