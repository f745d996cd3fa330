"""Reading the conversation: the question of this turn, the tool calls made for it so far with
their results, and what earlier turns asked, answered and cited.

Everything comes from the graph state: its messages (a tool result's parsed data and evidence travel
in ``ToolMessage.artifact``; an answer's citations in ``AIMessage.response_metadata["evidence"]``)
and the facts about the video the graph keeps beside them (its length).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from ....qa.layout import Box
from ....schema import Evidence
from .question import Question, analyse

SEARCH, SPEECH, TEXT, AUDIO, CALC = "cross_modal_search", "transcribe_speech", "extract_scene_text", "detect_audio_events", "calculator"
MEMORY, SUMMARY = "memory_tool", "summarize_segment"
RANGE_TOOLS = (SPEECH, TEXT, AUDIO)
_counter = itertools.count()


@dataclass
class Step:
    name: str
    args: dict
    result: dict | None
    evidence: list[Evidence]
    error: str | None


@dataclass
class Earlier:
    """An earlier turn of the conversation."""

    question: Question
    answer: str | None
    evidence: list[Evidence]
    """what the answer cited (when the planner that gave it said so)"""


@dataclass
class Turn:
    question: Question
    steps: list[Step] = field(default_factory=list)
    duration: float | None = None
    video_name: str | None = None
    """the video file's name, as the graph keeps it"""
    earlier: list[Earlier] = field(default_factory=list)
    tools: frozenset[str] = frozenset()
    """The tools this conversation offers."""
    noted: bool = False
    """An earlier turn asked to remember something, so the notes may hold the answer."""

    @property
    def previous(self) -> Earlier | None:
        return self.earlier[-1] if self.earlier else None

    @property
    def previous_answer(self) -> str | None:
        return self.previous.answer if self.previous else None

    @property
    def previous_evidence(self) -> list[Evidence]:
        return self.previous.evidence if self.previous else []

    def called(self, name: str) -> list[Step]:
        return [s for s in self.steps if s.name == name]

    def evidence(self) -> list[Evidence]:
        """Everything this turn's tools found, once each; a line both search and a range tool found
        counts as read by the range tool."""
        found: dict[tuple, Evidence] = {}
        for step in self.steps:
            for e in step.evidence:
                kept = found.get(e.key())
                if kept is None or (kept.source == SEARCH and e.source != SEARCH):
                    found[e.key()] = e
        return list(found.values())


def call(name: str, **args) -> dict:
    return {"name": name, "args": args, "id": f"call_{next(_counter)}", "type": "tool_call"}


def read_turn(messages: list[BaseMessage], tools: set[str] | frozenset[str] = frozenset(), duration: float | None = None,
              video_name: str | None = None, asks_summary: Callable[[str], bool] | None = None) -> Turn:
    """The current question, what was called for it so far, and what earlier turns said
    (``asks_summary``: see ``question.analyse``)."""
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if not humans:
        raise ValueError("the conversation has no question")
    last = humans[-1]
    earlier: list[Earlier] = []
    asked: Question | None = None
    noted = False
    for h, following in zip(humans, [*humans[1:], len(messages)]):
        asked = analyse(str(messages[h].content), asked, video_name, asks_summary)  # each question read in the light of the one before
        if h == last:
            break
        noted = noted or (asked.intent is not None and asked.intent.kind == "remember")
        replies = [m for m in messages[h:following] if isinstance(m, AIMessage) and not m.tool_calls and m.content]
        cited = (replies[-1].response_metadata or {}).get("evidence") if replies else None
        earlier.append(Earlier(asked, str(replies[-1].content) if replies else None, [Evidence(**e) for e in cited or []]))
    turn = Turn(asked, duration=duration, video_name=video_name, earlier=earlier, tools=frozenset(tools), noted=noted)
    results = {m.tool_call_id: m for m in messages[last:] if isinstance(m, ToolMessage)}
    for m in messages[last:]:
        if isinstance(m, AIMessage):
            for made in m.tool_calls:
                reply = results.get(made["id"])
                artifact = (reply.artifact or {}) if reply is not None else {}
                turn.steps.append(
                    Step(
                        name=made["name"],
                        args=made["args"],
                        result=artifact.get("result"),
                        evidence=[Evidence(**e) for e in artifact.get("evidence", [])],
                        error=artifact.get("error") or (str(reply.content) if reply is not None and reply.status == "error" else None),
                    )
                )
    return turn


def search_hits(turn: Turn, query: str | None = None) -> list[dict]:
    """The spans this turn's searches found (for ``query`` only, when given), best first per search."""
    hits = []
    for step in turn.called(SEARCH):
        if query is not None and step.args.get("query") != query:
            continue
        for hit in (step.result or {}).get("results") or []:
            if isinstance(hit, dict) and "start" in hit:
                hits.append(hit)
    return hits


def key_of(line: dict) -> tuple:
    """The ``Evidence.key()`` of an on-screen line as the scene-text tool returns it."""
    return Evidence(start=float(line["start"]), end=float(line["end"]), modality="ocr", text=str(line["text"])).key()


def boxes_of(lines: list[dict]) -> dict[tuple, Box]:
    """Where each on-screen line was read, by its evidence key (lines without a box are left out)."""
    return {key_of(line): tuple(line["box"]) for line in lines if isinstance(line.get("box"), list | tuple) and len(line["box"]) == 4}
