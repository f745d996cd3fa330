"""Fit the model that decides whether a question asks for a summary (``staragent/qa/operation.py``).

    .venv/bin/python eval/fit_operation.py [--no-write]

Training questions: every blind round in ``eval/blind`` whose first run is recorded (each case's last question; a case of kind
``summary`` is a positive). Validation: ``../shared/eval/dev_qa.json``, never trained on. Each question
is masked against its video's own words (the indexes in ``.cache/bench/cache-answers``, built by
``perf/answers.py``) and embedded with the bundled e5-small; the model is an L2-regularised
logistic regression with the two classes weighed equally (summaries are few). Each round is also
held out in turn, and the threshold is the highest of those that separate the held-out summaries best. The
result goes to ``staragent/qa/operation.json`` with its metrics.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_ranker import DEV_SET, _contexts, trained_rounds, video_paths  # noqa: E402

from staragent.qa.operation import WEIGHTS_FILE, bundled_embed, operation_text, video_vocabulary  # noqa: E402

L2 = 0.01
STEPS = 3000
RATE = 0.5


def questions(path: Path, vocabularies: dict) -> tuple[list[str], np.ndarray, list[str]]:
    data = json.loads(path.read_text())
    texts, labels, groups = [], [], []
    for case in data["cases"]:
        question = (case.get("chat") or [case["q"]])[-1]
        texts.append(operation_text(question, vocabularies[(path, case["video"])]))
        labels.append(case["kind"] == "summary")
        groups.append(path.stem)
    return texts, np.array(labels, float), groups


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    w, b = np.zeros(x.shape[1]), 0.0
    share = y.mean()
    weight = np.where(y == 1, 0.5 / share, 0.5 / (1 - share))
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) * weight
        w -= RATE * (x.T @ g / len(y) + L2 * w / len(y))
        b -= RATE * float(g.mean())
    return w, b


def counts(p: np.ndarray, y: np.ndarray, threshold: float) -> dict:
    return {"summaries_found": [int(((p >= threshold) & (y == 1)).sum()), int(y.sum())],
            "false_alarms": [int(((p >= threshold) & (y == 0)).sum()), int((y == 0).sum())]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", nargs="*", type=Path, help="round files to fit on (default: every round whose first run is recorded)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    train_files = args.train or trained_rounds()
    files = [*train_files, DEV_SET]
    paths = {key: video for f in files for key, video in video_paths(f).items()}
    contexts = _contexts({str(v): v for v in set(paths.values())})
    vocabularies = {key: video_vocabulary(contexts[str(video)].index) for key, video in paths.items()}
    embed = bundled_embed()
    texts, y, groups = [], [], []
    for f in train_files:
        t, labels, g = questions(f, vocabularies)
        texts += t
        y.append(labels)
        groups += g
    y = np.concatenate(y)
    x = embed(texts).astype(np.float64)
    dev_texts, dev_y, _ = questions(DEV_SET, vocabularies)
    dev_x = embed(dev_texts).astype(np.float64)

    held = np.zeros(len(y))
    for group in sorted(set(groups)):
        out = np.array([g == group for g in groups])
        w, b = fit(x[~out], y[~out])
        held[out] = 1 / (1 + np.exp(-(x[out] @ w + b)))
    # the threshold with the fewest held-out errors, a false alarm counting twice: an answer given as
    # a summary where a fact was asked misses it, while a summary missed still gets the best lines
    candidates = np.linspace(0.3, 0.8, 51)
    errors = [int(((held < t) & (y == 1)).sum() + 2 * ((held >= t) & (y == 0)).sum()) for t in candidates]
    best = [t for t, e in zip(candidates, errors) if e == min(errors)]
    print(f"best held-out thresholds: {best[0]:.2f}-{best[-1]:.2f}")
    threshold = float(best[-1])  # the highest of them: as many summaries found, fewer false alarms to come
    w, b = fit(x, y)
    fitted = [f"eval/blind/{f.name}" for f in train_files]
    dev_p = 1 / (1 + np.exp(-(dev_x @ w + b)))
    result = {
        "weights": [round(float(v), 6) for v in w],
        "bias": round(b, 6),
        "threshold": round(threshold, 3),
        "embedder": "e5-small",
        "fitted_on": fitted,
        "validated_on": "shared/eval/dev_qa.json",
        "metrics": {"held_out_rounds": counts(held, y, threshold), "dev": counts(dev_p, dev_y, threshold)},
        "command": "python eval/fit_operation.py" + (" --train " + " ".join(fitted) if args.train else ""),
    }
    print(json.dumps(result["metrics"], indent=1), "threshold", result["threshold"])
    for text, p, label in zip(dev_texts, dev_p, dev_y):
        if (p >= threshold) != bool(label):
            print(f"  dev {'missed' if label else 'false alarm'} ({p:.2f}): {text}")
    if not args.no_write:
        WEIGHTS_FILE.write_text(json.dumps(result, indent=1) + "\n")
        print("wrote", WEIGHTS_FILE.relative_to(ROOT))


if __name__ == "__main__":
    main()
