"""What the runner runs: anything that answers a question about a video given the ideal history.

The harness talks to agents through the small :class:`BenchAgent` protocol, so the real
``VideoAgent`` (through :class:`VideoAgentAdapter`), a baseline model without tools
(:class:`~staragent.bench.baseline.BaselineAgent`) or a test double all run the same way.

``respond`` receives

- ``video``: the video file, or ``None`` when the dataset has none for this sample;
- ``history``: the ideal trajectory (STARBench, sec. 5.1) — earlier user questions with the REFERENCE
  answers as assistant turns, ``[{"role": "user"|"assistant", "content": str}, ...]``;
- ``question``: this turn's question;
- ``sample``: the sample as a plain dict (``Sample.model_dump()``) plus a ``"bench"`` entry with the
  run's per-turn options (see below);
- ``turn``: the index of this question within the sample (0-based).

``sample["bench"]["expected_tool_calls"]`` always holds the turn's expected tool calls: the answer key.
Only the oracle test double (:class:`ScriptedAgent`) follows them as they are; an agent under test may
read them only as simulated tool responses, and only when simulation was asked for.

**Simulated tools (the ``--simulated-tools`` hook).** On agentic turns the released evaluation feeds
the model the expected tool responses instead of running tools. When ``sample["bench"]["simulated_tools"]``
is true and the turn has expected tool calls, an agent that honours the hook must not execute its tools:
for each call it makes it should use ``SimulatedTools(sample["bench"]["expected_tool_calls"]).call(tool,
args)``, which returns the ``expected_response`` of the first unused expected call with the same tool
name (or a ``not available`` note), and record the call in its trajectory as usual. A turn without
expected calls has nothing to simulate and runs against the video as usual. The real agent simulates by
swapping each of its tools for a :class:`SimulatedTool`; the runner records in each turn whether
simulation was requested.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from ..errors import StarAgentError
from ..schema import Answer, Evidence, TokenUsage, TrajectoryStep
from ..timecodes import parse_range
from ..tools.base import Tool, ToolContext, ToolResult
from .harness_errors import AgentSpecError
from .sample_records import QATurn, Sample


@runtime_checkable
class BenchAgent(Protocol):
    name: str

    def describe(self) -> dict:
        """Configuration, model ids and versions, written into ``run.json``."""
        ...

    def respond(
        self, video: Path | None, history: list[dict], question: str, *, sample: dict, turn: int
    ) -> Answer: ...


class SimulatedTools:
    """Serves the expected responses of a turn's expected tool calls, in order, by tool name."""

    def __init__(self, expected_calls: list[dict] | None):
        self.expected = [dict(c) for c in (expected_calls or [])]
        self._used: set[int] = set()

    def call(self, tool: str, args: dict | None = None) -> Any:
        for i, call in enumerate(self.expected):
            if i not in self._used and call.get("tool") == tool:
                self._used.add(i)
                return call.get("expected_response")
        return {"status": "not_available", "message": f"no simulated response for tool {tool!r}"}


def bench_options(sample: dict) -> dict:
    """The ``"bench"`` entry of the sample dict passed to :meth:`BenchAgent.respond`."""
    return dict(sample.get("bench") or {})


def qa_turn(sample: dict, turn: int) -> QATurn | None:
    """Question/reference pair ``turn`` of a sample given as the dict ``respond`` receives."""
    pairs = Sample.model_validate(sample).qa_turns()
    return pairs[turn] if 0 <= turn < len(pairs) else None


def _summarise(response: Any, limit: int = 200) -> str:
    text = response if isinstance(response, str) else json.dumps(response, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ScriptedAgent:
    """A test double. With no ``answer_fn`` it is an oracle: it answers each turn with the reference
    answer and, on agentic turns, makes exactly the expected tool calls (through :class:`SimulatedTools`).
    ``answer_fn(question, history, sample, turn) -> str`` replaces the answer; ``fail_on`` makes chosen
    ``(sample_id, turn)`` raise, to exercise error recording."""

    def __init__(
        self,
        answer_fn: Callable[[str, list[dict], dict, int], str] | None = None,
        *,
        name: str = "scripted",
        use_tools: bool = True,
        fail_on: set[tuple[str, int]] | None = None,
        delay_s: float = 0.0,
    ):
        self.name = name
        self.answer_fn = answer_fn
        self.use_tools = use_tools
        self.fail_on = fail_on or set()
        self.delay_s = delay_s

    def describe(self) -> dict:
        return {
            "agent": self.name,
            "kind": "scripted",
            "oracle": self.answer_fn is None,
            "use_tools": self.use_tools,
            "delay_s": self.delay_s,
        }

    def respond(self, video: Path | None, history: list[dict], question: str, *, sample: dict, turn: int) -> Answer:
        if (sample.get("sample_id"), turn) in self.fail_on:
            raise RuntimeError(f"scripted failure on {sample.get('sample_id')} turn {turn}")
        if self.delay_s:
            time.sleep(self.delay_s)
        opts = bench_options(sample)
        steps: list[TrajectoryStep] = []
        if self.use_tools:
            tools = SimulatedTools(opts.get("expected_tool_calls"))
            for call in opts.get("expected_tool_calls") or []:
                response = tools.call(call["tool"], call.get("parameters"))
                steps.append(
                    TrajectoryStep(tool=call["tool"], args=dict(call.get("parameters") or {}), summary=_summarise(response))
                )
        pair = qa_turn(sample, turn)
        text = self.answer_fn(question, history, sample, turn) if self.answer_fn else (pair.answer.content if pair else "")
        return Answer(
            answer=text,
            trajectory=steps,
            video=str(video or ""),
            profile=self.name,
            tokens=TokenUsage(input=len(question.split()), output=len(text.split())),
        )


class EchoAgent:
    """A floor baseline: repeats the question back. Makes no tool calls."""

    name = "echo"

    def describe(self) -> dict:
        return {"agent": self.name, "kind": "baseline"}

    def respond(self, video: Path | None, history: list[dict], question: str, *, sample: dict, turn: int) -> Answer:
        return Answer(answer=question, video=str(video or ""), profile=self.name)


class ReplayAgent:
    """Answers with the prediction stored in the dataset (VDAct ``gen_answer``, released
    ``candidate_response``), so stored outputs can be scored like a run."""

    name = "replay"

    def describe(self) -> dict:
        return {"agent": self.name, "kind": "replay"}

    def respond(self, video: Path | None, history: list[dict], question: str, *, sample: dict, turn: int) -> Answer:
        pair = qa_turn(sample, turn)
        if pair is None or pair.answer.prediction is None:
            raise ValueError(f"sample {sample.get('sample_id')} turn {turn} has no stored prediction to replay")
        return Answer(answer=pair.answer.prediction, video=str(video or ""), profile=self.name)


class SimulatedResult(ToolResult):
    """What a simulated tool returns: the dataset's expected response, verbatim. A planner reads it
    as the tool's own result: a response that is an object is dumped as that object (marked
    ``simulated``), anything else under ``response``."""

    response: Any = None
    simulated: bool = True

    def model_dump(self, **kwargs: Any) -> dict:
        if isinstance(self.response, dict):
            return {**self.response, "simulated": True}
        return super().model_dump(**kwargs)

    def evidence(self) -> list[Evidence]:
        """Text in the response, placed at its ``timestamp`` when it has one (else at 0)."""
        start = end = 0.0
        stamp = self.response.get("timestamp") if isinstance(self.response, dict) else None
        if isinstance(stamp, str):
            with contextlib.suppress(StarAgentError):
                start, end = parse_range(stamp)
        texts = [t for t in _strings(self.response) if t != stamp]
        return [Evidence(start=start, end=end, modality="other", text=t, source="simulated") for t in texts]

    def summary(self) -> str:
        return "simulated: " + _summarise(self.response, 140)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [str(value)] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


class SimulatedTool(Tool):
    """Presents a real tool's name, description and arguments to the planner, but answers with the
    expected response of the turn's matching expected call (released-evaluation comparability)."""

    needs_video = False
    Result = SimulatedResult

    def __init__(self, real: Tool, responses: SimulatedTools):
        self.name, self.description, self.Args = real.name, real.description, real.Args
        self._responses = responses

    def run(self, ctx: ToolContext, args: BaseModel) -> SimulatedResult:
        return SimulatedResult(response=self._responses.call(self.name, args.model_dump(exclude_none=True)))


class VideoAgentAdapter:
    """The real agent (``staragent.VideoAgent``) behind the benchmark protocol."""

    def __init__(self, settings: Any):
        from ..agent.runner import VideoAgent

        self.settings = settings
        self.agent = VideoAgent(settings)
        self._without_subtitles = None
        self.name = f"staragent-{settings.profile}"

    def _agent_for(self, sample: dict):
        """The agent to ask: one that ignores subtitles for a sample that says none are given
        (``meta.no_subtitles``: speech must come from the audio), sharing the model pool."""
        if not (sample.get("meta") or {}).get("no_subtitles") or not self.settings.index.subtitles:
            return self.agent
        if self._without_subtitles is None:
            from ..agent.runner import VideoAgent

            index = self.settings.index.model_copy(update={"subtitles": False})
            self._without_subtitles = VideoAgent(self.settings.model_copy(update={"index": index}), pool=self.agent.pool)
        return self._without_subtitles

    def describe(self) -> dict:
        s = self.settings
        return {
            "agent": "staragent",
            "profile": s.profile,
            "planner": s.planner_backend,
            "planner_model": s.planner.model if s.planner_backend == "transformers" else s.planner.openai_model if s.planner_backend == "openai" else None,
            "max_steps": s.max_steps,
            "tools": s.tools,
            "models": s.models.model_dump(),
            "index": s.index.model_dump(),
        }

    def respond(self, video: Path | None, history: list[dict], question: str, *, sample: dict, turn: int) -> Answer:
        opts = bench_options(sample)
        expected = opts.get("expected_tool_calls") or []
        if not (opts.get("simulated_tools") and expected):  # nothing to simulate: the real tools on the video
            if video is None:
                hint = "pass --video-root" + (" or --simulated-tools" if expected else "")
                what = "" if expected else " and no expected tool calls to simulate"
                raise ValueError(f"sample {sample.get('sample_id')} turn {turn} has no video file{what}; {hint}")
            if opts.get("thread"):  # a live conversation: the agent's own thread holds the earlier turns
                return self._agent_for(sample).ask(video, question, thread_id=opts["thread"])
            return self._agent_for(sample).ask(video, question, history=history)
        from ..agent.session import open_session

        # every tool is offered: its answer is the dataset's, so no model needs to be present
        everything = self.settings.model_copy(update={"toolset": self.settings.toolset.model_copy(update={"offer": "all"})})
        base = open_session(None, everything, pool=self.agent.pool, include_video_tools=True)
        responses = SimulatedTools(expected)
        session = replace(base, tools={name: SimulatedTool(tool, responses) for name, tool in base.tools.items()})
        return self.agent.ask(video, question, history=history, session=session)


AGENT_SPECS = (
    "scripted[,tools=false][,delay=S]",
    "echo",
    "replay",
    "profile:<offline|local|openai>[,max_steps=N][,tools=a+b]",
    "baseline:<scripted|openai[:MODEL]|transformers[:MODEL]>[,context_chars=N]",
)


def parse_spec(spec: str) -> tuple[str, str | None, dict[str, str]]:
    """``"profile:local,max_steps=8" -> ("profile", "local", {"max_steps": "8"})``."""
    head, *opts = [p.strip() for p in str(spec).split(",")]
    kind, _, arg = head.partition(":")
    options = {}
    for opt in opts:
        if not opt:
            continue
        key, eq, value = opt.partition("=")
        if not eq:
            raise AgentSpecError(f"cannot read the agent option {opt!r} in {spec!r}; write key=value after a comma")
        options[key.strip()] = value.strip()
    return kind.strip().lower(), (arg.strip() or None), options


def needs_settings(spec: str) -> bool:
    """Whether the agent of ``spec`` reads the project settings (models, index, cache)."""
    return parse_spec(spec)[0] in ("profile", "offline", "local", "openai", "baseline")


def make_agent(spec: str, settings: Any = None) -> BenchAgent:
    """Build the agent named by an ``--agent`` spec: ``scripted`` (oracle test double), ``echo``,
    ``replay``, ``profile:NAME[,key=value...]`` (the real agent) or ``baseline:CHAT_SPEC[,context_chars=N]``
    (a chat model answering from the video's transcript and on-screen text, without tools)."""
    kind, arg, options = parse_spec(spec)
    if kind == "baseline":
        from .baseline import make_baseline

        return make_baseline(arg, options, settings)
    if kind == "scripted":
        try:
            delay = float(options.get("delay", 0.0))
        except ValueError:
            raise AgentSpecError(f"scripted agent option delay={options['delay']!r} is not a number of seconds") from None
        return ScriptedAgent(use_tools=options.get("tools", "true").lower() != "false", delay_s=delay)
    if kind == "echo":
        return EchoAgent()
    if kind == "replay":
        return ReplayAgent()
    if kind == "profile" or kind in ("offline", "local", "openai"):
        from ..config import load_settings

        profile = arg if kind == "profile" else kind
        overrides: dict[str, Any] = {"profile": profile or "offline"}
        if "max_steps" in options:
            overrides["max_steps"] = int(options.pop("max_steps"))
        if "tools" in options:
            overrides["tools"] = [t for t in options.pop("tools").split("+") if t]
        if options:
            raise AgentSpecError(f"unknown option(s) {', '.join(options)} for the staragent agent; known: max_steps, tools")
        if settings is not None:
            base = settings.model_dump()
            base.update(overrides)
            return VideoAgentAdapter(type(settings)(**base))
        return VideoAgentAdapter(load_settings(**overrides))
    raise AgentSpecError(f"unknown agent {spec!r}; use one of {', '.join(AGENT_SPECS)}")
