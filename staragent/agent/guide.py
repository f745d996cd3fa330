"""The retrieval a small model's turn starts with, planned by the rule planner.

Asked to choose its own tools, a 1.5B model answers from nothing more often than not, and a fixed
first step (search the question, read the best hit) misses what the question points at: a part it
names ("after the harbour reading"), the moment of a follow-up, the credits. So the agent runs the
rule planner's reading of the question first and makes its calls itself (marked ``by_agent`` in
the trajectory). The model then answers from what those calls returned, shown the lines the rule
planner ranks first and the answer it would give: a draft the model checks against the results,
keeps, corrects or words better. Once the model has spoken in a turn, it plans on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage

from ..prompts import render
from ..qa.read import WHERE
from ..timecodes import format_range
from .planners.rules import DECLINED, OVERVIEW, RulePlanner

LEADS = 6
"""lines of the rule planner's answer shown to the model"""


def evidence_line(e: dict, limit: int = 300) -> str:
    """One line of evidence as a small model reads it: ``0:12-0:15 on screen: Weight: 187 g``."""
    return f"{format_range(e['start'], e['end'])} {WHERE.get(e['modality'], e['modality'])}: {' '.join(str(e['text']).split())[:limit]}"


@dataclass
class Guidance:
    calls: list[tuple[str, dict]]
    """calls the rule planner would make next (empty once it would answer)"""
    draft: str = ""
    """its answer, once it has one"""
    leads: tuple[str, ...] = ()
    """the lines its answer rests on, as evidence lines"""
    cited: tuple[dict, ...] = ()
    """the evidence its answer cites"""
    declined: bool = False
    """its answer declines because only the pictures could answer and nothing here sees them"""
    overview: bool = False
    """its answer is the overview the question asked for (the summary tool's, from beginning to end)"""

    def message(self, question: str) -> HumanMessage:
        """The draft as the model reads it last, right before it answers (a small model heeds what
        is near its reply more than its instructions); sent, never kept in the conversation."""
        return HumanMessage(render("agent_draft_small", leads=list(self.leads), draft=self.draft, question=question))


def guide(messages: list[BaseMessage], tool_specs: list[dict], video: dict, skip: frozenset[str] = frozenset(),
          asks_summary=None) -> Guidance:
    """The rule planner's next move over the offered tools (``tool_specs``) in this conversation:
    calls to make, or its answer. Messages the graph itself wrote to the model (an answer sent back,
    flagged by a key of ``additional_kwargs`` in ``skip``) are left out: the rules read the user's
    questions and the tools' results."""
    kept = [m for m in messages if not (isinstance(m, HumanMessage) and skip & set(m.additional_kwargs))]
    reply = RulePlanner().bind_tools(tool_specs).invoke(kept, video=video, asks_summary=asks_summary)
    if reply.tool_calls:
        return Guidance(calls=[(c["name"], c["args"]) for c in reply.tool_calls])
    meta = reply.response_metadata or {}
    cited = meta.get("evidence") or []
    return Guidance(calls=[], draft=reply.text, leads=tuple(evidence_line(e) for e in cited[:LEADS]), cited=tuple(cited),
                    declined=bool(meta.get(DECLINED)), overview=bool(meta.get(OVERVIEW)))
