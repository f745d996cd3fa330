"""Which tools a small model is offered for one question.

Eighteen tool schemas cost a small model thousands of prompt tokens and, worse, its judgement: with
all of them it tends to answer without calling any. So a small model is offered the search, the
two range readers, and the few other tools the question's words call for (arithmetic, sounds, a
summary, notes, the web, translation, pictures), the same set through the turn (so the server can
reuse the prompt it has read); a plug-in tool is offered when the question uses a word of its name.

Its turn starts with a retrieval step the agent makes itself, planned by the rule planner (``guide``).
A question that only asks what the video holds is then answered by one call that reads the ranked
lines (``reads``, ``agent.reader``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

SEARCH = "cross_modal_search"
READERS = ("transcribe_speech", "extract_scene_text")
MAX_TOOLS = 6
SMALL_MAX_TOKENS = 384
"""a small model's reply is a call or a sentence or two; the cap stops one that repeats itself"""

_VISUAL = r"colou?r|wear|look(?:s|ed)? like|picture|image|visible|appear|shown? on screen|see\b|seen\b"
CUES: dict[str, re.Pattern] = {
    name: re.compile(pattern, re.I)
    for name, pattern in {
        "calculator": r"\bhow (?:many|much|long)\b|\btotal|\bsum\b|\badd(?:ed)? up|\bdifference|\bmore than|\bless than|\bfewer\b|"
        r"\btimes\b|\btwice\b|\bper ?cent|%|\baverage|\bcombined|\baltogether|\bminus\b|\bplus\b|\bmultipl|\bdivid|\bratio\b|\d\s*[-+*/×]\s*\d",
        "detect_audio_events": r"\bsound|\bhear|\bheard\b|\bnoise|\bbeep|\btone\b|\bbell|\bchime|\bring(?:s|ing)?\b|\bmusic|\bsilen|\bquiet|"
        r"\bloud|\bknock|\bcreak|\bbang|\bapplau|\bclap|\blaugh|\baudio",
        "summarize_segment": r"\bsummar|\boverview|\bgist\b|\bmain points?|\brecap|\boutline|\babout\?|\bwhat (?:is|was) (?:the video|it) about",
        "memory_tool": r"\bremember|\bnote (?:that|down|this)|\bkeep in mind|\brecall|\bmy notes?\b",
        "web_search": r"\bweb\b|\binternet|\bonline\b|\blook (?:it |this )?up\b|\bgoogle",
        "translate_speech": r"\btranslat",
        "translate_text": r"\btranslat",
        "extract_math_exp": r"\bequation|\bformula|\bexpression|\bsolve",
        "refine_video": _VISUAL + r"|\bdoing\b|\bhappen",
        "detect_activities": r"\bdoing\b|\bactivit|\baction",
        "count_objects": r"\bhow many\b.*\b(?:are|were|is|can)\b.*\b(?:there|visible|shown|see|seen)",
        "object_detection": r"\bobject|\blogo|\bbrand|\bis there an?\b",
        "detect_faces": r"\bfaces?\b|\bwho (?:is|was) (?:on screen|shown|visible)|\bperson\b|\bpeople\b",
        "refine_audio": r"\bmusic|\binstrument|\btone of voice|\bsounds? like|\bmood",
        "execute_code": r"\bcode\b|\bprogram\b|\bscript\b|\bpython\b",
    }.items()
}


OPERATIONS = ("summarize_segment", "memory_tool", "web_search", "translate_speech", "translate_text", "extract_math_exp", "count_objects", "execute_code")
"""tools that do something with the video beyond finding what answers a question"""


AsksSummary = Callable[[str], bool]
"""the fitted overview model of ``qa.operation`` (``Session.asks_summary``)"""


def _called_for(name: str, question: str, asks_summary: AsksSummary | None) -> bool:
    if name == "summarize_segment" and asks_summary is not None and asks_summary(question):
        return True  # asked for in a way no cue lists
    return bool(CUES[name].search(question))


def reads(question: str, asks_summary: AsksSummary | None = None) -> bool:
    """Whether a small model answers ``question`` by reading ranked lines once (``agent.reader``):
    the question calls for none of the tools that do more than find the answer (a summary, a note,
    the web, ...), whose results the model words instead."""
    return not any(_called_for(name, question, asks_summary) for name in OPERATIONS)


def choose(question: str, available: Iterable[str], asks_summary: AsksSummary | None = None) -> list[str]:
    """The tools for the rounds after the first, at most ``MAX_TOOLS``, in the order offered."""
    available = list(available)
    core = [name for name in (SEARCH, *READERS) if name in available]
    cued = [name for name in CUES if name in available and name not in core and _called_for(name, question, asks_summary)]
    words = set(re.findall(r"[a-z]{4,}", question.lower()))
    plugins = [name for name in available if name not in CUES and name not in core and words & set(re.findall(r"[a-z]{4,}", name.lower()))]
    chosen = core + plugins + cued
    return chosen[:MAX_TOOLS] if len(chosen) > MAX_TOOLS else chosen or available[:MAX_TOOLS]
