"""Running the construction pipeline on one video: each stage in turn, each cached and resumable.

A video's work lives in ``OUT/videos/<index dir name>/``: one JSON file per stage, written atomically,
and ``manifest.json`` recording for each finished stage its fingerprint (the stage and its version, the
prompt files it renders, the options that matter to it, the writer model's identity, and a hash of
each input it read), what it cost (calls, cached calls, retries, failures, tokens, seconds) and how
many items it produced. A stage whose fingerprint matches is skipped; a changed option or prompt re-runs
that stage, and the stages after it only when its output changed. Inside a stage every writer reply is
cached (see :mod:`.llm`), so a run killed in the middle of a stage resumes without asking again. Items
the writer failed on stay failed until ``retry_failed`` is given.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..bench.harness_errors import DatagenError
from ..fsutil import read_json, stable_hash, write_json
from ..prompts import source
from . import fact_stages as fst
from . import stages as st
from .llm import Usage, Writer
from .taxonomy import KINDS

Reporter = Callable[[str], None]


class Options(BaseModel):
    """What a generation run is asked to do (every field is plain data, so Ray workers receive it)."""

    model: str = Field(description="writer model spec: openai[:MODEL], transformers[:MODEL] or scripted")
    strategy: Literal["facts", "windows"] = Field(
        "facts", description="facts: one question per distinct fact of the index (evidence first); windows: the paper's scenario pipeline"
    )
    max_repairs: int = Field(3, ge=0, description="facts strategy: times a sample moves on to the next fact when a turn cannot be used")
    per_video: int = Field(12, ge=1, description="samples planned per video")
    tasks: list[str] = Field(default_factory=list, description="tasks, categories or agentic_<tool> (empty: all)")
    kinds: list[str] = Field(default_factory=lambda: list(KINDS), description="single, multi, agentic")
    max_scenarios: int = Field(3, ge=1, le=5)
    window_chars: int = Field(3000, ge=500, description="characters of spans shown in one prompt")
    seed: int = 0
    concurrency: int = Field(1, ge=1, description="writer calls in flight for one video")
    max_retries: int = Field(2, ge=0, description="times an unusable reply is sent back with its problem")
    min_support: float = Field(0.5, ge=0, le=1, description="share of an answer's content words its cited spans must hold")
    retry_failed: bool = False


@dataclass(frozen=True)
class StageDef:
    name: str
    version: int
    run: Callable[[Any, dict[str, Any]], dict[str, Any]]
    deps: tuple[str, ...] = ()
    prompt: str | None = None
    options: tuple[str, ...] = ()


DESCRIBE = StageDef("describe", 1, st.stage_describe, options=("window_chars",))
WINDOW_STAGES: tuple[StageDef, ...] = (
    DESCRIBE,
    StageDef("summaries", 1, st.stage_summaries, ("describe",), "datagen_summarize"),
    StageDef("scenarios", 1, st.stage_scenarios, ("describe", "summaries"), "datagen_scenarios", ("max_scenarios", "tasks")),
    StageDef("question_types", 1, st.stage_question_types, ("scenarios",), "datagen_question_types"),
    StageDef("plan", 1, st.stage_plan, ("describe", "question_types"), None, ("per_video", "tasks", "kinds", "seed")),
    StageDef("questions", 1, st.stage_questions, ("describe", "plan"), "datagen_questions", ("concurrency",)),
    StageDef("answers", 1, st.stage_answers, ("describe", "plan", "questions"), "datagen_answers"),
    StageDef("criteria", 1, st.stage_criteria, ("questions", "answers"), "datagen_criteria"),
    StageDef("samples", 1, st.stage_samples, ("describe", "plan", "questions", "answers", "criteria"), None, ("min_support",)),
)
# Evidence first (see :mod:`.fact_stages`): what a small writer model yields with.
FACT_STAGES: tuple[StageDef, ...] = (
    DESCRIBE,
    StageDef("facts", 1, fst.stage_facts, ("describe",)),
    StageDef("drafts", 1, fst.stage_drafts, ("describe", "facts"), "datagen_fact", ("per_video", "tasks", "kinds", "max_repairs", "min_support")),
    StageDef("samples", 1, fst.stage_fact_samples, ("describe", "drafts"), None, ("min_support",)),
)
STAGES_BY_STRATEGY = {"facts": FACT_STAGES, "windows": WINDOW_STAGES}
STAGE_NAMES = tuple(dict.fromkeys(s.name for stages in STAGES_BY_STRATEGY.values() for s in stages))


class StageRecord(BaseModel):
    fingerprint: str
    output: str = Field(description="hash of the stage's output")
    items: int = 0
    usage: Usage = Field(default_factory=Usage)
    finished_at: float = Field(default_factory=time.time)


class VideoManifest(BaseModel):
    video: str
    video_id: str
    stages: dict[str, StageRecord] = Field(default_factory=dict)


@dataclass
class VideoResult:
    video: str
    video_id: str
    ok: bool
    directory: str | None = None
    samples: int = 0
    status: dict[str, int] = field(default_factory=dict)
    usage: dict[str, dict] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


class VideoRun:
    """What a stage function sees: the video, its index and tools, the options, the writer."""

    def __init__(self, video: Path, video_id: str, directory: Path, options: Options, settings: Any, writer: Writer, report: Reporter):
        self.video = video
        self.video_id = video_id
        self.dir = directory
        self.options = options
        self.settings = settings
        self.writer = writer
        self.report = report
        self.usage = Usage()
        self.items = 0
        self._tool_ctx = None
        self._toolbox = None
        from ..index.progress import ProgressFactory

        self.progress = ProgressFactory(settings.progress)

    # -- the video
    @property
    def tool_ctx(self) -> Any:
        if self._tool_ctx is None:
            from ..agent.session import open_tool_context

            self._tool_ctx = open_tool_context(self.video, self.settings, report=lambda m: None)
        return self._tool_ctx

    @property
    def index(self) -> Any:
        return self.tool_ctx.index

    @property
    def registry(self) -> Any:
        return self.toolbox.registry

    @property
    def toolbox(self) -> Any:
        if self._toolbox is None:
            from ..tools import ToolRegistry
            from .toolbox import ToolBox

            self._toolbox = ToolBox(ToolRegistry.discover(), self.settings, self.tool_ctx, self.index.duration)
        return self._toolbox

    # -- helpers for stage functions
    def ask(self, prompt: str, reply_model: type, context: dict[str, Any] | None = None) -> tuple[Any, str | None]:
        return self.writer.ask(prompt, reply_model, self.usage, context)

    def count_items(self, n: int) -> None:
        self.items = n

    def bar(self, total: int, what: str) -> Any:
        return self.progress(total=total, desc=f"{self.video_id}: {what}", unit="call")

    def map(self, items: list[Any], fn: Callable[[Any], Any], what: str | None = None) -> list[Any]:
        """``[fn(x) for x in items]`` on ``options.concurrency`` threads, order kept, with a bar."""
        from ..bench.scorers.common import pmap

        items = list(items)
        self.items = len(items)
        if what is None:
            return pmap(fn, items, self.options.concurrency)
        with self.bar(len(items), what) as bar:

            def step(item: Any) -> Any:
                out = fn(item)
                bar.update()
                return out

            return pmap(step, items, self.options.concurrency)

    # -- running
    def fingerprint(self, stage: StageDef, inputs: dict[str, Any]) -> str:
        data: dict[str, Any] = {
            "stage": stage.name, "version": stage.version,
            "options": {name: getattr(self.options, name) for name in stage.options},
            "inputs": {name: stable_hash(value) for name, value in inputs.items()},
        }  # fmt: skip
        if stage.prompt:
            data["prompts"] = stable_hash([source(stage.prompt), source("datagen_retry")])
            data["writer"] = self.writer.identity
        if stage.name == "describe":  # the index: this video's bytes, built with these settings
            data["index"] = {name: rec.fingerprint for name, rec in self.index.manifest.stages.items()}
            data["video"] = self.index.manifest.video.get("fingerprint")
        if stage.name in ("plan", "drafts"):
            data["tools"] = self.registry.names()
        return stable_hash(data)

    def run(self) -> dict[str, Any]:
        manifest_path = self.dir / "manifest.json"
        manifest = VideoManifest.model_validate(read_json(manifest_path)) if manifest_path.is_file() else VideoManifest(video=str(self.video), video_id=self.video_id)
        manifest.video = str(self.video)
        outputs: dict[str, Any] = {}
        for stage in STAGES_BY_STRATEGY[self.options.strategy]:
            inputs = {name: outputs[name] for name in stage.deps}
            fingerprint = self.fingerprint(stage, inputs)
            path = self.dir / f"{stage.name}.json"
            record = manifest.stages.get(stage.name)
            failed_before = record is not None and record.usage.failures and self.options.retry_failed
            if record is not None and record.fingerprint == fingerprint and path.is_file() and not failed_before:
                outputs[stage.name] = read_json(path)
                if stable_hash(outputs[stage.name]) == record.output:
                    self.report(f"{self.video_id}: {stage.name:<14} done before")
                    continue
            self.usage, self.items = Usage(), 0
            started = time.perf_counter()
            outputs[stage.name] = stage.run(self, inputs)
            self.usage.seconds = round(time.perf_counter() - started, 3)
            write_json(path, outputs[stage.name])
            manifest.stages[stage.name] = StageRecord(fingerprint=fingerprint, output=stable_hash(outputs[stage.name]), items=self.items, usage=self.usage)
            write_json(manifest_path, manifest.model_dump(mode="json"))
            self.report(stage_line(self.video_id, stage.name, manifest.stages[stage.name]))
        return {"manifest": manifest, "samples": outputs["samples"]}


def stage_line(video_id: str, name: str, record: StageRecord) -> str:
    u = record.usage
    calls = f"{u.calls} calls ({u.cached} cached, {u.retries} retries, {u.failures} failed)" if u.calls or u.cached else "no model calls"
    tokens = f"  tokens in {u.input_tokens:,} out {u.output_tokens:,}{' (estimated)' if u.estimated_tokens else ''}" if u.calls else ""
    return f"{video_id}: {name:<14} {u.seconds:7.1f} s  {record.items:>3} items  {calls}{tokens}"


def video_dir(out: Path, index_dir_name: str) -> Path:
    return out / "videos" / index_dir_name


def generate_video(video: Path, video_id: str, out: Path, options: Options, settings: Any, writer: Writer, report: Reporter) -> VideoResult:
    """Run every stage that is not done for ``video``; a problem with this video is returned, not raised
    (the other videos of a run go on), except a writer that cannot be reached."""
    from filelock import FileLock, Timeout

    from ..errors import StarAgentError
    from .llm import WriterError

    started = time.perf_counter()
    try:
        from ..agent.session import open_tool_context

        ctx = open_tool_context(video, settings, report=lambda m: None)
        directory = video_dir(out, ctx.index.dir.name)
        directory.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(directory / ".lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise DatagenError(f"another datagen run is writing {directory}; wait for it or use another --out") from None
        try:
            run = VideoRun(video, video_id, directory, options, settings, writer, report)
            run._tool_ctx = ctx
            result = run.run()
        finally:
            lock.release()
    except WriterError:
        raise
    except StarAgentError as exc:
        return VideoResult(video=str(video), video_id=video_id, ok=False, seconds=round(time.perf_counter() - started, 2), error=str(exc))
    manifest: VideoManifest = result["manifest"]
    rows = result["samples"]["samples"]
    status: dict[str, int] = {}
    for row in rows:
        status[row["meta"]["status"]] = status.get(row["meta"]["status"], 0) + 1
    return VideoResult(
        video=str(video), video_id=video_id, ok=True, directory=str(directory), samples=len(rows), status=status,
        usage={s.name: manifest.stages[s.name].usage.model_dump() for s in STAGES_BY_STRATEGY[options.strategy]}, seconds=round(time.perf_counter() - started, 2),
    )  # fmt: skip
