"""The offline planner's answer: composed from the best evidence the tools found, with its timestamps.

The answer leads with what the question asks for (a moment, a count, a computed amount, the words
said right after a quote, an overview), then quotes the lines that support it, each with where it
was said, shown or heard. It says plainly when the video does not hold the answer: nothing is said
at all, the role asked about is never named, the kind of answer asked for is nowhere, or most of the
question's words are nowhere; and, without a model that sees pictures, that it cannot tell what the
pictures show.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from ....index.text import tokenize
from ....qa.describing import says_what_someone_is
from ....qa.layout import (
    TOGETHER_S,
    Box,
    Motion,
    card_of,
    is_heading,
    label_text,
    labelled,
    line_above,
    panel_items,
    popped_up,
    row_change,
)
from ....qa.names import person_names
from ....qa.read import text_of
from ....qa.spatial import names, placements
from ....schema import Evidence
from ....timecodes import format_range, format_time, parse_range
from ....words import is_name_word, place_kind_words
from .arithmetic import currency, values
from .conversation import AUDIO, CALC, MEMORY, SEARCH, SPEECH, SUMMARY, Step, Turn, boxes_of
from .focus import (
    Span,
    contiguous,
    lines_read,
    listens_to_all,
    named_by_kind,
    named_spans,
    part_of,
    parts_shown,
    person_referred,
    placing_card,
    ranges_read,
    standout_span,
    whole_read,
    whole_reads,
    widen_to_part,
)
from .intents import intent_answer
from .question import (
    CHOICE_TOKENS,
    TITLE_TOKENS,
    TYPE_WORDS,
    URL_WORDS,
    VOICE_TOKENS,
    Question,
    named_sounds,
    names_only_credits,
    said_only_by_verb,
)
from .ranking import (
    LASTING_SOUND,
    MONTH_DAY,
    NAME_CARRIES_S,
    Scored,
    beyond_question,
    button_action,
    field_names,
    has_type,
    heard_words,
    implied_words,
    is_choice,
    lone_name,
    matched,
    named_sound,
    names_field,
    names_in_question,
    names_place,
    normalised,
    on_throughout,
    quote_share,
    rank,
    sound_kind,
    stray_sign,
)

WHERE = {"ocr": "On screen", "speech": "Said", "audio": "Heard", "caption": "Seen", "visual": "Seen", "web": "Found on the web",
         "memory": "Remembered", "other": "Found"}
LISTED = 12  # lines quoted for "what is said between 0:30 and 0:45?"
_ROLE_WORDS = {
    "narrator": ("narrat", "read by", "reader", "voice"), "reader": ("read by", "reader", "narrat"),
    "speaker": ("speaker", "my name is", "i am", "i'm"), "presenter": ("present", "host"), "host": ("host", "present"),
    "author": ("author", "written by", "by "), "writer": ("writ", "author"), "director": ("direct",), "producer": ("produc",),
    "composer": ("compos", "music"), "singer": ("sing", "vocal"), "designer": ("design",), "creator": ("creat",),
    "user": ("user", "account"), "voice": ("voice", "narrat"),
}


_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
LONG_LINE = 30  # words: a longer line is quoted by its sentences that bear on the question


def excerpt(text: str, q: Question | None) -> str:
    """A long line's sentences that bear on the question (the best one and the one after it, which
    often completes it: "the hour of the tide. It was the hour of the storm"); a short line whole."""
    parts = _SENTENCE.split(text.strip())
    if q is None or len(parts) <= 2 or len(text.split()) <= LONG_LINE:
        return text
    wanted = q.focus_tokens
    scores = [len(matched(wanted, set(tokenize(p)))) + 3 * max((quote_share(x, p) for x in q.quoted), default=0.0)
              + 2 * has_type(beyond_question(p, q), q.answer_type) for p in parts]
    best = max(range(len(parts)), key=lambda i: (scores[i], -i))
    if scores[best] == 0:
        best = 0
    lo, hi = best, min(best + 2, len(parts))
    return ("… " if lo else "") + " ".join(parts[lo:hi]) + (" …" if hi < len(parts) else "")


def _sentence(group: list[Evidence], q: Question | None) -> str:
    e = group[0]
    said = (f"“{excerpt(text_of(x), q)}”" if x.modality in ("ocr", "speech") else x.text for x in group)
    quoted = " · ".join(dict.fromkeys(said))  # one sound read twice, over two ranges that clip it alike, is told once
    end = "" if quoted.rstrip("”").endswith((".", "!", "?", "…")) else "."
    return f"{WHERE.get(e.modality, 'Found')} at {format_range(e.start, e.end)}: {quoted}{end}"


def sentences(cited: list[Evidence], q: Question | None = None) -> list[str]:
    groups: dict[tuple, list[Evidence]] = {}
    for e in sorted(cited, key=lambda x: x.start):
        groups.setdefault((e.modality, round(e.start, 1), round(e.end, 1)), []).append(e)
    return [_sentence(g, q) for g in groups.values()]


HELD_S = 0.5
"""how far a line may run past a search hit inside a part and still be what the hit found"""


def _search_ranks(turn: Turn) -> dict[tuple, int]:
    """For each line found this turn, the best rank (1 = best) of a search hit whose span it lies in:
    the hybrid search weighs meaning as well as words, so its order is worth a little. Inside a part
    searched again on its own (``within``), that search alone ranks the lines: a search of the whole
    video puts the part first as a whole, every line in it alike."""
    ranks: dict[tuple, int] = {}
    for inside in (False, True):
        for step in turn.called(SEARCH):
            if bool((step.args or {}).get("within")) != inside:
                continue
            hits = [(place, float(hit["start"]), float(hit["end"]), {m.get("text") for m in hit.get("evidence") or [] if isinstance(m, dict)})
                    for place, hit in enumerate((step.result or {}).get("results") or [], start=1) if isinstance(hit, dict) and "start" in hit]
            part = parse_range(step.args["within"]) if inside else None
            for e in turn.evidence():
                # inside the part, a hit is one stretch of it, and what it found there is its evidence: not a
                # line that outlasts it (the part's title card), nor another line said in that stretch
                places = [place for place, a, b, found in hits
                          if (e.start >= a - HELD_S and e.end <= b + HELD_S and e.text in found if inside else e.start < b and e.end > a)]
                if part is not None and e.start < part[1] and e.end > part[0]:
                    ranks[e.key()] = min(places, default=len(hits) + 1)
                elif places:
                    ranks[e.key()] = min([*places, ranks.get(e.key(), len(hits) + 1)])
    return ranks


def _ranked(turn: Turn, focus: list[Span] | None) -> list[Scored]:
    q = turn.question
    wanted = q.focus_tokens if focus else q.tokens
    # a part placed by its title card holding the question's words ("the darwin bit"): those words
    # say where, as a named part's do
    card = placing_card(turn, focus[0]) if focus and not q.scope else None
    place_words = matched(wanted, set(tokenize(card.text))) if card is not None else q.scope_tokens
    wanted = (wanted - place_words) or wanted
    kind_words = TYPE_WORDS | (URL_WORDS if q.answer_type == "url" else frozenset())
    wanted = (wanted - kind_words) or wanted  # "how much does X cost": a line about X with an amount, "cost" or "price"
    wanted = named_by_kind(turn, wanted)
    read = [e for e in turn.evidence() if e.source != SEARCH]
    boxes = boxes_of(lines_read(turn))
    item = _counted_item(q, read, boxes)
    if item is not None:
        wanted = wanted | set(tokenize(item.text))  # "the second monitor": as if its name were asked about
    popped = popped_up(turn.evidence(), turn.duration) if focus and q.names_popup else set()
    popups = [e for e in read if e.key() in popped]
    if popups and not any(e.start < b and e.end > a for e in popups for a, b in focus):
        # "that popup near the end": the pop-up nearest the stretch named, whose edge may cut it off
        near = min(popups, key=lambda e: min(abs(e.start - a) + abs(e.end - b) for a, b in focus))
        focus = [*focus, (near.start, near.end)]
    # "right after X": the moment X ends, where the focus starts (the focus ends where "before X" points)
    edge = None if not (focus and q.relation and (q.relation_to or q.refers_back)) else focus[0][0] if q.relation == "after" else focus[0][1]
    context = {"wanted": wanted, "focus": focus, "place_words": place_words, "search_rank": _search_ranks(turn), "edge": edge, "boxes": boxes,
               "duration": turn.duration, "pointed": turn.previous_evidence if q.pronoun and (q.follow_up or q.refers_back) else None}
    scored = rank(q, read or turn.evidence(), **context)
    if not scored and read:  # nothing read matches: what search saw elsewhere may still
        scored = rank(q, turn.evidence(), **context)
    asked = {"audio"} if "audio" in q.wants else q.wants - {"visual"}
    if asked and any(s.evidence.modality in asked for s in scored):
        scored = [s for s in scored if s.evidence.modality in asked]  # "what was said": speech, not the slide
    if q.asks_character and scored:
        # "how is he described?": a line saying what someone is ("He was not an ill-disposed young man."),
        # in the words of the question or not, where the question points or in the part it names
        within = focus or [widen_to_part(turn, (scored[0].evidence.start, scored[0].evidence.end))]
        ranked = {s.evidence.key() for s in scored}
        saying = [Scored(scored[0].score, 0.0, e) for e in read if e.key() not in ranked and e.modality in ("speech", "ocr")
                  and any(e.start < b and e.end > a for a, b in within) and says_what_someone_is(e.text)]
        scored = sorted(scored + saying, key=lambda s: not says_what_someone_is(s.evidence.text))
    if item is not None and not _asks_a_field(q, read):
        # "what's the second monitor called?", "when is the second monitor switched on?": the thing
        # itself answers (or its row changes), not a field of its panel; its clearest reading first
        scored = sorted(scored, key=lambda s: (s.evidence.text != item.text, not _reads_as(s.evidence, item)))
    elif item is not None:
        # "what resolution does the second screen get?": a field of its panel, not its name
        scored = sorted(scored, key=lambda s: _reads_as(s.evidence, item))
    return scored


def _reads_as(e: Evidence, item: Evidence) -> bool:
    """Whether ``e`` is ``item``'s name as OCR read it somewhere: most of its words are the name's
    ("AcerTechrgies17" for "Acer Technologies17")."""
    own = set(tokenize(e.text))
    return bool(own) and 3 * len(own & set(tokenize(item.text))) >= 2 * len(own)


def _counted_item(q: Question, read: list[Evidence], boxes: dict[tuple, Box]) -> Evidence | None:
    """For "the second monitor": the second of the things a settings panel on screen describes, in
    the order they came up (``layout.panel_items``); None when the question counts none, or the
    screen shows fewer."""
    nth = q.item_nth
    items = panel_items(read, boxes) if nth else []
    return items[nth - 1] if nth and len(items) >= nth else None


def _asks_a_field(q: Question, read: list[Evidence]) -> bool:
    """Whether the question names a field on screen ("Resolution:"): a setting of the thing it
    points at, not the thing itself."""
    return bool(matched(q.tokens | set(tokenize(q.asked_for or "")), field_names(read)))


def choose(turn: Turn, scored: list[Scored], limit: int = 3) -> list[Evidence]:
    """The best line, and the lines beside it that add a word of the question or the kind of
    answer asked for; not competing figures ("Pallets in stock: 6987" answers, "ships 1243 orders a
    day" beside it would only confuse)."""
    q = turn.question
    if not scored:
        return []
    best = scored[0].evidence
    chosen = [best]
    boxes = boxes_of(lines_read(turn))
    if not tokenize(beyond_question(best.text, q)):
        # the line only repeats the question ("the hour of the tide"): what is asked is said right after
        # it, or on a card, stands over it, shown with it ("who 'presents' it?": "THE HARBOUR FILM
        # COLLECTIVE" over "PRESENTS")
        shown = [e for e in turn.evidence() if e.modality == "ocr" and e.source != SEARCH] if best.modality == "ocr" else []
        over = line_above(best, shown, boxes) if shown else None
        if over is not None and abs(over.start - best.start) <= TOGETHER_S:
            chosen.append(over)
        elif (following := _next_line(turn, best, within=3.0)) is not None:
            chosen.append(following)
    elif best.modality == "speech" and (partner := _partner(turn, best)) is not None and cast_alike(best.text, partner.text) \
            and tokenize(beyond_question(partner.text, q)):
        # "We had everything before us." "We had nothing before us.": a short sentence and the one cast
        # like it beside it make one statement, and either may be what is asked (not one the question
        # itself quotes: "besides the best of times, what else was it?")
        chosen.append(partner)
    if best.modality == "audio" and sound_kind(best) != "silence":
        # what the tagger named and what the acoustic statistics measured at the same moment say more
        # together ("Church bell" and "steady tone near 220 Hz"; "Sine wave" and "880 Hz beep")
        chosen += [s.evidence for s in scored[1:] if s.evidence.modality == "audio" and named_sound(s.evidence) != named_sound(best)
                   and sound_kind(s.evidence) != "silence" and s.evidence.start <= best.end + 0.5 and s.evidence.end >= best.start - 0.5][:1]
    if q.many and q.quoted:
        # "it was 'the season of' two things: which two?": every line that holds the quoted words
        holding = list({normalised(s.evidence.text): s.evidence for s in scored
                        if any(quote_share(x, s.evidence.text) >= QUOTE_WHOLE for x in q.quoted)}.values())
        if len(holding) > 1:
            return sorted(holding, key=lambda e: e.start)[:ROLES_LISTED]
    # (a credit that stays on screen: in a roll, the block that rolls in after the names shares their heading)
    shown = [e for e in turn.evidence() if e.modality == "ocr"]
    motion = Motion(shown, boxes) if best.modality == "ocr" and not q.many else None
    labels = labelled(shown, boxes, motion) if motion is not None and not motion.rolls(best) else {}
    heading = label_text(labels, best) if labels else ""
    heading = heading if is_heading(heading) and matched(q.tokens, set(tokenize(heading))) else ""  # a credit the question names
    if best.modality == "ocr" and (q.many or heading):
        # "name the people credited with ...", and "with financial support from who?" where the credit
        # names more than one: each line that answers as well as the best (the names under one
        # heading), once each
        alike = [s.evidence for s in scored if s.evidence.modality == "ocr" and s.share >= scored[0].share
                 and s.score >= scored[0].score - ALIKE and abs(s.evidence.start - best.start) <= 10
                 and (not heading or (label_text(labels, s.evidence) == heading and not is_heading(s.evidence.text)))]
        once: dict[str, Evidence] = {}
        for e in alike:
            once.setdefault(normalised(e.text), e)
        if len(once) > 1:  # one line alone answers as the best line does, with what goes with it
            return list(once.values())[:ROLES_LISTED]
    if matched(q.asked_tokens, button_action(q, best)):
        # "which button saves the changes?": the labels that do what it says, and nothing beside them
        # (not "Apply" for "after they hit apply, what are its buttons?": that clause only places it)
        return [s.evidence for s in scored if matched(q.asked_tokens, button_action(q, s.evidence))][:limit]
    popups = popped_up(turn.evidence(), turn.duration) if q.names_popup else set()
    if set(tokenize(q.asked_for or "")) & CHOICE_TOKENS and popups:
        # "what are the buttons on it?", "the two choices on the dialog": the choices of the pop-up whose
        # choice ranks best, whatever else the words match (a hint alone offers none)
        choices = [s.evidence for s in scored if s.evidence.key() in popups and is_choice(s.evidence, popups)]
        if choices:
            return [e for e in choices if abs(e.start - choices[0].start) <= TOGETHER_S][:limit]

    def answers_to(e: Evidence) -> set[str]:  # the words a line holds, and those it stands for (a pop-up's button is a "choice")
        return set(tokenize(e.text)) | implied_words(q, e, boxes, popups=popups)

    covered = matched(q.tokens, answers_to(best))
    if best.modality == "ocr" and not covered and q.answer_type is None and len(chosen) == 1:
        # "what's the text that comes up before the title?": the best line holds no word of the
        # question, so what is asked is what was shown there, and that is the whole card it was on
        shown = [e for e in turn.evidence() if e.modality == "ocr" and e.source != SEARCH]
        card = card_of(best, shown, boxes)
        if 1 < len(card) <= limit:
            return card
    for s in scored[1:]:
        e = s.evidence
        if len(chosen) >= limit:
            break
        near = abs(e.start - best.start) <= 30
        adds = matched(q.tokens, answers_to(e)) - covered
        competing = q.operation is None and has_type(best.text, q.answer_type) and has_type(e.text, q.answer_type)
        if competing and q.answer_type in ("money", "percent", "number", "duration", "time"):
            continue
        fuller = q.answer_type in ("date", "when") and bool(MONTH_DAY.search(e.text)) and not MONTH_DAY.search(best.text)
        # the kind asked for, which the best line lacks ("Kettlewerk" under "LOGO AND POSTER DESIGN" is a name: no other is needed)
        typed = q.answer_type != "entity" and has_type(e.text, q.answer_type) and not has_type(best.text, q.answer_type) and not lone_name(best.text)
        if near and s.score >= 0.5 * scored[0].score and (adds or fuller or typed):
            chosen.append(e)
            covered |= adds
    # "He was not unkind." "Unless being cold is unkind.": one thought, cut in two; and a spoken line
    # that only repeats the question is answered by the line said after it, wherever it ranked
    carried = [following for e in chosen if e.modality == "speech" and (following := _continuation(turn, e) or (
        _partner(turn, e) if e is not best and not tokenize(beyond_question(e.text, q)) else None)) is not None]
    return chosen + [e for e in carried if e.key() not in {c.key() for c in chosen}]


ALIKE = 0.15
"""how far below the best a line may score and still answer a question that asks for every answer"""
MEASURED = frozenset({"money", "percent", "number", "duration", "time", "date"})
"""kinds of answer a line shows by its form (an amount, a date), whatever its words"""
CONTINUING = frozenset({"unless", "but", "and", "because", "although", "though", "except", "until", "which", "or", "so", "yet", "whereas"})
"""words that open a sentence carrying on the one before it"""


def _next_line(turn: Turn, line: Evidence, within: float) -> Evidence | None:
    """The first line read this turn, of ``line``'s kind, that begins at most ``within`` seconds after it ends."""
    after = [e for e in turn.evidence() if e.modality == line.modality and e.source != SEARCH and line.end - 0.5 <= e.start <= line.end + within
             and e.key() != line.key()]
    return min(after, key=lambda e: e.start, default=None)


def _previous_line(turn: Turn, line: Evidence, within: float) -> Evidence | None:
    """The last line read this turn, of ``line``'s kind, that ends at most ``within`` seconds before it begins."""
    before = [e for e in turn.evidence() if e.modality == line.modality and e.source != SEARCH and line.start - within <= e.end <= line.start + 0.5
              and e.key() != line.key()]
    return max(before, key=lambda e: e.end, default=None)


def _partner(turn: Turn, line: Evidence) -> Evidence | None:
    """The spoken line a ``line`` that only repeats the question is paired with: of the lines said
    right before and right after it, the one cast in the same form ("It was the hour of toil." after
    "It was the hour of rest."); the one after when both are."""
    before, after = _previous_line(turn, line, within=3.0), _next_line(turn, line, within=3.0)
    words = set(re.findall(r"[a-z']+", line.text.lower()))
    shared = {e.key(): len(words & set(re.findall(r"[a-z']+", e.text.lower()))) for e in (before, after) if e is not None}
    if before is None or (after is not None and shared[after.key()] >= shared[before.key()]):
        return after
    return before


PAIRED_WORDS = 8
"""the most words each of two sentences cast alike has ("It was the spring of hope.")"""


def cast_alike(a: str, b: str) -> bool:
    """Two short sentences built the same way: they open with the same words ("It was the ...", "We
    had ..."), two of the first three at least (a recogniser may drop the first)."""
    wa, wb = re.findall(r"[a-z']+", a.lower()), re.findall(r"[a-z']+", b.lower())
    return 0 < len(wa) <= PAIRED_WORDS and 0 < len(wb) <= PAIRED_WORDS and len(set(wa[:3]) & set(wb[:3])) >= 2


def _continuation(turn: Turn, line: Evidence) -> Evidence | None:
    """The line said right after ``line`` when it carries the thought on: it opens with a word that
    does, or ``line`` breaks off mid-sentence (a comma, and the next line goes on in lower case)."""
    after = _next_line(turn, line, within=2.0)
    if after is None or not (words := re.findall(r"[A-Za-z]+", after.text)):
        return None
    if words[0].lower() in CONTINUING or (line.text.rstrip().endswith((",", ";", ":")) and words[0].islower()):
        return after
    return None


_VOCATIVE = re.compile(
    r"\b(?:my\s+)?(?:fellow|dear|dearest|beloved)\s+[a-z]+(?:\s+and\s+[a-z]+)?|\bladies and gentlemen\b|\bbrothers and sisters\b"
    r"|\b(?:hello|hi|good (?:morning|afternoon|evening)|welcome|thank you),?\s+(?:everyone|everybody|all|friends|folks|guys|class)\b", re.I)
"""how a speaker names the people they talk to ("my fellow citizens", "ladies and gentlemen")"""


def _addressed(turn: Turn, focus: list[Span] | None) -> tuple[str, list[Evidence]] | None:
    """Whom a speaker talks to: the listeners named in what is said in the part the question
    points at (its named span, else where the question's names are shown or said)."""
    q = turn.question
    read = [e for e in turn.evidence() if e.source != SEARCH]
    spans = list(focus or [])
    if not spans and (names := names_in_question(q, q.tokens)):
        spans = [(e.start, e.end) for e in read if any(matched(name, set(tokenize(e.text))) == name for name in names)]
    said = sorted((e for e in read if e.modality == "speech" and (not spans or any(e.start < b and e.end > a for a, b in spans))),
                  key=lambda e: e.start)
    calling = [e for e in said if _VOCATIVE.search(e.text)]
    if not calling:
        return None
    return "The speaker names whom they are talking to: " + " ".join(sentences(calling[:1], q)), calling[:1]


def _edge_words(turn: Turn, focus: list[Span]) -> tuple[str, list[Evidence]] | None:
    """What a part opens or closes with: its first (or last) line said, else shown."""
    inside = [e for e in turn.evidence() if e.source != SEARCH and e.modality in ("speech", "ocr") and any(a - 0.5 <= e.start < b for a, b in focus)
              and len(re.findall(r"[A-Za-z]{2,}", e.text)) >= 2]  # not a stray "1." read out before the text
    said = [e for e in inside if e.modality == "speech"] or inside
    if not said:
        return None
    first = turn.question.words_at == "start"
    line = min(said, key=lambda e: e.start) if first else max(said, key=lambda e: e.end)
    return ("It opens with: " if first else "It closes with: ") + " ".join(sentences([line], turn.question)), [line]


# ------------------------------------------------------------------ answers of particular kinds


SIGHTS = ("none", "labels", "embeddings")
"""how much of the pictures the conversation's index sees: nothing beyond their text, a coarse
object classifier's labels and a face count, or image embeddings (SigLIP) that search by description"""


def _looked_at(sight: str) -> str:
    """What was looked through for an answer, as a phrase after "in this video's"."""
    return "speech, on-screen text, sounds or picture labels" if sight == "labels" else "speech, on-screen text or sounds"


def _visual_refusal(turn: Turn, sight: str) -> tuple[str, list[Evidence]]:
    scored = _ranked(turn, named_spans(turn))
    if sight == "labels":
        text = ("I cannot tell: I cannot see what the pictures show beyond a coarse object classifier's label per keyframe "
                "and a face count, which say nothing of colours, clothing, actions or what someone holds.")
    else:
        text = ("I cannot tell: I cannot see what the pictures show. This profile reads only the speech, "
                "the text on screen and the sounds of the video, and none of them says it.")
    close = [s.evidence for s in scored[:1] if s.share >= 0.5] or _label_of_subject(turn, scored)
    if close:
        text += " The closest thing they hold: " + " ".join(sentences(close, turn.question))
    return text, close


def _label_of_subject(turn: Turn, scored: list[Scored]) -> list[Evidence]:
    """The best-ranked label on screen (a short line, as a widget or a box is named) that holds a word of
    what the question is about: "what colour is the box for the laptop?" cannot be told, but the box
    labelled "Laptop" can be pointed at, so the user sees where to look."""
    subject = set(tokenize(" ".join(turn.question.subject)))
    return [s.evidence for s in scored if s.evidence.modality == "ocr" and names(s.evidence, subject)][:1]


def _named_file(turn: Turn) -> str:
    """How the video's file is named, as words ("harbour_lights_trailer-final.mp4": "harbour lights trailer final"): a
    person names a file for what it holds, and the overview says so when the video shows no title."""
    if not turn.video_name:
        return ""
    words = re.sub(r"[\s._-]+", " ", turn.video_name.rsplit(".", 1)[0]).strip()
    return f"; its file is named “{words}”" if words else ""


def _overview(turn: Turn, focus: list[Span] | None) -> tuple[str, list[Evidence]]:
    step = next(iter(turn.called(SUMMARY)[::-1]), None)
    if step is None or step.error or not (step.result or {}).get("summary"):
        scored = _ranked(turn, focus)
        cited = sorted((s.evidence for s in scored[:6]), key=lambda e: e.start)
        if not cited:
            why = f" ({step.error})" if step is not None and step.error else ""
            return f"I found nothing said, shown or heard to summarise{why}.", []
        return "What I found, in order: " + " ".join(sentences(cited, turn.question)), cited
    result = step.result
    where = result.get("timestamp") or ""
    whole = turn.duration and where.startswith("0:00-") and focus is None
    head = f"The whole video ({format_time(turn.duration)}{_named_file(turn)})" if whole else f"The part at {where}"
    return f"{head}, from beginning to end: {result['summary']}", step.evidence


def _names_in(texts: list[str], exclude: set[str]) -> list[str]:
    """Person names written in ``texts`` (a credits card, a list), each once."""
    found = []
    for text in texts:
        for name in person_names(text):
            if name.lower() not in exclude and name not in found:
                found.append(name)
    return found


def _count_names(turn: Turn, focus: list[Span] | None) -> tuple[str, list[Evidence]] | None:
    """How many people a card or list names: the names shown with the line the question points at."""
    q = turn.question
    scored = _ranked(turn, focus)
    shown = [s.evidence for s in scored if s.evidence.modality == "ocr"]
    if not shown:
        return None
    head = shown[0]
    beside = [e for e in turn.evidence() if e.modality == "ocr" and e.start < head.end and e.end > head.start]
    heading = set(tokenize(head.text)) | set(tokenize(" ".join(q.quoted)))
    names = _names_in([e.text for e in beside if not set(tokenize(e.text)) <= heading], {w.lower() for w in q.quoted})
    if not names:
        return None
    cited = [head] + [e for e in beside if e is not head and any(n in e.text for n in names)]
    return f"{len(names)} people are named there ({', '.join(names)}). " + " ".join(sentences(cited[:LISTED], turn.question)), cited[:LISTED]


def _count_parts(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """How many parts the video has, as its on-screen titles mark them, each with its first title
    line; it says so when only part of it was read (see ``whole_read``)."""
    parts = parts_shown(turn)
    if not parts:
        return None
    shown = [e for e in turn.evidence() if e.modality == "ocr" and e.source != SEARCH]
    lines = [[e for e in shown if a - 0.5 <= e.start < b] for a, b in parts]  # each part's on-screen lines
    whole = whole_read(turn.duration)
    where = f" in its first {format_time(whole[1])}" if whole and whole[1] < (turn.duration or 0.0) else ""
    if turn.question.compare and (compared := _compare_parts(turn.question.compare, parts, lines, boxes_of(lines_read(turn)))):
        return compared
    if (kept := _parts_with(turn.question, lines)) is not None:  # "how many of the readings come from LibriVox?"
        words, matching = kept
        listed = "; ".join(f"{format_range(e.start, e.end)} “{e.text}”" for e in matching)
        return (f"{len(matching)} of the video's {len(parts)} parts{where} (as its on-screen titles mark them) {'shows' if len(matching) == 1 else 'show'} “{words}”: "
                f"{listed}."), matching
    boxes = boxes_of(lines_read(turn))
    titles = [_title_of(part, boxes) for part in lines if part]
    listed = "; ".join(f"{format_range(e.start, e.end)} “{e.text}”" for e in titles) if titles else ", ".join(format_range(a, b) for a, b in parts)
    return (f"The video has {len(parts)} part{'s' * (len(parts) != 1)}{where}, as its on-screen titles mark them: {listed}."), titles


def _title_of(part: list[Evidence], boxes: dict) -> Evidence:
    """Of a part's on-screen lines, its title: the first line up, and of lines shown together the
    one highest on the frame."""
    return min(part, key=lambda e: (round(e.start), _top(e, boxes)))


def _top(e: Evidence, boxes: dict) -> float:
    """How far down the frame an on-screen line was read (its box's top; unknown: the bottom)."""
    return boxes[e.key()][1] if e.key() in boxes else 1.0


_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


def _compare_parts(most: str, parts: list[Span], lines: list[list[Evidence]], boxes: dict) -> tuple[str, list[Evidence]] | None:
    """The part that is the shortest or longest (from where its titles come on to where they go), or
    the oldest or newest (by the earliest year its on-screen lines give: a work's first publication
    comes before a recording's), with the other parts' figures beside it; None when there is nothing
    to compare (one part, or no year shown for two of them)."""
    if most in ("shortest", "longest"):
        figures = [(b - a, f"{b - a:.0f} s", (a, b)) for a, b in parts]
    else:
        figures = [(min(years), str(min(years)), span) for span, shown in zip(parts, lines)
                   if (years := [int(y) for e in shown for y in _YEAR.findall(e.text)])]
    if len(figures) < 2:
        return None
    pick = min if most in ("shortest", "oldest") else max
    _, said, (a, b) = pick(figures, key=lambda f: f[0])
    shown = next((part for span, part in zip(parts, lines) if span == (a, b)), [])
    title = _title_of(shown, boxes) if shown else None
    dated = next((e for e in shown if said in e.text), title) if most in ("oldest", "newest") else title
    name = f"“{title.text}”" if title else "the part"
    others = ", ".join(f for _, f, span in figures if span != (a, b))
    cited = [e for e in (title, dated) if e is not None][: 1 if dated is title else 2]
    return (f"The {most} of the video's {len(parts)} parts (as its on-screen titles mark them) is {name}, "
            f"{format_range(a, b)}: {said} (the others: {others})."), cited


_NO_FILTER = frozenset(tokenize("video clip film movie whole contain contains include includes have has feature features come comes "
                                "there total altogether different separate distinct many number count"))


def _parts_with(q: Question, lines: list[list[Evidence]]) -> tuple[str, list[Evidence]] | None:
    """For parts counted with a condition ("how many of the readings come from LibriVox?"): the
    condition's words, and for each part whose on-screen ``lines`` hold them all, the line that does.
    None when the question sets no condition, or when no part's lines hold its words (they do not
    pick out parts, then: "how many readings does the video contain?")."""
    wanted = q.focus_tokens - _NO_FILTER - TYPE_WORDS
    if not wanted:
        return None
    matching = []
    for shown in lines:
        held = [e for e in shown if matched(wanted, set(tokenize(e.text))) == wanted]
        if not held and matched(wanted, set().union(*(set(tokenize(e.text)) for e in shown))) == wanted:
            held = shown[:1]  # the words are spread over the part's lines ("Sonnet 1" over "LibriVox recording")
        if held:
            matching.append(held[0])
    if not matching:
        return None
    return " ".join(w for w in q.subject if set(tokenize(w)) & wanted) or " ".join(sorted(wanted)), matching


def _count_quoted(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """How often the words the question quotes are said in what was read ("how many times does
    the passage say 'it was'?"): every occurrence, in the order of the lines."""
    phrase = normalised(turn.question.quoted[0])
    if not phrase:
        return None
    said = [(e, f" {normalised(e.text)} ".count(f" {phrase} ")) for e in _speech_lines(turn)]
    said = [(e, n) for e, n in said if n]
    if not said:
        return f"“{turn.question.quoted[0]}” is never said where I read, as far as its speech goes.", []
    times = sum(n for _, n in said)
    return (f"“{turn.question.quoted[0]}” is said {times} time{'s' * (times != 1)} "
            f"(from {format_time(said[0][0].start)} to {format_time(said[-1][0].end)})."), [e for e, _ in said][:LISTED]


def _count_mentions(turn: Turn) -> tuple[str, list[Evidence]] | None:
    q = turn.question
    if q.quoted:
        return _count_quoted(turn)
    wanted = q.focus_tokens - set(tokenize("times often mentioned mention say said shown appear heard come"))
    if not wanted:
        return None
    lines = [e for e in turn.evidence() if e.source != SEARCH and e.modality in ("speech", "ocr") and matched(wanted, set(tokenize(e.text))) == wanted]
    what = " ".join(w for w in q.subject if set(tokenize(w)) & wanted) or " ".join(sorted(wanted))
    spoken = [e for e in lines if e.modality == "speech"]
    shown = list({e.text: e for e in lines if e.modality == "ocr"}.values())
    if not spoken and not shown:
        return f"“{what}” is never said or shown in this video, as far as its speech and on-screen text go.", []
    parts = []
    if spoken:
        times = sum(max(1, len(re.findall(rf"\b{re.escape(w)}", e.text.lower()))) for e in spoken for w in [what.lower()]) if " " not in what else len(spoken)
        parts.append(f"“{what}” is said {times} time{'s' * (times != 1)} (at {', '.join(format_time(e.start) for e in spoken)})")
    if shown:
        parts.append(f"shown on screen in {len(shown)} place{'s' * (len(shown) != 1)} (from {', '.join(format_time(e.start) for e in shown)})")
    return "; ".join(parts) + ".", (spoken + shown)[:LISTED]


def _speech_lines(turn: Turn) -> list[Evidence]:
    return sorted((e for e in turn.evidence() if e.modality == "speech" and e.source != SEARCH), key=lambda e: e.start)


def _after_quote(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """What is said right after (or before) words the question quotes."""
    q = turn.question
    lines = sorted({e.text: e for e in turn.evidence() if e.modality == "speech"}.values(), key=lambda e: e.start)
    best = max(((quote_share(quote, e.text), i, quote) for i, e in enumerate(lines) for quote in q.quoted), default=None)
    if best is None or best[0] < 0.6:
        return None
    _, i, quote = best
    line = lines[i]
    if q.relation == "before":
        text = line.text.lower().split(quote.lower())[0].strip(" ,;.") if quote.lower() in line.text.lower() else ""
        cited = [lines[i - 1]] if not text and i > 0 else [line]
        return f"Right before “{quote}”: " + " ".join(sentences(cited, turn.question)), cited
    lower = line.text.lower()
    rest = line.text[lower.index(quote.lower()) + len(quote):].strip(" ,;:.") if quote.lower() in lower else ""
    cited = [line]
    if len(rest.split()) < 4 and i + 1 < len(lines):
        cited.append(lines[i + 1])
    lead = f"Right after “{quote}” comes “{rest}”" + ("" if len(cited) == 1 else f", then “{lines[i + 1].text}”") if rest else \
        f"Right after “{quote}” comes “{lines[i + 1].text}”" if i + 1 < len(lines) else f"“{quote}” ends what is said"
    return f"{lead}. " + " ".join(sentences(cited, turn.question)), cited


def _changed_beside(e: Evidence, evidence: list[Evidence]) -> Evidence | None:
    """The on-screen line ``e`` (as a range reader read it) over the first time what is beside it
    changed and held, if it did."""
    same = [o for o in evidence if o.modality == "ocr" and o.source != SEARCH and o.text == e.text and o.changes
            and o.start <= e.end and o.end >= e.start]
    if e.changes:
        same.insert(0, e)
    if not same:
        return None
    start, end = min((c for o in same for c in o.changes), key=lambda c: c[0])
    return same[0].model_copy(update={"start": start, "end": end, "changes": []})


ROW_LABELS = 4
"""the best-ranked on-screen lines whose rows are looked at for a change"""


def _first_change(turn: Turn, scored: list[Scored]) -> tuple[float, Evidence, Evidence | None] | None:
    """The first change of one of the best-ranked on-screen lines that hold a word of the question,
    the best-ranked first, as ``(moment, line, value)``: what is beside the line changed and held (a
    box ticked; the line is given over the change, and the value is None), or a short value on its
    row came or went (``layout.row_change``). A line that changed says more of "when do they tick
    X?" than a better ranked one that only came up. None when the best line is itself such a value:
    when it came up is the answer."""
    shown = [e for e in turn.evidence() if e.modality == "ocr" and e.source != SEARCH]
    boxes = boxes_of(lines_read(turn))
    best = scored[0].evidence
    labels = [s.evidence for s in scored if s.share > 0 and s.evidence.modality == "ocr"][:ROW_LABELS]
    for label in labels:
        # a box ticked beside a lesser line is no answer to when something closes or ends: that is
        # the best line's own going
        beside = label is best or turn.question.moment_edge == "start"
        if beside and (changed := _changed_beside(label, turn.evidence())) is not None:
            return changed.start, changed, None
        read = [e for e in shown if e.text == label.text and e.key() in boxes] or [label]  # a search's line has no box
        changes = [(change[0], line, change[1]) for line in read if (change := row_change(line, shown, boxes)) is not None]
        if changes:
            found = min(changes, key=lambda f: f[0])
            return None if found[2].text == best.text else found
    return None


def _first_appearance(e: Evidence, evidence: list[Evidence]) -> float:
    """When the text of ``e`` first appeared, in the run of lines holding the same words around it."""
    words = set(tokenize(e.text))
    same = sorted((o for o in evidence if o.modality == e.modality and o.source != SEARCH and set(tokenize(o.text)) == words),
                  key=lambda o: o.start)  # a search's line carries its whole segment's times, not the line's
    if e.source == SEARCH and same:
        e = min(same, key=lambda o: abs(o.start - e.start))
    start = e.start
    for o in reversed([o for o in same if o.start <= e.start]):
        if o.end >= start - 1.5:
            start = min(start, o.start)
    return start


CREDITS_GAP = 4.0  # seconds without text on screen that end a run of credits


def _credits_run(turn: Turn, focus: list[Span] | None) -> list[Evidence]:
    """The credits: the run of on-screen text, without a gap, that ends last in the part read (the
    closing part of the video) or, for opening credits, begins first; its lines in order."""
    shown = sorted((e for e in turn.evidence() if e.modality == "ocr" and e.source != SEARCH
                    and (not focus or any(e.start < b and e.end > a for a, b in focus))), key=lambda e: e.start)
    if not shown:
        return []
    around = shown[0].start if turn.question.position == "start" else max(e.end for e in shown)
    first, last = contiguous([(e.start, e.end) for e in shown], around, gap=CREDITS_GAP)
    return [e for e in shown if first <= e.start and e.end <= last]


AFTER_CREDITS = 2.0  # seconds the video must go on after its credits to have something after them


def _after_credits(turn: Turn, focus: list[Span] | None) -> tuple[str, list[Evidence]] | None:
    """"Is there a scene after the credits? When does it start?": where the credits end, and how
    long the video goes on after them; what happens there is in the pictures, which are not read."""
    run = _credits_run(turn, focus)
    if not run or not turn.duration:
        return None
    last = max(run, key=lambda e: e.end)
    left = turn.duration - last.end
    if left < AFTER_CREDITS:
        return (f"No: the credits run to the end of the video ({format_time(last.end)} of {format_time(turn.duration)})."), [last]
    after = [e for e in turn.evidence() if e.start >= last.end and e.modality in ("speech", "ocr") and e.source != SEARCH]
    told = (f"{'Yes, the video goes on after them: t' if turn.question.wh == 'yesno' else 'T'}he credits end at {format_time(last.end)}, "
            f"and {left:.0f} s more follow, from {format_time(last.end)} to {format_time(turn.duration)}.")
    if not after:
        told += " Nothing is said or written there; what happens in the pictures is not seen here."
    return told, [last, *after[:2]]


_CREDITS_WORDS = frozenset(tokenize("credits credit end opening closing start begin roll rolling name names come appear"))


def _moment(turn: Turn, focus: list[Span] | None, scored: list[Scored]) -> tuple[str, list[Evidence]] | None:
    """When the thing asked about happens: the start (or end) of the line that best names it; for
    "when does it start?" the moment the previous answer cited; for a named part with nothing
    matching, the first thing said or shown in it (for its end, where the last one stops)."""
    q = turn.question
    # "that credit" in "when does that credit appear?" names what the previous answer was, not something new
    known = set(tokenize(" ".join([*q.carried, q.pointed or ""])))
    own = [w for w in q.focus_tokens if w not in known]
    if (q.refers_back or q.follow_up) and not own and turn.previous_evidence:
        lead = turn.previous_evidence[0]
        moment = lead.start if q.moment_edge == "start" else lead.end
        return f"At {format_time(moment)}. " + " ".join(sentences([lead], turn.question)), [lead]
    if q.credits and not q.focus_tokens - _CREDITS_WORDS and not q.quoted and (run := _credits_run(turn, focus)):  # not "when does the composer's name come up in the credits?"
        if q.moment_edge == "end":  # "when do the credits finish?": where the last of them leaves the screen
            last = max(run, key=lambda e: e.end)
            return f"At {format_time(last.end)}. " + " ".join(sentences([last], turn.question)), [last]
        return f"At {format_time(run[0].start)}. " + " ".join(sentences(run[:2], turn.question)), run[:2]
    if scored and scored[0].share >= 0.3:
        best = scored[0].evidence
        if has_type(beyond_question(best.text, q), "time") and q.answer_type in ("when", "time"):
            return None  # the line states a time of its own ("First shift: 06:45"): quote it
        if not q.appearing and (change := _first_change(turn, scored)):
            moment, changed, value = change
            if value is None:
                # "when is 'Mirror displays' ticked?": not when the label came up, but when its box changed
                return (f"At {format_time(changed.start)}: what is beside “{changed.text}” on screen changed then and stayed changed "
                        "(a box ticked or a switch turned, as far as the picture shows). " + " ".join(sentences([changed], turn.question))), [changed]
            # "when does the Acer monitor get switched on?": when the "OFF" on its row went away
            went = "came up" if value.start == moment else "went away"
            return (f"At {format_time(moment)}: on the row of “{changed.text}”, “{value.text}” {went} then (a setting changed, "
                    "as far as the text on screen shows). " + " ".join(sentences([changed, value], turn.question))), [changed, value]
        moment = _first_appearance(best, turn.evidence()) if q.moment_edge == "start" else best.end
        return f"At {format_time(moment)}. " + " ".join(sentences([best], turn.question)), [best]
    if focus:
        inside = sorted((e for e in turn.evidence() if e.source != SEARCH and any(e.start < b and e.end > a for a, b in focus)
                         and e.modality in ("speech", "ocr")), key=lambda e: e.start)
        if inside and q.moment_edge == "end":  # "when does the poem end?": where the last thing said or shown in it stops
            last = max(inside, key=lambda e: e.end)
            end = min(last.end, max(b for _, b in focus))
            return f"At {format_time(end)}. " + " ".join(sentences([last], turn.question)), [last]
        if inside:
            first = inside[0]
            return f"At {format_time(first.start)}. " + " ".join(sentences([first], turn.question)), [first]
    return None


QUOTE_WHOLE = 0.9
"""how much of a quoted phrase a line must hold to be one of the lines that say it"""
SURE_LABEL = 0.5
"""the tagger's confidence from which a label is told as a sound of the video when all its sounds are asked for"""
SOUNDS_LISTED = 8


def _sounds_heard(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """"What sounds can you hear in this video?": each sound once, in time order. The tagger's surer
    labels and the acoustics' longer tonal sounds and bursts that overlap are one sound, told by its
    labels with what the acoustics measured; a label heard again is counted, not repeated."""
    heard = sorted((e for e in turn.evidence() if e.modality == "audio" and e.source != SEARCH and sound_kind(e) not in ("silence", "speech")
                    and ((e.score or 0.0) >= SURE_LABEL if named_sound(e) else sound_kind(e) == "burst" or e.end - e.start >= LASTING_SOUND
                         and (sound_kind(e) != "sound" or "tonal" in e.text))),
                   key=lambda e: e.start)
    clusters: list[list[Evidence]] = []
    for e in heard:
        if clusters and e.start <= max(x.end for x in clusters[-1]) + 0.5:
            clusters[-1].append(e)
        else:
            clusters.append([e])
    sounds: dict[str, tuple[str, list[str], Evidence]] = {}  # a sound's lead label -> (its words, when heard, the line cited)
    for cluster in clusters:
        labels = list(dict.fromkeys(e.text for e in sorted(cluster, key=lambda e: -(e.score or 0.0)) if named_sound(e)))
        measured = list(dict.fromkeys(e.text.split(":", 1)[-1].strip() for e in cluster if not named_sound(e)))
        # the acoustics' guess says as much as another label ("a squeak, creak …" beside "Crying")
        words = f"{', '.join(labels[:3])} ({measured[0]})" if labels and measured else ", ".join(labels[:3]) or measured[0]
        when = format_range(min(e.start for e in cluster), max(e.end for e in cluster))
        lead = max(cluster, key=lambda e: (named_sound(e), e.score or 0.0))
        sounds.setdefault(labels[0] if labels else words, (words, [], lead))[1].append(when)
    if not sounds:
        return None
    lines = []
    for words, times, _ in list(sounds.values())[:SOUNDS_LISTED]:
        more = f" and {len(times) - 1} more time{'s' * (len(times) > 2)}" if len(times) > 1 else ""
        lines.append(f"{times[0]}{more}: {words}")
    return "Heard besides speech: " + "; ".join(lines) + ".", [lead for _, _, lead in list(sounds.values())[:SOUNDS_LISTED]]


_WEEKDAYS = {"mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday", "fri": "Friday", "sat": "Saturday", "sun": "Sunday"}
_WEEKDAY = re.compile(r"(?<![A-Za-z])(Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?:day|sday|s|nesday|rsday|rs|r|urday)?\.?(?![A-Za-z])", re.I)


def _weekday(cited: list[Evidence]) -> str | None:
    """The day of the week the cited lines show, in full ("Wed18:38": Wednesday); capitalised as a
    clock writes it, so the word "sat" is no Saturday."""
    for e in cited:
        for m in _WEEKDAY.finditer(e.text):
            if m[0][0].isupper():
                day = _WEEKDAYS[m[1].lower()]
                return None if day.lower() in e.text.lower() else day  # "Offer ends: Sunday" says it whole already
    return None


def _which_first(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """"Which comes first, the bell or the creak?", "is the speech before or after the poem?", "does
    the bell ring before the reading?": both things found, put in order by where each begins, each
    cited by the line that names it there."""
    q = turn.question
    found = [(name, span) for name in q.first_of or () if (span := part_of(turn, name)) is not None]
    if len(found) < 2:
        return None
    cited = []
    for name, (start, end) in found:
        words = set(tokenize(name))
        inside = [e for e in turn.evidence() if e.start < end and e.end > start]
        naming = [e for e in inside if matched(words, set(tokenize(e.text)))]
        cited += (naming or inside)[:1]
    (a, span_a), (b, span_b) = found
    first, then = ((a, span_a), (b, span_b)) if span_a[0] <= span_b[0] else ((b, span_b), (a, span_a))
    told = f"{first[0][:1].upper()}{first[0][1:]} comes first, at {format_range(*first[1])}; {then[0]} follows, at {format_range(*then[1])}."
    a_first = first[0] == a
    if re.search(r"\bbefore or after\b|\bafter or before\b", q.text, re.I):
        told = ("Before. " if a_first else "After. ") + told
    elif q.wh == "yesno":
        told = ("Yes. " if a_first else "No. ") + told
    return told, cited


def _role_of(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """"What was Ada Brook's job?": each on-screen line that holds the name the question gives, with
    what labels it (the heading it is listed under, or the role written beside it)."""
    q = turn.question
    # the person's name, not every capitalised word ("Nathan Vegdahl's job on the Peach Open Movie Team card")
    people = person_names(q.text)
    names = [set(tokenize(people[0]))] if people else names_in_question(q, q.tokens) or ([set(tokenize(who))] if (who := person_referred(turn)) else [])
    if not names:
        return None
    shown = [e for e in turn.evidence() if e.modality == "ocr" and e.source != SEARCH]
    labels = labelled(shown, boxes_of(lines_read(turn)))
    name = set().union(*names)
    before = turn.previous_evidence if q.excludes_previous else []
    found: dict[str, Evidence] = {}  # by the role: one credited on several frames is said once
    for e in sorted(shown, key=lambda e: e.start):
        cited = any(normalised(b.text) == normalised(e.text) and b.start < e.end and e.start < b.end for b in before)
        if e.key() in labels and matched(name, set(tokenize(e.text))) == name and not cited:  # "what ELSE is he credited with?"
            found.setdefault(label_text(labels, e), e)
    if not found:
        return None
    listed = list(found.items())[:ROLES_LISTED]
    said = [f"{sentences([e], q)[0].rstrip('.')}, credited as “{role}”." for role, e in listed]
    return " ".join(said), [x for _, e in listed for x in (e, *labels[e.key()])]


ROLES_LISTED = 6
"""roles quoted for one person ("what was Ada Brook's job?")"""


def _too_few_parts(q: Question, parts: list[Span]) -> str:
    """For "the fifth reading" in a video whose on-screen titles mark fewer parts."""
    found = ", ".join(format_range(a, b) for a, b in parts) or "none"
    return (f"I could not find part {q.ordinal} of the video: its on-screen titles mark {len(parts)} "
            f"part{'s' if len(parts) != 1 else ''} ({found}), so there is no such part to answer from.")


def _part_length(turn: Turn, focus: list[Span]) -> tuple[str, list[Evidence]] | None:
    """"How long is the Kennedy clip?": the length of the part the question names, from where it
    starts to where it ends, when the question asks nothing else of it."""
    q = turn.question
    pointed = q.follow_up and q.pronoun and not q.scope and not q.tokens  # "how long does it last?" after naming a part
    if q.answer_type != "duration" or not (q.scope or pointed) or q.relation or q.names_silence or "audio" in q.wants or q.tokens - q.scope_tokens:
        return None
    start, end = focus[0][0], max(b for _, b in focus)
    # cited: what marks the whole part (its title card) before a line inside it
    shown = sorted((e for e in turn.evidence() if e.source != SEARCH and e.start < end and e.end > start),
                   key=lambda e: -(min(e.end, end) - max(e.start, start)))
    seconds = end - start
    length = f"{seconds:.0f} s" if seconds < 90 else f"{int(seconds // 60)} min {seconds % 60:.0f} s"
    return f"{f'The {q.scope}' if q.scope else 'It'} runs from {format_time(start)} to {format_time(end)}: about {length}.", shown[:1]


def _how_long_heard_or_shown(turn: Turn, cited: list[Evidence]) -> str | None:
    """"How long does the bell ring?": how long the sound the answer cites is heard, from the first to
    the last moment of it and of the sounds heard with it (the tagger's label and the tone measured
    beside it are one sound); "how long is the title shown?": how long the line cited is on screen."""
    q = turn.question
    if q.answer_type == "duration" and q.wants == {"ocr"} and cited and cited[0].modality == "ocr" \
            and not has_type(beyond_question(cited[0].text, q), "duration"):
        # "how long is the film's title shown?": how long the line stays on screen (not a length it states)
        shown = cited[0]
        seconds = shown.end - shown.start
        return f"It is on screen from {format_time(shown.start)} to {format_time(shown.end)}: about {seconds:.0f} s."
    if q.answer_type != "duration" or "audio" not in q.wants or q.names_silence or not cited or cited[0].modality != "audio":
        return None
    best = cited[0]
    with_it = [e for e in turn.evidence() if e.modality == "audio" and sound_kind(e) != "silence" and "speech" not in sound_kind(e)
               and e.start < best.end and e.end > best.start]
    start, end = min(e.start for e in [best, *with_it]), max(e.end for e in [best, *with_it])
    seconds = end - start  # a sound's edges are known to half a second: whole seconds, but for the briefest
    return f"It is heard from {format_time(start)} to {format_time(end)}: about {seconds:.{1 if seconds < 2 else 0}f} s."


def _nothing_said(turn: Turn) -> str | None:
    """For a question about what is said: that nothing is, when no speech was found anywhere read."""
    q = turn.question
    if "speech" not in q.wants or q.wants & {"ocr", "audio"} or q.quoted:
        return None
    read = ranges_read(turn, (SPEECH,))
    if not read.get(SPEECH) or _speech_lines(turn) or any(e.modality == "speech" for e in turn.evidence()):
        return None
    silent = not any((s.result or {}).get("audio_track", True) for s in turn.called(SPEECH))
    shown = any(e.modality == "ocr" for e in turn.evidence()) and said_only_by_verb(q.text)
    if (silent or shown) and not set(tokenize(" ".join(q.keywords))) & VOICE_TOKENS:
        return None  # "what do the tooltips say?" where nobody speaks and no voice is asked about: what they say is written
    notes = [s.result.get("note") for s in turn.called(SPEECH) if s.result and s.result.get("note")]
    why = f" ({notes[0]})" if notes else ""
    return f"Nothing is said there: I found no speech in this video where the question points{why}, so there are no words to report."


def _no_speech_anywhere(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """"Is there any dialogue, or is it just music?": no, when the whole video was read for speech
    and held none; what is heard instead, if the question asks about it too."""
    q = turn.question
    if q.wh != "yesno" or "speech" not in q.wants or not turn.duration or _speech_lines(turn):
        return None
    read = whole_reads(turn, SPEECH)
    if not read or not any(r.get("audio_track", True) for r in read):
        return None  # not read whole, or no audio track (said as such below)
    heard = sorted((e for e in turn.evidence() if e.modality == "audio" and e.source != SEARCH and named_sound(e)),
                   key=lambda e: -(e.score or 0.0))[:2]
    instead = f" What is heard instead is sound and music: {' '.join(sentences(heard, q))}" if heard else ""
    return f"No: nobody speaks anywhere in this video (no speech was found from start to end).{instead}", heard


def _sound_or_silence(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """"Is anything playing under the credits, or is it silent?" (or "what do you hear over the
    credits, is it silent?"): what was heard, when a named sound was in the stretch listened to (over
    the credits, while they are on screen); only silence, when only silence was."""
    q = turn.question
    if q.wh not in ("yesno", "what") or "audio" not in q.wants or not q.names_silence:
        return None
    heard = [e for e in turn.evidence() if e.modality == "audio" and e.source != SEARCH]
    if q.credits and (run := _credits_run(turn, named_spans(turn) or None)):
        shown = (run[0].start, max(e.end for e in run))
        heard = [e for e in heard if e.start < shown[1] and e.end > shown[0]]
    if not heard:
        return None
    named = sorted((e for e in heard if named_sound(e) and sound_kind(e) not in ("silence", "speech")), key=lambda e: -(e.score or 0.0))
    if named:
        told = "Yes, it is not silent: " if q.wh == "yesno" else "It is not silent: "
        return told + " ".join(sentences(sorted(named[:2], key=lambda e: e.start), q)), named[:2]
    hushed = [e for e in heard if sound_kind(e) == "silence"]
    return ("No: only silence is heard there. " + " ".join(sentences(hushed[:1], q))).strip(), hushed[:1]


def _nothing_heard(turn: Turn) -> str | None:
    """For a question about sounds: that the video has no audio track, when the sound tool said so,
    rather than some text that shares a word with the question. Speech asked for with the sounds
    ("any sound at all, like narration or music?") is no more there than they are."""
    q = turn.question
    if "audio" not in q.wants or "ocr" in q.wants:
        return None
    listened = [s.result for s in turn.called(AUDIO) if s.result]
    if not listened or any(r.get("audio_track", True) for r in listened):
        return None
    answer = "Nothing can be heard: the video has no audio track, so it has no sound, music or speech to report."
    return f"No. {answer}" if q.wh == "yesno" else answer


def _named_before(turn: Turn, line: Evidence) -> Evidence | None:
    """The last line said up to ``NAME_CARRIES_S`` before a spoken ``line`` that names a person: who
    the "he" or "she" of ``line`` most likely is."""
    if line.modality != "speech":
        return None
    said = [e for e in turn.evidence() if e.modality == "speech" and e.source != SEARCH
            and line.start - NAME_CARRIES_S <= e.start < line.start and person_names(e.text)]
    return max(said, key=lambda e: e.start, default=None)


def _named_person(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """For a "who"/"whose" question none of whose words the video holds: the person it names most
    (longest on screen, or most often said), said as what it is, not as a match for the words."""
    q = turn.question
    if q.answer_type != "person" or q.role:
        return None
    asked = {w.lower() for w in q.keywords}
    presence: dict[str, float] = {}
    where: dict[str, Evidence] = {}
    for e in turn.evidence():
        for name in _names_in([e.text], asked):
            presence[name] = presence.get(name, 0.0) + max(0.5, e.end - e.start)
            where.setdefault(name, e)
    if not presence:
        return None
    name = max(presence, key=presence.get)
    e = where[name]
    spans = [o for o in turn.evidence() if name in o.text]
    first, last = min(o.start for o in spans), max(o.end for o in spans)
    how = "shown on screen" if e.modality == "ocr" else "named"
    return (f"The person this video names is {name} ({how} from {format_time(first)} to {format_time(last)}); nothing in it "
            f"ties a person to “{' '.join(q.subject)}” more directly. " + " ".join(sentences([e], q))), [e]


def _role_missing(turn: Turn, cited: list[Evidence]) -> str | None:
    """For "who is the narrator?": that the video never names one, when no line found names that role."""
    q = turn.question
    if q.role is None:
        return None
    cues = _ROLE_WORDS.get(q.role, (q.role,))
    everything = " ".join(e.text.lower() for e in turn.evidence())
    if any(cue in everything for cue in cues):
        return None
    named = _names_in([e.text for e in cited], set())
    beside = f" It names {', '.join(named)}, but not as the {q.role}." if named else ""
    return f"The video does not say who the {q.role} is: nothing said or shown in it names a {q.role}.{beside}"


def _names_not_found(turn: Turn) -> list[str]:
    """The question's names (words WordNet does not list in lower case: "Gettysburg", "HDMI") that
    nothing read holds: a yes/no question about one of them is answered no."""
    from ....qa.language import parse

    seen = set().union(*(set(tokenize(e.text)) for e in turn.evidence()))
    asked = {w.lower() for w in turn.question.keywords}
    names = dict.fromkeys(t.text for t in parse(turn.question.text)  # nouns only: "anyone" is no name either
                          if t.pos_ in ("PROPN", "NOUN") and t.lower_ in asked and is_name_word(t.text) and tokenize(t.text))
    return [w for w in names if not matched(set(tokenize(w)), seen)]


def _missing(turn: Turn, cited: list[Evidence], wanted: set[str], focus: list[Span] | None) -> list[str]:
    """The question's words that nothing found supports, when that means the video does not answer
    it: most of its words appear nowhere in what the tools returned, or the kind of answer asked for
    (a price, a name, a time) is in none of the lines and some of its words appear nowhere. Empty
    when the question names a moment or refers back (what is there is the answer) or computes."""
    q = turn.question
    if q.asks_title:
        wanted = wanted - TITLE_TOKENS  # "the title of the last reading": a title is a kind of line, no word in it
    if not wanted or q.time_range or q.relation or q.follow_up or q.operation or q.between or q.quoted:
        return []
    if q.moment is not None and "audio" in q.wants and not named_sounds(q.text):
        return []  # "what's that sound at about 0:58, when the screen is blank?": the moment says where; what is heard there answers
    if q.asks_a_question and any(e.text.rstrip().endswith("?") for e in cited):
        return []  # "what does the dialog ask?": the question it shows is the answer, whatever its words
    if q.asks_character and any(says_what_someone_is(e.text) for e in cited):
        return []  # "is that guy a bad person?": a line saying what he is answers, in whatever words
    seen: set[str] = set()
    boxes = boxes_of(lines_read(turn))
    popups = popped_up(turn.evidence(), turn.duration) if q.names_popup else set()  # only a question about a pop-up looks for one
    for e in turn.evidence():
        if not focus or any(e.start < b and e.end > a for a, b in focus):
            seen |= set(tokenize(e.text)) | implied_words(q, e, boxes, popups=popups)  # "the clock in the top bar", "the pop-up's buttons"
    missing = wanted - matched(wanted, seen)
    # "which town ...": a place known by name, not any capitalised word; "where was it mixed?" may be a studio's
    geographic = q.answer_type == "place" and bool(q.asked_for) and q.asked_for in place_kind_words()
    typed = q.answer_type is not None and any(names_place(beyond_question(e.text, q)) if geographic else has_type(beyond_question(e.text, q), q.answer_type)
                                              for e in cited)
    untyped = (q.answer_type in ("money", "percent", "date", "url", "person") or geographic) and cited and not typed
    # inside a part the question names, a line that holds any of its words (or the kind of answer) may answer
    if focus:
        lost = missing == wanted and not typed
    elif typed and q.answer_type != "entity":  # the kind of answer asked for is there, beside some of the words
        lost = missing == wanted
    else:
        lost = len(missing) * 2 > len(wanted)
    asked = set(tokenize(q.asked_for or ""))
    if asked and any(asked <= set(tokenize(e.text)) and tokenize(beyond_question(e.text, q)) for e in cited):
        return []  # "under what licence ...": a line about the licence, saying more than the question, answers
    labels = labelled(turn.evidence(), boxes_of(lines_read(turn)))
    if any(matched(wanted | asked, set(tokenize(label_text(labels, e)))) and tokenize(beyond_question(e.text, q)) for e in cited):
        return []  # a value under or beside a label the question names ("Orientation:" | "Landscape")
    if any(names_field(q, e) for e in cited):
        return []  # or after it ("Note: may limit resolution options")
    if lost or (untyped and missing):
        return [w for w in q.subject if set(tokenize(w)) & missing] or sorted(missing)
    return []


def _calculated(step: Step) -> tuple[str, str] | None:
    """``(value, expression)`` of a calculator step."""
    result = step.result or {}
    expression = str(result.get("expression") or step.args.get("expression", ""))
    if "text" in result:
        return str(result["text"]), expression
    value = result.get("result")
    return (str(value), expression) if value is not None else None


def _recalled(turn: Turn) -> list[str]:
    """Notes of this conversation that share most of the question's words."""
    found = []
    for step in turn.called(MEMORY):
        for note in (step.result or {}).get("notes") or []:
            if len(matched(turn.question.tokens, set(tokenize(note["text"])))) >= max(1, len(turn.question.tokens) / 2):
                found.append(note["text"])
    return list(dict.fromkeys(found))


def _first_or_last(turn: Turn, focus: list[Span] | None) -> tuple[str, list[Evidence]] | None:
    """"What happens first?", "what does the user do at the end?": what is said or comes on screen
    first (or last) in the part read, leaving out what stays on screen throughout (a clock, a
    name in the top bar) and stray signs."""
    first = turn.question.sequence == "first"
    lines = [e for e in turn.evidence() if e.source != SEARCH and e.modality in ("speech", "ocr")
             and (not focus or any(e.start < b and e.end > a for a, b in focus))
             and not on_throughout(e, turn.duration) and not stray_sign(e.text)]
    if not lines:
        return None
    edge = min(e.start for e in lines) if first else max(e.start for e in lines)
    boxes = boxes_of(lines_read(turn))
    at = sorted((e for e in lines if abs(e.start - edge) <= SAME_MOMENT),  # lines shown together: top to bottom
                key=lambda e: (round(e.start), e.modality, _top(e, boxes)))[:3]
    return f"{'First' if first else 'Last'}, at {format_time(edge)}: " + " ".join(sentences(at, turn.question)), at


SAME_MOMENT = 1.0
"""seconds apart that lines still come on together, for what happens first or last"""


def _listing(turn: Turn, span: Span, scored: list[Scored]) -> list[Evidence]:
    """Everything of the asked kind inside the stretch a question names, in time order."""
    start, end = span
    inside = [s.evidence for s in scored if s.evidence.source != SEARCH and start <= (s.evidence.start + s.evidence.end) / 2 <= end]
    if not turn.question.names_silence:  # the pauses between sounds are no part of what a stretch holds
        inside = [e for e in inside if not (e.modality == "audio" and sound_kind(e) == "silence" and e.end - e.start < PAUSE_LISTED)] or inside
    return sorted(inside, key=lambda e: (e.start, e.modality))[:LISTED]


PAUSE_LISTED = 2.0
"""seconds of silence from which a stretch's listing names it"""


def _near(e: Evidence, moment: float) -> bool:
    """Whether ``e`` is up at ``moment`` or came up near it: a best match elsewhere is not what a
    question pointing at that moment asks about."""
    return e.start - CAME_UP_NEAR <= moment < e.end + CAME_UP_NEAR


def _says_more(scored: list[Scored], q) -> bool:
    """Whether the best line says something beyond the question's words: "Laptop" for "the tooltip
    over the laptop box" names what is pointed at, not what is asked."""
    return bool(scored) and bool(tokenize(beyond_question(scored[0].evidence.text, q)))


def _subject_held(turn: Turn) -> bool:
    """Whether a line read this turn holds a word of what the question is about: "the tooltip around
    0:16" names nothing the video holds, so what is there at 0:16 answers it."""
    wanted = set(tokenize(" ".join(turn.question.subject)))
    return bool(wanted) and any(matched(wanted, set(tokenize(heard_words(e)))) for e in turn.evidence())


CAME_UP_NEAR = 2.0
"""seconds from a named moment within which a line that came up is what the moment shows ("about 11
seconds in": the tooltip that came up at 12 s)"""


def _at_moment(moment: float, scored: list[Scored]) -> list[Evidence]:
    """What was on screen, said or heard at ``moment``, one line of each kind: first what came up
    near it (nearest first; not text read again), then what was up across it, else the nearest."""

    def order(e: Evidence, lines: list[Evidence]) -> tuple:
        if abs(e.start - moment) <= CAME_UP_NEAR and not _read_again(e, lines):
            return (0, abs(e.start - moment))
        if e.start <= moment < e.end:
            return (1, moment - e.start)
        return (2, min(abs(e.start - moment), abs(e.end - moment)))

    chosen = []
    for modality in dict.fromkeys(s.evidence.modality for s in scored):
        lines = [s.evidence for s in scored if s.evidence.modality == modality and s.evidence.source != SEARCH]
        if lines:
            chosen.append(min(lines, key=lambda e: order(e, lines)))
    return chosen


REREAD_SIMILARITY = 0.7
"""how alike two readings of a line must be for the later to be the same text read again"""


def _read_again(e: Evidence, lines: list[Evidence]) -> bool:
    """Whether ``e`` is text already on screen read again ("AcerTechrgies17" just after "Acer
    Technologies17"): a line much like one that went as it came is nothing new there."""
    before = [o for o in lines if o is not e and o.end <= e.start + 0.5 and o.end >= e.start - 1.5]
    return any(SequenceMatcher(None, o.text.lower(), e.text.lower()).ratio() >= REREAD_SIMILARITY for o in before)


def _relative(turn: Turn, scored: list[Scored]) -> list[Evidence]:
    """For "what was said right after that": the first thing after (the last before), not the best match."""
    q = turn.question
    read = [span for spans in ranges_read(turn).values() for span in spans]
    if not read or "audio" in q.wants or q.quoted:
        return []
    if q.relation == "after":
        begin = min(a for a, _ in read)
        after = [s.evidence for s in scored if s.evidence.start >= begin - 0.5]
        return _card(turn, min(after, key=lambda e: e.start), after) if after else []
    until = max(b for _, b in read)
    before = [s.evidence for s in scored if s.evidence.end <= until + 0.5]
    return _card(turn, max(before, key=lambda e: e.end), before) if before else []


SHOWN_TOGETHER = 0.5
"""seconds within which lines that came up and went together were one card"""


def _card(turn: Turn, line: Evidence, lines: list[Evidence]) -> list[Evidence]:
    """``line`` with the on-screen lines that came and went with it (a title card's two lines, "THE
    PEACH OPEN MOVIE PROJECT" over "PRESENTS"), top to bottom."""
    if line.modality != "ocr":
        return [line]
    together = {e.key(): e for e in lines if e.modality == "ocr" and abs(e.start - line.start) <= SHOWN_TOGETHER
                and abs(e.end - line.end) <= SHOWN_TOGETHER}
    together.setdefault(line.key(), line)
    boxes = boxes_of(lines_read(turn))
    return sorted(together.values(), key=lambda e: (boxes[e.key()][1], boxes[e.key()][0]) if e.key() in boxes else (2.0, e.start))


def _placement(turn: Turn) -> tuple[str, list[Evidence]] | None:
    """"Is the Acer one left or right of the laptop?": how the two labels stood on screen, over the part
    the question names (or the whole video), at its end unless it asks for the start or a moment:
    where a box was dragged about, where it ended up is what is asked."""
    q = turn.question
    lines = [Evidence(start=float(x["start"]), end=float(x["end"]), modality="ocr", text=str(x["text"]), box=x.get("box"))
             for x in lines_read(turn)]
    found = placements(lines, q.placed.figure, q.placed.ground)
    spans = named_spans(turn) or []
    found = [p for p in found if any(p.start < end and p.end > start for start, end in spans)] or found
    if not found:
        return None
    if q.moment is not None:
        pick = min(found, key=lambda p: 0.0 if p.start <= q.moment < p.end else min(abs(p.start - q.moment), abs(p.end - q.moment)))
    else:
        pick = found[0] if q.order == "earliest" or q.position == "start" else found[-1]
    text = f"On screen at {format_range(pick.start, pick.end)}, “{pick.figure.text}” is {pick.relation} “{pick.ground.text}”."
    if pick is found[-1] and len(found) > 1:
        text += f" It was moved there: it stood elsewhere until {format_time(pick.start)}."
    return text, [pick.figure, pick.ground]


def declines_sight(turn: Turn, sight: str) -> bool:
    """Whether the answer declines because the question is about what only the pictures show and
    the index does not see them (a colour, an action): a reasoned answer, not a failure to find."""
    return turn.question.visual_only and sight != "embeddings"


def compose_answer(turn: Turn, sight: str = "none") -> tuple[str, list[Evidence]]:
    """The answer to the turn's question and the evidence it cites; ``sight``: one of ``SIGHTS``."""
    offline_visual = sight != "embeddings"
    if (answered := intent_answer(turn)) is not None:
        return answered
    q = turn.question
    if not turn.steps and not q.visual_only:
        offered = ", ".join(sorted(turn.tools)) or "none"
        return f"None of the tools this conversation offers can look up “{' '.join(q.topic) or q.text}” (offered: {offered}).", []
    focus = named_spans(turn) or None
    if q.placed and (placed := _placement(turn)):
        return placed
    if declines_sight(turn, sight):
        return _visual_refusal(turn, sight)
    if q.ordinal and focus is None and len(parts := parts_shown(turn)) < abs(q.ordinal):
        return _too_few_parts(q, parts), []
    if q.overview and q.count != "parts":  # "quick overview: what readings are in this?" lists them
        return _overview(turn, focus)
    if q.sequence and (edge := _first_or_last(turn, focus)):
        return edge
    if q.count == "names" and (counted := _count_names(turn, focus)):
        return counted
    if q.count == "mentions" and (counted := _count_mentions(turn)):
        return counted
    if q.count == "parts" and (counted := _count_parts(turn)):
        return counted
    if silent := _no_speech_anywhere(turn) or _sound_or_silence(turn):
        return silent
    if said := _nothing_said(turn) or _nothing_heard(turn):
        return said, []
    if listens_to_all(q) and (heard := _sounds_heard(turn)):
        return heard
    if q.addressee and (addressed := _addressed(turn, focus)):
        return addressed
    # "it goes 'the age of wisdom...' - how does that line finish?": what follows the quoted words
    if q.quoted and (q.relation or q.words_at == "end") and (continued := _after_quote(turn)):
        return continued
    if q.words_at and focus and (edge := _edge_words(turn, focus)):
        return edge
    if q.first_of and (ordered := _which_first(turn)):
        return ordered
    if focus and (length := _part_length(turn, focus)):
        return length
    if q.role_of and (roles := _role_of(turn)):
        return (f"Yes. {roles[0]}" if q.wh == "yesno" else roles[0]), roles[1]  # "does he show up anywhere else?"
    scored = _ranked(turn, focus)
    if not scored and focus is None and q.answer_type in MEASURED and (standout := standout_span(turn)) is not None:
        # no line holds the question's words, but search found one place by meaning far above the rest:
        # what is there is the answer when it holds the kind asked for ("how long until the offer ends?")
        inside = _ranked(turn, [standout])
        if any(has_type(beyond_question(s.evidence.text, q), q.answer_type) for s in inside[:1]):
            focus, scored = [standout], inside
    if q.credits and q.relation == "after" and names_only_credits(q.relation_to) and (after := _after_credits(turn, focus)):
        return after
    if q.asks_moment and not q.operation and (moment := _moment(turn, focus, scored)):
        return moment
    if q.time_range is not None and q.moment is None and not q.subject and q.operation is None:
        cited = _listing(turn, focus[0] if focus else q.time_range, scored)
    elif q.moment is not None and not (_subject_held(turn) and _says_more(scored, q) and _near(scored[0].evidence, q.moment)) \
            and "audio" not in q.wants:  # sounds: by salience and nearness
        cited = _at_moment(q.moment, scored)
    else:
        # "what was said right after that": the first thing after the last answer; a relation to
        # something this question does not name ("after they hit apply, ...") places nothing
        follows = q.relation and focus and not q.relation_to and (q.follow_up or q.refers_back)
        cited = (_relative(turn, scored) if follows else []) or choose(turn, scored)
    if q.excludes_previous and turn.previous_evidence:
        before = {e.key() for e in turn.previous_evidence} | {(e.modality, e.text) for e in turn.previous_evidence}
        others = [s.evidence for s in scored if s.evidence.key() not in before and (s.evidence.modality, s.evidence.text) not in before]
        cited = others[:3] or cited
    if q.answer_type == "person" and cited and not any(has_type(beyond_question(e.text, q), "person") for e in cited):
        cited = [*filter(None, [_named_before(turn, cited[0])]), *cited]  # "He was rather selfish": who "he" is
    if turn.steps and (missing_role := _role_missing(turn, cited)):
        return missing_role, cited[:1]
    if not cited and (named := _named_person(turn)) is not None:
        return named
    if (cited or not turn.steps) and (missing := _missing(turn, cited, named_by_kind(turn, q.required_tokens), focus)):
        if (named := _named_person(turn)) is not None:
            return named
        closest = f" (the closest match: {' '.join(sentences(cited[:1], turn.question)).rstrip('.')})" if cited else ""
        return (f"The video does not say: I found nothing about “{' '.join(missing)}” in its {_looked_at(sight)}{closest}."), cited[:1]
    parts = []
    calc = [found for s in turn.called(CALC) if (found := _calculated(s))]
    if calc:
        value, expr = calc[-1]
        verb = {"+": "Together that makes", "-": "The difference is", "*": "The product is", "/": "The ratio is", "mean": "The average is",
                "discount": "After the discount it costs"}.get(q.operation or "", "The result is")
        found = [e for _, e in values(turn)]
        unit = currency(found) if q.operation in ("+", "-", "mean", "discount") and q.answer_type == "money" else ""
        parts.append(f"{verb} {unit}{value} ({expr}).")
        cited = found or cited
    if q.moment is not None and not q.subject and cited and not any(e.start <= q.moment < e.end for e in cited):
        parts.append(f"Nothing of that kind at {format_time(q.moment)} itself; the nearest:")
    if q.wh == "yesno" and cited and not calc and not q.asks_character:  # ("is he a bad guy?": what is said of him, no verdict)
        # "is there any sound between X and Y?" answered by the silence found there is a no
        hushed = "audio" in q.wants and not q.names_silence and all(e.modality == "audio" and sound_kind(e) == "silence" for e in cited)
        if not hushed and (absent := _names_not_found(turn)):
            # "does he quote the Gettysburg Address?": a name nothing read holds is a no, whatever else matched
            parts.append(f"No: nothing said or shown in it names “{', '.join(absent)}”. The closest:")
        else:
            parts.append("No, only silence." if hushed else "Yes.")
    if lasting := _how_long_heard_or_shown(turn, cited):
        parts.append(lasting)
    if q.asked_for == "day" and (day := _weekday(cited)):
        parts.append(f"{day}.")  # "Wed18:38" on a clock: say the day whole
    parts.extend(sentences(cited, turn.question))
    if notes := _recalled(turn):
        parts.insert(0, "From your notes: " + "; ".join(f"“{n}”" for n in notes) + ".")
    if not parts:
        errors = [s.error for s in turn.steps if s.error]
        topic = " ".join(q.topic) or q.text
        if not turn.steps:
            offered = ", ".join(sorted(turn.tools)) or "none"
            parts.append(f"None of the tools this conversation offers can look up “{topic}” (offered: {offered}).")
        elif q.wh == "yesno":
            parts.append(f"No: I found nothing about “{topic}” in this video's {_looked_at(sight)}.")
        else:
            typed = [e for e in turn.evidence() if q.answer_type and has_type(e.text, q.answer_type)]
            closest = f" (the closest match: {' '.join(sentences(typed[:1], q)).rstrip('.')})" if typed else ""
            parts.append(f"The video does not say: I could not find anything about “{topic}” in its {_looked_at(sight)}{closest}.")
        if errors:
            parts.append("Some look-ups failed: " + "; ".join(dict.fromkeys(errors)) + ".")
    if offline_visual and "visual" in q.wants and not q.visual_only:
        parts.append("(The pictures were checked only through a coarse object classifier's labels and a face count.)" if sight == "labels"
                     else "(Only the text, speech and sounds were checked: nothing here sees the pictures themselves.)")
    return " ".join(parts), cited
