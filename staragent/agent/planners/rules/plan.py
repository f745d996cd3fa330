"""What the offline planner calls next, from what this turn has called so far.

Retrieval comes first: a hybrid search for the question's words (and one for each part of the video
the question names: "in the Lowry reading", "after the applause", the words it quotes). Then the
spans found are read whole with the range tools (what is said, shown and heard there), widened to
the part a title on screen names; a question that names its moment is read there directly. A
question over amounts found in the video ends with the calculator; an overview with a summary of the
whole video (or the named part). An empty list means: answer now.
"""

from __future__ import annotations

from ....index.text import tokenize
from ....timecodes import clock_range
from .arithmetic import expression
from .conversation import (
    AUDIO,
    CALC,
    MEMORY,
    RANGE_TOOLS,
    SEARCH,
    SPEECH,
    SUMMARY,
    TEXT,
    Turn,
    call,
    search_hits,
)
from .focus import (
    MAX_READ,
    Span,
    between_parts,
    clip,
    covered,
    named_spans,
    naming_hits,
    own_query,
    own_words_found,
    part_of,
    person_referred,
    position_span,
    ranges_read,
    shift,
    whole_read,
    whole_reads,
)
from .intents import intent_calls
from .question import NOT_HEARD, SOUND_TOKENS, Question, named_sounds

SEARCH_K = 5
PART_K = 5
HITS_READ = 3


def part_queries(q: Question) -> list[str]:
    """The searches that find the parts of the video the question names."""
    found = [q.scope, q.relation_to, *(q.between or ()), *(q.first_of or ()), *q.quoted]
    return list(dict.fromkeys(p for p in found if p))


def _names_a_sound(q: Question, part: str) -> bool:
    return "audio" in q.wants and bool(set(tokenize(part)) & SOUND_TOKENS or named_sounds(part))


def main_query(turn: Turn) -> str:
    """What to search for: the question's words, and for a follow-up the earlier topic beside them."""
    q = turn.question
    words = list(q.keywords if "audio" in q.wants and q.relation is None else q.topic)  # "how long does the bell ring": the bell is the thing
    if q.follow_up:
        words += [w for w in q.carried if w not in words]
    return " ".join(words) or q.query


def readers(q: Question) -> list[str]:
    """The range tools that read a span for this question: its sounds for a question about sounds,
    else what is said and shown (both are cheap, and a question's wording is a weak guide to where
    its answer lives), and heard too where the question asks what a stretch holds."""
    if q.wants == {"audio"}:
        return [AUDIO, TEXT] if q.credits else [AUDIO]  # over the credits: while their text is on screen
    # "what happens between 4:00 and 5:00?" names a stretch and nothing in it: all it holds is asked for
    everything = q.time_range is not None and not q.subject
    return [AUDIO] * ("audio" in q.wants or everything) + [SPEECH, TEXT]


def _reads(turn: Turn, spans: list[Span], tools: set[str], which: list[str]) -> list[dict]:
    read = ranges_read(turn)
    calls = []
    for span in spans:
        span = clip((span[0], min(span[1], span[0] + MAX_READ)), turn.duration)
        if span[1] <= span[0]:
            continue
        calls += [call(name, timestamp=clock_range(*span)) for name in which if name in tools and not covered(span, read.get(name, []))]
    return calls


def _searches_its_words(turn: Turn) -> bool:
    """Whether the question's own words (with a follow-up's earlier topic) are searched for: not
    when it only names a stretch ("what is said at 1:00?") or asks for an overview of the video, nor
    for a follow-up without words of its own that the last answer already places ("and after that?")."""
    q = turn.question
    if q.focus_tokens:
        return not (q.time_range and not q.subject) and not (q.overview and not q.scope)
    return q.follow_up and bool(q.carried) and named_spans(turn) is None


def first_calls(turn: Turn, tools: set[str]) -> list[dict]:
    q = turn.question
    calls = [call(MEMORY, func="search", data=q.query)] if turn.noted and MEMORY in tools else []
    if SEARCH in tools:
        # a part is named by what is said or shown there, unless it is a sound asked about ("the gong after the poem")
        calls += [call(SEARCH, query=part, k=PART_K, **({} if _names_a_sound(q, part) else {"modalities": ["ocr", "speech"]}))
                  for part in part_queries(q)]
        if q.operation and q.owner:  # "the Basic and Pro plans of X": both values are where X is
            calls.append(call(SEARCH, query=f"{q.owner} {' '.join(q.attributes)}".strip(), k=PART_K))
        elif q.operation and len(q.operands) >= 2:
            calls += [call(SEARCH, query=operand, k=PART_K) for operand in q.operands]
        if who := person_referred(turn):
            calls.append(call(SEARCH, query=who, modalities=["ocr", "speech"], k=SEARCH_K))
        elif _searches_its_words(turn):
            # a name, a place, a date or an address is said or written, never heard in a sound; nor is
            # "which fund ..." answered by one, unless the question is about sounds ("which instrument plays?")
            named = q.answer_type in NOT_HEARD or (q.answer_type == "entity" and "audio" not in q.wants)
            # a question about a sound it names ("how long does the door creak?") is answered by what is
            # heard: speech and text rank every span for any words, and would push the sound out
            heard_only = q.wants == {"audio"} and bool(named_sounds(q.text)) and not part_queries(q) and not q.names_silence
            written = {"modalities": ["ocr", "speech"]} if named else {"modalities": ["audio"]} if heard_only else {}
            calls.append(call(SEARCH, query=main_query(turn), k=SEARCH_K, **written))
            if own := own_query(turn):
                calls.append(call(SEARCH, query=own, k=PART_K, **written))
    if q.placed and SEARCH in tools:  # where each of the two things is written on screen
        calls += [call(SEARCH, query=" ".join(words), k=PART_K, modalities=["ocr"]) for words in (q.placed.figure, q.placed.ground)]
    spans = named_spans(turn)
    if q.overview and not part_queries(q) and not q.ordinal:  # a counted part is summarised once the parts are known
        whole = spans or ([(0.0, turn.duration)] if turn.duration else [])
        if SUMMARY in tools and whole:
            return calls + [call(SUMMARY, timestamp=clock_range(*whole[0]), length=q.summary_length)]
    if q.count == "mentions" and turn.duration:
        spans = [(0.0, turn.duration)]
    return calls + (_reads(turn, spans, tools, readers(q)) if spans else [])


EARLIER_LINES_S = 10.0
"""how long before a search hit's scene a line that matched in it may have appeared and still be read with it"""


def hit_span(hit: dict, query: str) -> Span:
    """What to read around a search hit: its scene, from a little earlier when a line in it that
    shares words with ``query`` was already up (credits scroll across a detected cut). Lines from
    longer before belong to the scene before (a slide's field that the next slide keeps showing),
    and lines matched only by meaning are left out (a name on screen throughout)."""
    start, end = float(hit.get("scene_start", hit["start"])), float(hit.get("scene_end", hit["end"]))
    wanted = set(tokenize(query))
    starts = [float(m["start"]) for m in hit.get("evidence") or []
              if isinstance(m, dict) and "start" in m and wanted & set(tokenize(m.get("text", ""))) and float(m["start"]) >= start - EARLIER_LINES_S]
    return min([start, *starts]), end


def _part_windows(turn: Turn, parts: list[str]) -> list[Span]:
    """Around the best hit of each of ``parts``, the scene it is in: read for its on-screen text, so
    that a named part can be widened to the time that text stays on screen, or for its speech, so
    that the stretch of talk about a part named as something said can be found."""
    windows = []
    for part in parts:
        hits = search_hits(turn, part)
        if hits:
            named, _ = naming_hits(hits, part)  # the hit that holds the part's words, else the best
            windows.append(hit_span((named or hits)[0], part))
    return windows


def _hit_spans(turn: Turn) -> list[Span]:
    """The best spans of the searches for the question's own words: the scene around each hit (a
    slide's figures and what is said over it), moved for a question placed after or before it."""
    q = turn.question
    spans = []
    queries = [main_query(turn)] if not q.operands else [*q.operands, f"{q.owner} {' '.join(q.attributes)}".strip()]
    if own_words_found(turn):
        queries = [own_query(turn) or ""]  # the follow-up's own words are found as such: that is where its answer is
    if who := person_referred(turn):
        queries = [who]  # "what else is he credited with?": wherever his name is
    for query in queries:
        hits = search_hits(turn, query)
        named, words = naming_hits(hits, query)
        if named and words != set(tokenize(query)):  # no hit holds the word, some hold a kind of it: those first
            hits = named + [h for h in hits if h not in named]
        for hit in hits[:HITS_READ if not q.operands else 1]:
            span = hit_span(hit, query)
            if "audio" in q.wants and q.relation:
                # "the sound after the narration about X": it may still fall within X's span
                span = clip((span[0] - 10 * (q.relation == "before"), span[1] + 10 * (q.relation == "after")), turn.duration)
            elif q.relation and (not q.relation_to or part_of(turn, q.relation_to, said=q.relation_said) is not None):
                span = shift(span, q.relation, turn.duration)  # not past a part that stands for no moment (see part_of)
            spans.append(span)
    return spans


def next_calls(turn: Turn, tools: set[str]) -> list[dict]:
    """What to call next, given what this turn already did; [] means: answer now."""
    planned = intent_calls(turn, tools)
    if planned is not None:
        return planned
    if not turn.steps:
        return first_calls(turn, tools)
    q = turn.question
    said = [q.relation_to] if q.relation_said and q.relation_to else []
    windows = _reads(turn, _part_windows(turn, part_queries(q)), tools, [TEXT]) + _reads(turn, _part_windows(turn, said), tools, [SPEECH])
    if windows:
        return windows
    if q.placed and (placed := _placed_span(turn)) and (reads := _reads(turn, [placed], tools, [TEXT])):
        return reads
    if q.item_nth and turn.duration and (reads := _reads(turn, [whole_read(turn.duration)], tools, [TEXT])):
        return reads  # "the second monitor": the things a panel describes are counted over all the screen shows
    if q.between and (parts := between_parts(turn))[0] is not None and parts[1] is None \
            and (reads := _reads(turn, [shift(parts[0], "after", turn.duration)], tools, [TEXT, SPEECH])):
        return reads  # "after the poem and before the next part": the next part starts with the next thing said or shown
    if q.relation_to_title and (opening := position_span("start", turn.duration)) and (reads := _reads(turn, [opening], tools, [TEXT])):
        return reads  # "the text before the title": the title is the biggest text in the opening, once read
    spans = named_spans(turn)
    if spans and (inside := _search_inside(turn, spans[0], tools)):
        return inside
    if q.overview and spans and SUMMARY in tools and not turn.called(SUMMARY):
        return [call(SUMMARY, timestamp=clock_range(*spans[0]), length=q.summary_length)]
    if q.overview and turn.called(SUMMARY):
        return []
    if spans is None:
        spans = _hit_spans(turn)
        if not spans and turn.duration and not any(s.name in RANGE_TOOLS for s in turn.steps):
            # the search matched nothing: read the start of the video, where what it is about is said and
            # shown (titles, names, the presenter), or all of it when it is short
            spans = [whole_read(turn.duration)]
    reads = _reads(turn, spans, tools, readers(q))
    if reads:
        return reads
    if q.operation and CALC in tools and not turn.called(CALC) and (found := expression(turn)):
        return [call(CALC, expression=found)]
    if (whole := _whole_speech_read(turn, tools)) is not None:
        return [whole]
    return []


def _search_inside(turn: Turn, part: Span, tools: set[str]) -> list[dict]:
    """For a question about a part it names ("in the ballad, which month gets called cruel?"), the
    question searched again inside that part alone: the lines there ranked by meaning as well as by
    words, since the line that answers may share no word with the question ("harsh April")."""
    q = turn.question
    if SEARCH not in tools or not q.scope or q.overview or q.focus_tokens == q.tokens or q.time_range is not None:
        return []
    a, b = clip(part, turn.duration)
    if b <= a:
        return []
    within = clock_range(a, b)
    if any((step.args or {}).get("within") == within for step in turn.called(SEARCH)):
        return []
    return [call(SEARCH, query=q.text, within=within, k=PART_K, modalities=["speech", "ocr"])]


def _placed_span(turn: Turn) -> Span | None:
    """From the first to the last place the two things a placement question relates were found on
    screen: read whole, so that each moment they stood side by side is seen (a box dragged about)."""
    placed = turn.question.placed
    hits = [h for words in (placed.figure, placed.ground) for h in search_hits(turn, " ".join(words))]
    if not hits:
        return None
    return min(float(h["start"]) for h in hits), max(float(h["end"]) for h in hits)


def _whole_speech_read(turn: Turn, tools: set[str]) -> dict | None:
    """"Does anybody talk in it, or is it just music?": where the parts read held no speech at all, the
    whole video is read for it, so that "no" is said of the video, not of the parts read."""
    q = turn.question
    if q.wh != "yesno" or "speech" not in q.wants or SPEECH not in tools or not turn.duration:
        return None
    if q.time_range is not None or q.relation or q.quoted or named_spans(turn):
        return None  # a question about one part: what is said there decides
    said = [s for s in turn.called(SPEECH) if s.result]
    if any(e.modality == "speech" and e.source != SEARCH for e in turn.evidence()) or not said:
        return None
    if not any(s.result.get("audio_track", True) for s in said):
        return None  # no audio track at all: that is the answer already
    return None if whole_reads(turn, SPEECH) else call(SPEECH, timestamp=clock_range(0.0, turn.duration))
