"""Where in the video a question looks: a stretch it names by clock time or position, the part of
the video it names ("the Lowry reading" is where the words "Lowry" are shown or said, for as long
as that title stays on screen), the stretch after, before or between such parts, or the moment the
previous answer cited."""

from __future__ import annotations

import functools
import re

from ....errors import StarAgentError
from ....index.text import tokenize
from ....qa.layout import height, popped_up
from ....qa.names import person_names
from ....timecodes import clock_range, parse_range
from ....tools.summary import PART_MIN_S, parts_of
from ....words import is_name_word, kinds_of, person_name_words
from .conversation import RANGE_TOOLS, SEARCH, SPEECH, TEXT, Turn, boxes_of, key_of, search_hits
from .question import SOUND_TOKENS, TITLE_TOKENS, named_sounds, names_only_credits, resolve_range
from .ranking import heard_words, matched, names_in_question, sound_kind

Span = tuple[float, float]
WIDTH = 20.0  # seconds read before or after a moment when nothing else bounds it
STANDING = 0.75
"""the share of the video from which an on-screen line stands for no part of it: a button or a window's
title that stays up from its opening to the end names no moment"""
MAX_READ = 600.0  # longest stretch read in one call when the question names no part


def position_span(position: str, duration: float | None, credits: bool = False) -> Span | None:
    """The opening or the closing part of the video: its first or last sixth, at least 30 s and at
    most 3 minutes; for its credits, which run longer, its first or last quarter, up to 10 minutes."""
    if not duration:
        return None
    width = min(max(60.0, duration / 4), MAX_READ, duration) if credits else min(max(30.0, duration / 6), 180.0, duration)
    return (0.0, width) if position == "start" else (max(0.0, duration - width), duration)


def clip(span: Span, duration: float | None) -> Span:
    start, end = max(0.0, span[0]), span[1]
    if duration:
        end = min(end, duration)
        start = min(start, max(0.0, end - 1.0))
    return start, end


def shift(span: Span, relation: str | None, duration: float | None, width: float = WIDTH) -> Span:
    start, end = span
    if relation == "after":
        start, end = end, end + width
    elif relation == "before":
        start, end = start - width, start
    return clip((start, end), duration)


_RANGE_IN_TEXT = re.compile(r"(\d+:\d{2}(?::\d{2})?)\s*[–-]\s*(\d+:\d{2}(?::\d{2})?)")


def anchor(turn: Turn) -> Span | None:
    """The moment "it" or "that" refers to: the span of what the previous answer led with, or the
    first time range its text names (an answer from a planner that does not say what it cited)."""
    cited = turn.previous_evidence
    if cited:
        return cited[0].start, cited[0].end
    if turn.previous_answer and (found := _RANGE_IN_TEXT.search(turn.previous_answer)):
        try:
            return parse_range(f"{found[1]}-{found[2]}")
        except StarAgentError:
            return None
    return None


def _shown_with(lines: list[dict], text: str) -> list[Span]:
    """When the on-screen ``lines`` showed ``text`` (the span of each line that held it)."""
    wanted = set(tokenize(text))
    return sorted((float(line["start"]), float(line["end"])) for line in lines if set(tokenize(line["text"])) >= wanted)


def lines_read(turn: Turn, tool: str = TEXT) -> list[dict]:
    """Every on-screen line (or, with ``tool`` the speech tool, every line said) read this turn, each
    with its own span."""
    return [line for step in turn.called(tool) for line in (step.result or {}).get("lines") or []]


SAID_GAP = 15.0
"""lines that mention a topic this close together belong to one stretch of talk about it"""


def _said_about(turn: Turn, tokens: set[str], around: float) -> Span | None:
    """The stretch of talk about a topic: the run of lines said this turn that mention its words
    (those said at all), nearest to ``around`` (from the first mention to the end of the last)."""
    lines = [(x, set(tokenize(x["text"]))) for x in lines_read(turn, SPEECH)]
    # the words nobody says name no talk ("the line about the spring of hope": the lines that say "spring" and "hope")
    tokens = matched(tokens, set().union(*(words for _, words in lines))) if lines else set()
    said = [(float(x["start"]), float(x["end"])) for x, words in lines if tokens and matched(tokens, words) == tokens]
    return contiguous(said, around, gap=SAID_GAP)


def runs_of(spans: list[Span], gap: float = 1.5) -> list[Span]:
    """``spans`` (in order of start) joined where they touch, or come within ``gap`` seconds."""
    runs: list[list[float]] = []
    for a, b in spans:
        if runs and a - runs[-1][1] <= gap:
            runs[-1][1] = max(runs[-1][1], b)
        else:
            runs.append([a, b])
    return [(a, b) for a, b in runs]


def contiguous(spans: list[Span], around: float, gap: float = 1.5) -> Span | None:
    """The run of ``spans`` (see ``runs_of``) that holds or is nearest to ``around``."""
    runs = runs_of(spans, gap)
    if not runs:
        return None
    return min(runs, key=lambda r: 0.0 if r[0] <= around <= r[1] else min(abs(r[0] - around), abs(r[1] - around)))


def _kinds(query: str) -> set[str]:
    """The tokens of the kinds of the last noun of ``query`` ("the Shakespeare poem": sonnet, ode ...)."""
    words = [w for w in re.findall(r"[a-z]+", query.lower()) if w not in ("the", "a", "an", "this", "that")]
    return {stem for kind in kinds_of(words[-1]) if (stem := _stem_of(kind))} if words else set()


def _stem_of(word: str) -> str | None:
    """The search token of one word itself, without the pieces ``tokenize`` also splits a long word
    into as if OCR had glued it ("declamation" is no "decla" + "mation", and holds no "make")."""
    tokens = tokenize(word)
    return tokens[0] if tokens else None


def named_by_kind(turn: Turn, wanted: set[str]) -> set[str]:
    """``wanted`` with the thing the question asks about ("which flower ...", "is there a speech
    ...", "whose speech ...") replaced, when no line read names it, by the kinds of it that lines read do name: a
    question says "a talk" where the video shows "Evening lecture", "which flower" where an
    orchid is mentioned. Other words, and a thing some line names, stay as they are."""
    q = turn.question
    read = [set(tokenize(e.text)) for e in turn.evidence() if e.source != SEARCH and e.modality in ("speech", "ocr")]
    seen = set().union(*read) if read else set()
    out = set(wanted)
    # the thing asked for; or the one thing a question names ("whose speech is in the video?")
    # "the title of the poem": the poem is the one thing named, the title only the kind of line wanted
    things = [w for w in q.keywords if not (q.asks_title and set(tokenize(w)) <= TITLE_TOKENS)]
    asked = [q.asked_for] if q.asked_for else q.subject[-1:] if q.wh == "yesno" else things if len(things) == 1 else []
    for word in asked:
        own = set(tokenize(word))
        if not own or not own <= wanted or matched(own, seen):
            continue
        kinds = {stem for kind in kinds_of(word) if (stem := _stem_of(kind)) and stem in seen}
        if kinds:
            out = (out - own) | kinds
    return out


_ANY_SOUND = frozenset(tokenize("sound sounds noise noises"))


def naming_hits(hits: list[dict], query: str) -> tuple[list[dict], set[str]]:
    """The search hits whose lines hold the words of ``query``, and those words; failing that, the
    hits where a kind of the thing it names is named ("the poem": a title that says "Sonnet"; "whose
    speech": "Inaugural address"), and the kind's words."""
    tokens = set(tokenize(query))
    tokens = tokens - _ANY_SOUND or tokens  # "the bell sound": the bell names it; any sound is "a sound"
    holds = [(h, set().union(*(matched(tokens, set(tokenize(heard_words(m)))) for m in h.get("evidence") or []))) for h in hits]
    # the hits that hold the part's words, those that hold more of them first ("the gong after the poem": the gong's, by the poem)
    named = [h for h, words in sorted(holds, key=lambda x: -len(x[1])) if words]
    if not named and (kinds := _kinds(query)):
        named = [h for h in hits if any(set(tokenize(heard_words(m))) & kinds for m in h.get("evidence") or [])]
        tokens = kinds
    if not named:  # "the door creaking", named by no line: where the acoustics guessed a creak
        named = [h for h in hits if any(m.get("modality") == "audio" and matched(tokens, set(tokenize(m.get("text", ""))))
                                        for m in h.get("evidence") or [])]
    return named, tokens


def part_of(turn: Turn, query: str, said: bool = False) -> Span | None:
    """Where the part of the video that ``query`` names is: the best hit of the search made for it,
    widened to the time the on-screen text that matched stays on screen (a title card, a slide), else
    to the hit's scene. A part named as something ``said`` ("after she talks about X") is the stretch
    of talk that mentions it."""
    hits = search_hits(turn, query)
    if not hits:
        return None
    # the part is where its words are: a hit that holds none of them found something else
    named, tokens = naming_hits(hits, query)
    if not named:
        return None
    hit = named[0]
    if said and (talk := _said_about(turn, tokens, float(hit["start"]))) is not None:
        return talk
    heard = [m for m in hit.get("evidence") or [] if m.get("modality") == "audio" and matched(tokens & SOUND_TOKENS, set(tokenize(heard_words(m))))]
    if heard:  # "the gong after the poem": the stretch the gong is heard in, not the poem's title card beside it
        return float(hit["start"]), float(hit["end"])
    shown = [m for m in hit.get("evidence") or [] if m.get("modality") == "ocr" and matched(tokens, set(tokenize(m["text"])))]
    if shown:
        best = max(shown, key=lambda m: len(matched(tokens, set(tokenize(m["text"])))))
        on_screen = contiguous(_shown_with(lines_read(turn), best["text"]), float(best["start"]))
        if on_screen is not None and turn.duration and on_screen[1] - on_screen[0] >= STANDING * turn.duration:
            return None  # a button or a name up for the whole video ("after hitting Apply") places no moment
        if on_screen is not None:
            return on_screen
        return float(best["start"]), float(best["end"])
    return float(hit.get("scene_start", hit["start"])), float(hit.get("scene_end", hit["end"]))


STANDOUT = 2.0
"""how many times the next hit's score the best one's must be for a match by meaning alone to be trusted"""


def standout_span(turn: Turn) -> Span | None:
    """The span of a search hit that stands far above the others (a match by meaning, "rolled
    back" for "Undo Changes"), when a search found one."""
    for step in turn.called(SEARCH):
        hits = [h for h in (step.result or {}).get("results") or [] if isinstance(h, dict) and "start" in h]
        scores = [float(h.get("score") or 0.0) for h in hits[:2]]
        if len(scores) == 2 and scores[1] > 0 and scores[0] >= STANDOUT * scores[1]:
            return float(hits[0]["start"]), float(hits[0]["end"])
    return None


_PERSON_PRONOUN = re.compile(r"\b(?:he|him|his|she|her|hers)\b|\bth(?:at|is) (?:person|man|woman)\b", re.I)


def person_referred(turn: Turn) -> str | None:
    """For "what else is he credited with?" (what someone did, asked of a "he", "she" or "that person"
    the question does not name): the first name the last answer cited."""
    q = turn.question
    if not q.role_of or not (q.follow_up or q.refers_back) or not _PERSON_PRONOUN.search(q.text) or names_in_question(q, q.tokens):
        return None
    return next((names[0] for e in turn.previous_evidence if (names := person_names(e.text))), None)


def own_query(turn: Turn) -> str | None:
    """A follow-up's own words, searched alone beside them with the earlier topic ("and who did the
    music?" after a question about the film's director). A pronoun ties them to that topic ("and what
    does it weigh?"), except where they name someone or something themselves ("what did Mira
    Oyelaran do on it?": the name is searched, the pronoun only says which film; so is a role asked
    for, "who's listed as producing it?"). Where they hold a name, the name alone is searched ("and
    what about the austen book?": austen)."""
    q = turn.question
    own = [w for w in q.topic if w not in q.carried] if q.follow_up and q.carried else []
    role = set(tokenize(q.role or ""))
    names = [w for w in own if w[:1].isupper() or is_name_word(w) or role & set(tokenize(w))]
    # the names alone ("austen" typed in lower case too) are something of its own, whatever "it" points
    # at, and so is a role asked for ("who's listed as producing it?": another credit of the same film);
    # where it names one, the name says which ("the austen book": not any line with "book")
    return " ".join(names if q.pronoun or names else own) or None


def own_words_found(turn: Turn) -> bool:
    """Whether the search for a follow-up's own words found them as such, said or shown (not only
    by meaning): its answer is there, not in the part the last answer came from."""
    own = own_query(turn)
    hits = search_hits(turn, own) if own else []
    words = set(tokenize(own or ""))
    return bool(hits) and any(m.get("modality") in ("ocr", "speech") and matched(words, set(tokenize(m["text"])))
                              for m in hits[0].get("evidence") or [])


def parts_shown(turn: Turn) -> list[Span]:
    """The parts of the video, in order, as its on-screen text marks them (``tools.summary.parts_of``),
    over the lines read this turn."""
    return parts_of((float(x["start"]), float(x["end"])) for x in lines_read(turn))


def between_parts(turn: Turn) -> tuple[Span | None, Span | None]:
    """Where the two parts of "between A and B" are, each None where it was not found; the second is
    None too where both found the same part: it was named by where it is ("the next part"), not by
    its words."""
    a, b = (part_of(turn, p) for p in turn.question.between or ("", ""))
    if a is not None and b is not None and a[0] < b[1] and b[0] < a[1]:
        b = None
    return a, b


NEXT_AFTER_S = 1.0
"""how long after a part ends something must begin to be the next thing, not the part's own tail"""


def _next_start(turn: Turn, after: float) -> float | None:
    """When the next thing is said or shown after ``after``: the first line read that starts then
    (speech, on-screen text, or speech the sound events heard); None when nothing read does."""
    starts = [e.start for e in turn.evidence() if e.source != SEARCH and e.start > after + NEXT_AFTER_S
              and (e.modality in ("speech", "ocr") or (e.modality == "audio" and sound_kind(e) == "speech"))]
    return min(starts, default=None)


def title_span(turn: Turn) -> Span | None:
    """When the video's title is up: the time of the biggest text read in its opening, None when
    no text with a box was read there."""
    opening = position_span("start", turn.duration)
    lines = [line for line in lines_read(turn) if opening and float(line["start"]) < opening[1]]
    boxes = boxes_of(lines)
    sized = [(height(boxes[key_of(line)]), line) for line in lines if key_of(line) in boxes]
    if not sized:
        return None
    tallest = max(sized, key=lambda pair: (pair[0], -float(pair[1]["start"])))[1]
    return float(tallest["start"]), float(tallest["end"])


def whole_read(duration: float | None) -> Span | None:
    """What reading "all of the video" covers: its start, up to ``MAX_READ`` seconds; None when its
    length is unknown."""
    return (0.0, min(duration, MAX_READ)) if duration else None


def _counted_part(turn: Turn) -> list[Span] | None:
    """For "the third reading": the whole video is read first (up to ``MAX_READ``), then its parts
    are counted; [] when it has fewer."""
    whole = whole_read(turn.duration)
    if whole is None:
        return None
    if not covered(whole, ranges_read(turn).get(TEXT, [])):
        return [whole]
    return _nth(parts_shown(turn), turn.question.ordinal)


def _nth(spans: list[Span], n: int) -> list[Span]:
    """The ``n``-th of ``spans`` counted from 1 (-1: the last), alone; [] when there are fewer."""
    return [spans[n - 1 if n > 0 else n]] if 0 < abs(n) <= len(spans) else []


def named_spans(turn: Turn) -> list[Span] | None:
    """The stretches the question itself points at, or None when it points at none (then search
    says where to look). An empty list: it points somewhere that could not be found."""
    q, duration = turn.question, turn.duration
    if q.time_range is not None:
        return [resolve_range(q.time_range, duration)]
    if q.between:
        a, b = between_parts(turn)
        if a is None and b is None:
            return [] if turn.called(SEARCH) else None
        if a is None or b is None:
            # "after the poem and before the next part": "the next part" names nothing to find, so the
            # gap runs from the poem's end to the next thing said or shown; failing that, the moment is
            # after the poem, as the relation to it says (below)
            if a is not None and (following := _next_start(turn, a[1])) is not None:
                return [(a[1], following)]
            if q.relation is None or a is None:
                return [shift(a, "after", duration)] if a is not None else [shift(b, "before", duration)]
        else:
            first, second = sorted([a, b])
            return [clip((min(first[1], second[0]), max(first[1], second[0])), duration)]
    if q.credits and q.relation == "after" and names_only_credits(q.relation_to) and (closing := position_span("end", duration, True)):
        return [closing]  # "is there a scene after the credits?": the closing part is read, to see where they end
    base = part_of(turn, q.relation_to, said=q.relation_said) if q.relation_to else title_span(turn) if q.relation_to_title else None
    if base is None and (q.follow_up or q.refers_back):
        base = anchor(turn)
    if q.relation and base is not None:
        if q.relation_to in q.quoted:  # the quoted words and what follows (or precedes) them, read together
            return [clip((base[0], base[1] + WIDTH) if q.relation == "after" else (base[0] - WIDTH, base[1]), duration)]
        return [shift(base, q.relation, duration)]
    if q.ordinal:
        return _counted_part(turn)
    if q.count == "parts" and (whole := whole_read(duration)):  # "how many readings are there?": all of it is read, then its parts counted
        return [whole]
    if q.names_popup and not q.scope and (popups := popup_spans(turn)):
        if q.popup_nth is not None:  # "the second tooltip": the pop-ups in the order they came up
            return _nth(popups, q.popup_nth)
        return popups  # "what does the pop-up offer?": the text that came up over the window, once read
    if (q.asked_for == "button" or q.names_popup) and not q.scope and duration and duration <= MAX_READ:
        # "which button undoes the change?", "what does the pop-up offer?": a short screencast's every
        # line is read, since search finds a button by its words, not by what it does, and a pop-up
        # by what it says, not by having come up over a window
        return [(0.0, duration)]
    if listens_to_all(q) and (whole := whole_read(duration)):
        return [whole]  # "what sounds can you hear in it?": every sound, so all of it is listened to
    spans: list[Span] = []
    if q.scope and (found := part_of(turn, q.scope)) is not None:
        spans.append(found)
    elif not q.scope and not (base is not None and (q.refers_back or q.follow_up)) and (carded := part_on_card(turn)) is not None:
        spans.append(carded)
    if q.position and (found := position_span(q.position, duration, q.credits)) is not None:
        if spans:  # "the sonnet that opens the video": the named part, where it overlaps the opening
            spans = [s for s in spans if s[0] < found[1] and s[1] > found[0]] or spans
        else:
            spans.append(found)
    if spans:
        return spans
    if base is not None and (q.refers_back or q.follow_up) and not own_words_found(turn) and not person_referred(turn):
        return [widen_to_part(turn, base)]  # (what else "he" did is wherever his name is, not only where the last answer was)
    return None


CARD_SLACK_S = 1.0
"""how far a title card's time on screen may differ from its part's and still mark it"""


@functools.lru_cache(maxsize=1)
def _person_name_stems() -> frozenset[str]:
    return frozenset(t[0] for w in person_name_words() if len(t := tokenize(w)) == 1)


def _names_given(q) -> set[str]:
    """The question's words that are names: of a person WordNet knows ("darwin", "fdr"), or no word
    WordNet lists in lower case ("orrinwick")."""
    people = _person_name_stems()
    return {t for t in q.tokens if t in people} | {t for name in names_in_question(q, q.tokens) for t in name}


def _is_card(e, names: set[str]) -> bool:
    """Whether ``e`` is a title card naming someone in ``names``: an on-screen line up as long as a
    part's title is (``PART_MIN_S``), with a person's name in it ("Charles Darwin" in "On the Origin
    of Species - Charles Darwin") that holds one of them (not "Price: $579" for "price")."""
    if e.modality != "ocr" or e.end - e.start < PART_MIN_S or not names:
        return False
    written = [piece for name in person_names(e.text) for piece in re.split(r"\s+-\s+", name) if person_names(piece)]
    return any(matched(names, set(tokenize(name))) for name in written)


def placing_card(turn: Turn, part: Span):
    """The title card that placed the question in ``part`` (``part_on_card``): on screen over the
    whole of it, naming someone the question names; or None."""
    names = _names_given(turn.question)
    return next((e for e in turn.evidence() if abs(e.start - part[0]) <= CARD_SLACK_S and abs(e.end - part[1]) <= CARD_SLACK_S
                 and _is_card(e, names)), None)


def part_on_card(turn: Turn) -> Span | None:
    """The part a person the question names places it in, though no phrase of it names a part ("whats
    the opening line of the darwin bit", "what does fdr say about fear"): where the one title
    card naming them (an on-screen line up as long as a part's title is) is on screen, when every line
    read or found that holds a word of the question is said or shown there. A line up for most of the
    video (a window's title) places nothing; nor does a card that names no one ("Released under the
    Open Film License" for "under what licence can I share it?": it is the answer, not a place)."""
    q = turn.question
    names = _names_given(q)  # most questions give none: the lines are not read for them
    if not names:
        return None
    holding = [e for e in turn.evidence() if e.modality in ("ocr", "speech") and matched(q.tokens, set(tokenize(e.text)))]
    cards = {(e.start, e.end) for e in holding if _is_card(e, names)}
    if len(cards) != 1:
        return None
    (a, b), = cards
    if turn.duration and b - a >= STANDING * turn.duration:
        return None
    return (a, b) if all(e.start >= a - CARD_SLACK_S and e.end <= b + CARD_SLACK_S for e in holding) else None


def listens_to_all(q) -> bool:
    """"What sounds can you hear in this video?": the sounds of the whole video, each once, asked
    without a part, a moment or a sound named."""
    return (q.many and q.wants == {"audio"} and not q.names_silence and not (q.scope or q.relation or q.first_of or q.between)
            and q.moment is None and q.time_range is None and q.answer_type not in ("duration", "when") and not q.asks_moment
            and not named_sounds(q.text))


def popup_spans(turn: Turn) -> list[Span]:
    """Where text came up over a window and went again (``popped_up``), among the lines read this turn."""
    read = [e for e in turn.evidence() if e.modality == "ocr" and e.source != SEARCH]
    keys = popped_up(read, turn.duration)
    return runs_of(sorted((e.start, e.end) for e in read if e.key() in keys), gap=0.0)


def widen_to_part(turn: Turn, span: Span) -> Span:
    """The part of the video a cited moment belongs to: the on-screen text shown at that moment, for
    as long as it stays (read this turn), else the moment itself."""
    best = span
    lines = lines_read(turn)
    for line in lines:
        if not line["start"] <= span[0] + 0.5 or line["end"] < span[0] - 0.5:
            continue
        if (run := contiguous(_shown_with(lines, line["text"]), span[0])) and run[1] - run[0] > best[1] - best[0]:
            best = (min(run[0], span[0]), max(run[1], span[1]))
    return best


def ranges_read(turn: Turn, tools: tuple[str, ...] = RANGE_TOOLS) -> dict[str, list[Span]]:
    """The time ranges each range tool read this turn."""
    spans: dict[str, list[Span]] = {}
    for step in turn.steps:
        if step.name in tools and isinstance(step.args.get("timestamp"), str):  # a failed read counts: it is not tried again
            try:
                spans.setdefault(step.name, []).append(parse_range(step.args["timestamp"]))
            except Exception:  # noqa: BLE001 - a malformed range was already answered with an error
                continue
    return spans


def whole_reads(turn: Turn, tool: str) -> list[dict]:
    """The results of ``tool``'s calls this turn over the whole video."""
    whole = clock_range(0.0, turn.duration) if turn.duration else None
    return [s.result for s in turn.called(tool) if s.result and whole is not None and (s.args or {}).get("timestamp") == whole]


def covered(span: Span, read: list[Span]) -> bool:
    return any(a <= span[0] + 0.5 and b >= span[1] - 0.5 for a, b in read)
