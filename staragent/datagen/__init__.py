"""Building STARBench-style datasets, beside the harness (:mod:`staragent.bench`): from videos, the
paper's construction pipeline (sec. 3, App. B); from a sample-video script, the offline benchmark
(:mod:`.synthetic`).

Per video, one stage after another, each cached and resumable (:mod:`.pipeline`):

1. ``describe`` — the video's index as numbered spans of speech, on-screen text, named sounds and
   captions, grouped into windows that fit a prompt (:mod:`.describe`);
2. ``summaries`` — the writer model's account of each window (the cross-modal summary);
3. ``scenarios`` — who would watch the video and why, each with 1-2 tasks of the taxonomy;
4. ``question_types`` — the question types that test each scenario's tasks;
5. ``plan`` — the samples to write: kind (single-turn, multi-turn, agentic), task, scenario, window and
   target difficulty, fixed by the options and the seed (:mod:`.taxonomy`);
6. ``questions`` — questions citing the spans they come from; agentic ones with the tool calls that
   answer them, checked against the real tools and run on the index (:mod:`.toolbox`);
7. ``answers`` — reference answers grounded in cited spans (and tool results);
8. ``criteria`` — rubric criteria with weights and penalties, in the scorer's own schema;
9. ``samples`` — the samples assembled and checked automatically (:mod:`.checks`).

Then, for the whole run: an export for human review and the import of its decisions (:mod:`.review`),
and the dataset file that ``staragent bench run`` reads (:mod:`.finalize`). Many videos go through Ray,
one task per video (:mod:`.run`). Every writer call goes through :class:`.llm.Writer` (validated
structured output, retries with the problem fed back, a reply cache, token counts).
"""

from __future__ import annotations

import importlib

# Loaded on first use: the command-line tool imports ``datagen.datagen_commands`` (and so this package) at every
# start, and the pipeline pulls in NLTK and SciPy.
_EXPORTS = {"STAGE_NAMES": ".pipeline", "Options": ".pipeline", "VideoResult": ".pipeline", "generate": ".run"}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
