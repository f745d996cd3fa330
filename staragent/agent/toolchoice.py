"""Which tools a small model is offered for one question.

Eighteen tool schemas cost a small model thousands of prompt tokens and, worse, its judgement: with
all of them it tends to answer without calling any. So a small model is offered the search, the
two range readers, and the few other tools the question's words call for (arithmetic, sounds, a
summary, notes, the web, translation, pictures), the same set through the turn (so the server can
reuse the prompt it has read); a plug-in tool is offered when the question uses a word of its name.

Its turn starts with a retrieval step the agent makes itself: the search with the question, then the
range readers (and the sound lister, when offered) over the best hit's scene; or the same over a
time the question names. Asked to write that first call, a 1.5B model often
answers from nothing instead; and constraining its reply to the call with a grammar (naming the
tool in ``tool_choice``) makes llama.cpp's server decode slowly. The model reads what came back and
takes it from there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..timecodes import format_range, point_window, times_in_text

SEARCH = "cross_modal_search"
READERS = ("transcribe_speech", "extract_scene_text")
LISTENER = "detect_audio_events"
"""read with the range readers in the retrieval step when the question is about sounds"""
MAX_TOOLS = 6
READ_SPAN_S = 60.0
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


def retrieval_step(question: str, available: Iterable[str]) -> list[tuple[str, dict]]:
    """The calls a small model's turn starts with, made by the agent: the range readers over a time
    the question names, else the search with the question itself."""
    available = list(available)
    named = times_in_text(question)
    if named:
        start, end = named[0].start, named[0].end
        span = format_range(*point_window(start)) if end <= start else format_range(start, end)
        readers = [(name, {"timestamp": span}) for name in (*READERS, LISTENER) if name in available]
        if readers:
            return readers
    return [(SEARCH, {"query": question.strip()[:300]})] if SEARCH in available else []


def read_best_hit(search: dict, available: Iterable[str]) -> list[tuple[str, dict]]:
    """The second half of the retrieval step: the range readers over the scene of the search's best
    hit (at most ``READ_SPAN_S`` around the match), since a hit holds only the lines that matched the
    question's words, and the answer is often on the same slide or in the next sentence."""
    hits = search.get("results") or []
    if not hits:
        return []
    best = hits[0]
    start, end = best["scene_start"], best["scene_end"]
    if end - start > READ_SPAN_S:
        middle = (best["start"] + best["end"]) / 2
        start, end = max(start, middle - READ_SPAN_S / 2), min(end, middle + READ_SPAN_S / 2)
    return [(name, {"timestamp": format_range(start, end)}) for name in (*READERS, LISTENER) if name in available]


def choose(question: str, available: Iterable[str]) -> list[str]:
    """The tools for the rounds after the first, at most ``MAX_TOOLS``, in the order offered."""
    available = list(available)
    core = [name for name in (SEARCH, *READERS) if name in available]
    cued = [name for name, cue in CUES.items() if name in available and name not in core and cue.search(question)]
    words = set(re.findall(r"[a-z]{4,}", question.lower()))
    plugins = [name for name in available if name not in CUES and name not in core and words & set(re.findall(r"[a-z]{4,}", name.lower()))]
    chosen = core + plugins + cued
    return chosen[:MAX_TOOLS] if len(chosen) > MAX_TOOLS else chosen or available[:MAX_TOOLS]
