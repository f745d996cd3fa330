"""`make bench`: run the CPU benchmarks and regenerate docs/performance.md.

    python perf/run.py                 # everything
    python perf/run.py pipeline 30     # one benchmark, a 30-minute video
    python perf/run.py models          # expert models, CPU smoke check with tiny models
    python perf/run.py packs           # the bundled model packs (Whisper, YAMNet, e5) on generated media
    python perf/run.py ui              # the page: start-up and first answer, in headless Chromium
    python perf/run.py answers [profile:offline ...] [--fresh]   # answer quality on ../shared/eval
    python perf/run.py chat_storage    # bytes a chat thread keeps after 10, 20, 30 turns
    python perf/run.py load [--seconds 120] [--clients 20] [--servers mcp langgraph page] [--note TEXT]
                                             # many clients at once on each server (figures kept only from the full run)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import answers  # noqa: E402
import chat_storage  # noqa: E402
import load  # noqa: E402
import models  # noqa: E402
import packs  # noqa: E402
import pipeline  # noqa: E402
import report  # noqa: E402
import ui  # noqa: E402

BENCHMARKS = {
    "pipeline": pipeline.main, "models": models.main, "ui": ui.main, "answers": answers.main, "chat_storage": chat_storage.main,
    "packs": lambda *args: packs.main([]), "load": load.main,
}
TEXT_ARGUMENTS = {"answers", "load"}  # agent specs and flags, not numbers


def main(argv: list[str]) -> None:
    names = [argv[0]] if argv else list(BENCHMARKS)
    for name in names:
        BENCHMARKS[name](*[a if name in TEXT_ARGUMENTS else float(a) for a in argv[1:]])
    report.main()


if __name__ == "__main__":
    main(sys.argv[1:])
