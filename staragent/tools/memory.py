"""memory_tool: notes the planner keeps for the rest of a conversation (add, delete, search).

Where the notes live: in the LangGraph state of the conversation (the ``notes`` key). Before the
tools of a round run, the graph builds a ``ConversationMemory`` from that state and puts it in the
tool context; when a tool changed it, the graph writes the notes back into the state. The state is
checkpointed with the chat (SQLite, keyed by the thread id), so the notes persist exactly as long as
the conversation does, and a question asked without a thread starts with none.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from ..errors import ToolError
from ..index.text import tokenize
from ..limits import MAX_NOTE_CHARS
from .base import Tool, ToolContext, ToolResult

MAX_NOTES = 200
_ALIASES = {
    "add": "add", "store": "add", "save": "add", "remember": "add", "insert": "add",
    "delete": "delete", "remove": "delete", "forget": "delete",
    "search": "search", "find": "search", "retrieve": "search", "get": "search", "list": "search", "recall": "search",
}


class Note(BaseModel):
    id: int
    text: str
    added: str = Field(description="when it was added (UTC, ISO 8601)")


class ConversationMemory:
    """The notes of one conversation, loaded from and saved to the graph state."""

    def __init__(self, notes: list[dict] | None = None):
        self.notes = [Note(**n) for n in notes or []]
        self.changed = False

    def dump(self) -> list[dict]:
        return [n.model_dump() for n in self.notes]

    def add(self, text: str) -> Note:
        if len(self.notes) >= MAX_NOTES:
            raise ToolError(f"the conversation already keeps {MAX_NOTES} notes; delete some first")
        note = Note(id=max((n.id for n in self.notes), default=0) + 1, text=text, added=datetime.now(UTC).isoformat(timespec="seconds"))
        self.notes.append(note)
        self.changed = True
        return note

    def find(self, query: str) -> list[Note]:
        """Notes matching ``query``: all for an empty query or "all", the note with that id for
        "#3" / "3", else those sharing words with it, best first."""
        query = query.strip()
        if not query or query.lower() in ("all", "*", "everything"):
            return list(self.notes)
        if m := re.fullmatch(r"#?(\d+)", query):
            return [n for n in self.notes if n.id == int(m[1])]
        wanted = set(tokenize(query))
        scored = [(len(wanted & set(tokenize(n.text))), n) for n in self.notes]
        scored = [(s, n) for s, n in scored if s > 0 or query.lower() in n.text.lower()]
        return [n for _, n in sorted(scored, key=lambda x: (-x[0], x[1].id))]

    def delete(self, query: str) -> list[Note]:
        doomed = self.find(query)
        if query.strip().lower() not in ("all", "*", "everything") and not re.fullmatch(r"#?\d+", query.strip()):
            doomed = doomed[:1]  # a description removes the one note it fits best, never a sweep
        ids = {n.id for n in doomed}
        self.notes = [n for n in self.notes if n.id not in ids]
        self.changed = self.changed or bool(ids)
        return doomed


class MemoryResult(ToolResult):
    success: bool
    output: str
    notes: list[Note] = Field(default_factory=list)

    def summary(self) -> str:
        return ("" if self.success else "failed: ") + self.output[:150]


class MemoryTool(Tool):
    name = "memory_tool"
    brief = "Keep notes for this conversation: func 'add' stores data, 'search' finds notes matching data, 'delete' removes one."
    brief_args = ("func", "data")
    description = (
        "Keep notes for the rest of this conversation. func='add' stores data (a fact, an intermediate "
        "result); func='search' returns the notes that match data (empty data or 'all': every note); "
        "func='delete' removes the note with id data ('#2') or the one that best matches it ('all' clears)."
    )
    needs_video = False
    cacheable = False  # the same search gives a different answer after an add

    class Args(BaseModel):
        func: Literal["add", "delete", "search"] = Field(description="add | delete | search")
        data: str = Field("", description="the note to add, or what to search for / delete")

        @field_validator("func", mode="before")
        @classmethod
        def _alias(cls, value):
            return _ALIASES.get(str(value).strip().lower(), value)

    Result = MemoryResult

    def run(self, ctx: ToolContext, args: Args) -> MemoryResult:
        if ctx.memory is None:
            ctx.memory = ConversationMemory()  # a call outside a conversation: notes last as long as ctx
        memory: ConversationMemory = ctx.memory
        data = args.data.strip()
        if args.func == "add":
            if not data:
                raise ToolError("memory_tool add needs data: the text to remember")
            if len(data) > MAX_NOTE_CHARS:
                raise ToolError(f"a note may hold at most {MAX_NOTE_CHARS} characters")
            note = memory.add(data)
            return MemoryResult(success=True, output=f"stored note #{note.id}: {note.text}", notes=[note])
        if args.func == "delete":
            if not data:
                raise ToolError("memory_tool delete needs data: a note id such as '#2', words from the note, or 'all'")
            removed = memory.delete(data)
            if not removed:
                return MemoryResult(success=False, output=f"no note matches {data!r}; nothing was deleted")
            return MemoryResult(success=True, output="deleted " + "; ".join(f"#{n.id}: {n.text}" for n in removed), notes=removed)
        found = memory.find(data)
        if not found:
            what = f"matching {data!r}" if data else "at all"
            return MemoryResult(success=False, output=f"no notes {what} in this conversation")
        return MemoryResult(success=True, output="; ".join(f"#{n.id}: {n.text}" for n in found), notes=found)
