"""The offline planner's plans for questions that plainly ask for one tool: keep or recall a note,
translate speech or on-screen text, count objects, read the maths on screen, look something up on
the web, say how long the video is. Each plan is a few steps over what the turn already did; each answer
quotes the tool's result, and says plainly when the tool is missing or failed."""

from __future__ import annotations

import re

from ....errors import InputError
from ....index.text import tokenize
from ....languages import language_name, parse_language
from ....schema import Evidence
from ....timecodes import clock_range, format_range, format_time
from .conversation import CALC, MEMORY, SEARCH, SPEECH, TEXT, Step, Turn, call, search_hits
from .focus import anchor
from .question import Intent, resolve_range

COUNT, MATH, WEB = "count_objects", "extract_math_exp", "web_search"
TRANSLATE_SPEECH, TRANSLATE_TEXT = "translate_speech", "translate_text"
_TRANSLATION_WORDS = {"translate", "translation", "translated", "mean", "means", "meaning", "language", "english"}
_IRREGULAR = {"people": "person", "men": "man", "women": "woman", "children": "child", "mice": "mouse", "geese": "goose"}


# ------------------------------------------------------------------ what the turn holds


def _last(turn: Turn, name: str) -> Step | None:
    steps = turn.called(name)
    return steps[-1] if steps else None


def _why_not(turn: Turn, tool: str, missing: str) -> str | None:
    """None when the last call of ``tool`` worked; else why not: its error, ``missing`` when the
    conversation does not offer the tool, or that it never got anything to work on."""
    step = _last(turn, tool)
    if step is not None:
        return step.error
    return missing if tool not in turn.tools else "I found nothing in the video for it to work on"


def _span(turn: Turn) -> tuple[float, float] | None:
    """The moment the question names (or, for a short follow-up, the one the last answer cited)."""
    q = turn.question
    if q.time_range is not None:
        return resolve_range(q.time_range, turn.duration)
    if q.follow_up or q.refers_back:
        return anchor(turn)
    return None


def _whole(turn: Turn) -> tuple[float, float] | None:
    return (0.0, turn.duration) if turn.duration else None


def _searched_span(turn: Turn) -> tuple[float, float] | None:
    hits = search_hits(turn)
    return (hits[0]["start"], hits[0]["end"]) if hits else None


def _topic(turn: Turn) -> str:
    """The question's search words without the words that ask for a translation."""
    words = []
    for word in turn.question.topic:
        try:
            parse_language(word)
            continue  # a language name says what to translate into, not what to look for
        except InputError:
            pass
        if word.lower() not in _TRANSLATION_WORDS:
            words.append(word)
    return " ".join(words)


def singular(noun: str) -> str:
    words = noun.split()
    if not words:
        return noun
    last = words[-1].lower()
    if last in _IRREGULAR:
        last = _IRREGULAR[last]
    elif last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith("s") and not last.endswith("ss") and len(last) > 3:
        last = last[:-1]
    return " ".join([*words[:-1], last])


# ------------------------------------------------------------------ plans


def _memory(turn: Turn, intent: Intent, tools: set[str]) -> list[dict]:
    if turn.steps or MEMORY not in tools:
        return []
    func = {"remember": "add", "recall": "search", "forget": "delete"}[intent.kind]
    return [call(MEMORY, func=func, data=intent.text)]


def _locate(turn: Turn, tools: set[str], modality: str) -> tuple[list[dict], tuple[float, float] | None]:
    """Calls still needed to find where to look, and the span once it is known."""
    span = _span(turn)
    if span is not None:
        return [], span
    if SEARCH in tools and not turn.called(SEARCH) and _topic(turn):
        return [call(SEARCH, query=_topic(turn), modalities=[modality], k=3)], None
    return [], _searched_span(turn) or (_whole(turn) if modality == "ocr" else None)


def _translate(turn: Turn, intent: Intent, tools: set[str]) -> list[dict]:
    if intent.source == "text":
        return [] if turn.steps or TRANSLATE_TEXT not in tools else [call(TRANSLATE_TEXT, text=intent.text, from_lang="auto", to_lang=intent.language)]
    if intent.source == "speech":
        calls, span = _locate(turn, tools, "speech")
        if calls or span is None:
            return calls
        timestamp = clock_range(*span)
        if TRANSLATE_SPEECH in tools and not turn.called(TRANSLATE_SPEECH):
            return [call(TRANSLATE_SPEECH, timestamp=timestamp, from_lang="auto", to_lang=intent.language)]
        failed = TRANSLATE_SPEECH not in tools or _last(turn, TRANSLATE_SPEECH).error
        if failed and SPEECH in tools and not turn.called(SPEECH):
            return [call(SPEECH, timestamp=timestamp)]  # at least quote the words as spoken
        return []
    calls, span = _locate(turn, tools, "ocr")
    if calls or span is None:
        return calls
    if TEXT in tools and not turn.called(TEXT):
        return [call(TEXT, timestamp=clock_range(*span))]
    scene = _last(turn, TEXT)
    texts = ((scene.result or {}).get("texts") or []) if scene else []
    if texts and TRANSLATE_TEXT in tools and not turn.called(TRANSLATE_TEXT):
        return [call(TRANSLATE_TEXT, text="\n".join(texts[:12]), from_lang="auto", to_lang=intent.language)]
    return []


def _count(turn: Turn, intent: Intent, tools: set[str]) -> list[dict]:
    span = _span(turn) or _whole(turn)
    if COUNT not in tools:  # no detector: what the pictures' coarse labels and face counts say, if the index has them
        searched = SEARCH not in tools or turn.called(SEARCH)
        return [] if searched else [call(SEARCH, query=intent.text, modalities=["visual"], k=3)]
    if turn.called(COUNT) or span is None:
        return []
    return [call(COUNT, timestamp=clock_range(*span), object_query=singular(intent.text))]


def _math(turn: Turn, intent: Intent, tools: set[str]) -> list[dict]:
    span = _span(turn) or _whole(turn)
    if MATH not in tools or turn.called(MATH) or span is None:
        return []
    return [call(MATH, timestamp=clock_range(*span))]


def _calculate(turn: Turn, intent: Intent, tools: set[str]) -> list[dict]:
    if turn.steps or CALC not in tools:
        return []
    return [call(CALC, expression=intent.text)]


def _web(turn: Turn, intent: Intent, tools: set[str]) -> list[dict]:
    if turn.steps or WEB not in tools:
        return []
    return [call(WEB, query=intent.text or turn.question.query, num_results=3)]


def _nothing(turn: Turn, intent: Intent, tools: set[str]) -> list[dict]:
    return []


PLANS = {"length": _nothing, "remember": _memory, "recall": _memory, "forget": _memory, "translate": _translate, "count": _count,
         "math": _math, "calculate": _calculate, "web": _web}


def intent_calls(turn: Turn, tools: set[str]) -> list[dict] | None:
    """The next calls for a question with an intent ([] = answer now), or None without one."""
    intent = turn.question.intent
    return None if intent is None else PLANS[intent.kind](turn, intent, tools)


# ------------------------------------------------------------------ answers


def _quote(text: str) -> str:
    return "“" + re.sub(r"\s*\n\s*", " / ", text.strip()) + "”"


def _memory_answer(turn: Turn, intent: Intent) -> tuple[str, list[Evidence]]:
    step = _last(turn, MEMORY)
    if step is None:
        return "I have no memory tool in this conversation, so I cannot keep or recall notes.", []
    if step.error:
        return f"I could not use my notes: {step.error}.", []
    result = step.result or {}
    notes = [n["text"] for n in result.get("notes", [])]
    if intent.kind == "remember":
        return f"Noted: {_quote(intent.text)}. Ask me about it later in this conversation.", []
    if intent.kind == "forget":
        return ("Forgotten: " + "; ".join(map(_quote, notes)) + ".") if result.get("success") else "There was no such note to forget.", []
    if not result.get("success"):
        about = f" about {intent.text}" if intent.text else ""
        return f"You have not asked me to remember anything{about} in this conversation.", []
    return "You asked me to remember: " + "; ".join(map(_quote, notes)) + ".", []


def _originals(turn: Turn) -> list[Evidence]:
    return [e for e in turn.evidence() if e.source in (SPEECH, TEXT)]


def _translate_answer(turn: Turn, intent: Intent) -> tuple[str, list[Evidence]]:
    target = language_name(intent.language or "en")
    if intent.source == "text":
        step = _last(turn, TRANSLATE_TEXT)
        if why := _why_not(turn, TRANSLATE_TEXT, "no translation tool is available in this conversation"):
            return f"I cannot translate {_quote(intent.text)} here: {why}.", []
        return f"In {target}: {_quote(step.result['translated_text'])} (from {_quote(intent.text)}).", []
    if intent.source == "speech":
        step = _last(turn, TRANSLATE_SPEECH)
        if step is not None and not step.error:
            lines = (step.result or {}).get("lines") or []
            if not lines:
                return f"Nobody speaks in {step.result.get('timestamp')}, so there is nothing to translate.", []
            said = " ".join(f"At {x['timestamp']}: {_quote(x['text'])}" + (f" (said: {_quote(x['original'])})" if x.get("original") else "") + "." for x in lines)
            return f"Translated into {target}: {said}", step.evidence
        why = _why_not(turn, TRANSLATE_SPEECH, "no translation tool is available in this conversation")
        heard = [e for e in _originals(turn) if e.modality == "speech"]
        if not heard:
            where = f" in {clock_range(*span)}" if (span := _span(turn)) else ""
            failed = f" ({why})" if step is not None or TRANSLATE_SPEECH not in turn.tools else ""
            return f"I found no speech to translate{where}{failed}.", []
        quoted = " ".join(f"Said at {format_range(e.start, e.end)}: {_quote(e.text)}." for e in heard)
        return f"{quoted} I cannot translate it into {target} here: {why}.", heard
    shown = [e for e in _originals(turn) if e.modality == "ocr"]
    if not shown:
        return "I found no text on screen to translate.", []
    where = format_range(min(e.start for e in shown), max(e.end for e in shown))
    original = " / ".join(dict.fromkeys(e.text for e in shown))
    step = _last(turn, TRANSLATE_TEXT)
    if why := _why_not(turn, TRANSLATE_TEXT, "no translation tool is available in this conversation"):
        return f"On screen at {where}: {_quote(original)}. I cannot translate it into {target} here: {why}.", shown
    return f"On screen at {where}: {_quote(original)}, in {target}: {_quote(step.result['translated_text'])}.", shown


def _count_answer(turn: Turn, intent: Intent) -> tuple[str, list[Evidence]]:
    step = _last(turn, COUNT)
    what = singular(intent.text)
    if why := _why_not(turn, COUNT, "no object-counting tool is available in this conversation (the offline profile has no object detector)"):
        seen = [e for e in turn.evidence() if e.modality == "visual"]  # in the search's order, best first
        named = [e for e in seen if set(tokenize(intent.text)) & set(tokenize(e.text))]
        if step is None and seen:
            cited = sorted(named or seen[:1], key=lambda e: e.start)[:3]
            listed = " ".join(f"At {format_range(e.start, e.end)}: {e.text}." for e in cited)
            return f"I cannot count {intent.text} exactly: {why}. What the pictures' coarse models saw: {listed}", cited
        return f"I cannot count {intent.text} here: {why}.", []
    result = step.result or {}
    count, where = result.get("count"), result.get("timestamp", "the range I looked at")
    if not isinstance(count, (int, float)):
        return f"The counting tool gave no count for {intent.text}: {result}.", []
    if not count:
        return f"I see no {what} in {where} (in the frames I looked at).", []
    peak = f" (the most at {result['peak_timestamp']}; counted frame by frame)" if result.get("peak_timestamp") else ""
    return f"At most {count:g} {intent.text if count > 1 else what} are visible at once in {where}{peak}.", step.evidence


def _math_answer(turn: Turn, intent: Intent) -> tuple[str, list[Evidence]]:
    step = _last(turn, MATH)
    if why := _why_not(turn, MATH, "no tool for reading maths is available in this conversation"):
        return f"I could not read the maths on screen: {why}.", []
    found = step.result.get("expressions") or []
    if not found:
        return f"I found no mathematical expression on screen in {step.result['timestamp']}.", []
    parts = []
    for e in found:
        outcome = ""
        if e.get("solutions"):
            outcome = ": " + ", ".join(e["solutions"])
        elif e.get("holds") is not None:
            outcome = " (true)" if e["holds"] else f" (false: the left side is {e['value']})"
        elif e.get("value") is not None:
            outcome = f" = {e['value']}"
        parts.append(f"On screen at {e['timestamp']}: {_quote(e['text'])}{outcome}.")
    return " ".join(parts), step.evidence


def _calculate_answer(turn: Turn, intent: Intent) -> tuple[str, list[Evidence]]:
    if why := _why_not(turn, CALC, "no calculator is available in this conversation"):
        return f"I could not compute {intent.text}: {why}.", []
    result = _last(turn, CALC).result
    return f"{intent.text} = {result['text']}.", []


def _web_answer(turn: Turn, intent: Intent) -> tuple[str, list[Evidence]]:
    step = _last(turn, WEB)
    if why := _why_not(turn, WEB, "web search is not available in this conversation"):
        return f"I could not search the web: {why}.", []
    pages = step.result.get("results") or []
    if not pages:
        return f"The web search for {_quote(step.result['query'])} found nothing.", []
    listed = " ".join(f"{i}. {_quote(p['title'])}: {p['snippet']}" + (f" ({p['url']})" if p.get("url") else "") for i, p in enumerate(pages, 1))
    return f"From the web (unverified, as found): {listed}", []


def _length_answer(turn: Turn, intent: Intent) -> tuple[str, list[Evidence]]:
    if turn.duration is None:
        return "I do not know how long this video is.", []
    return f"The video is {format_time(turn.duration)} long.", []


ANSWERS = {"length": _length_answer, "remember": _memory_answer, "recall": _memory_answer, "forget": _memory_answer, "translate": _translate_answer,
           "count": _count_answer, "math": _math_answer, "calculate": _calculate_answer, "web": _web_answer}


def intent_answer(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """The answer to a question with an intent, or None without one."""
    intent = turn.question.intent
    return None if intent is None else ANSWERS[intent.kind](turn, intent)
