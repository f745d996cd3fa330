"""`make bench`: run the CPU benchmarks and regenerate docs/performance.md.

    python benchmarks/run.py                 # everything
    python benchmarks/run.py pipeline 30     # one benchmark, a 30-minute video
    python benchmarks/run.py models          # expert models, CPU smoke check with tiny models
    python benchmarks/run.py packs           # the bundled model packs (Whisper, YAMNet, e5) on generated media
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import models  # noqa: E402
import packs  # noqa: E402
import pipeline  # noqa: E402
import report  # noqa: E402

BENCHMARKS = {"pipeline": pipeline.main, "models": models.main, "packs": lambda *args: packs.main([])}


def main(argv: list[str]) -> None:
    names = [argv[0]] if argv else list(BENCHMARKS)
    for name in names:
        BENCHMARKS[name](*[float(a) for a in argv[1:]])
    report.main()


if __name__ == "__main__":
    main(sys.argv[1:])
