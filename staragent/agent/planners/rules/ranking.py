"""How well a line the tools found answers the question.

A line scores for the question's words it holds (a rare word among the lines read counts more than
one on every line), for what is shown or said beside it at the same moment (a slide's title above a
figure), for holding the kind of answer asked for beyond the question's own words (a name, an
amount, a date ...), for being where the question looks (inside the part of the video it names), for
where the search ranked it, and for the words the question quotes. A line that only repeats the
question (a heading) loses.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from ....index.text import GLUED, STOPWORDS, tokenize
from ....qa.layout import (
    CHROME,
    LABEL_SECONDS,
    TOGETHER_S,
    Box,
    Motion,
    height,
    is_heading,
    label_text,
    labelled,
    panel_heading,
    place_tokens,
    popped_up,
    superseded,
)
from ....qa.names import NAME, URL, person_names
from ....schema import Evidence
from ....words import (
    EQUIVALENT_WORDS,
    NUMBER_WORDS,
    SCALE_WORDS,
    adjective_synonyms,
    common_words,
    is_name_word,
    names_a_person,
    names_a_sound,
    person_kinds,
    place_kinds,
    place_names,
)
from .question import (
    CHOICE_TOKENS,
    POPUP_TOKENS,
    SOUND_TOKENS,
    URL_WORDS,
    VOICE_TOKENS,
    Question,
    function_words,
)

MONEY = re.compile(r"[$€£¥]\s?\d|\d\s?(?:dollars|euros|pounds|usd|eur|gbp)\b", re.I)
NUMBER = re.compile(r"(?<![\w.])[$€£¥]?\d[\d,]*(?:\.\d+)?%?(?:\s?(?:" + "|".join(SCALE_WORDS) + r")\b)?", re.I)
PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s?(?:%|percent\b)", re.I)
CLOCK_TIME = re.compile(r"\b\d{1,2}[:.]\d{2}\b(?!\s?%)|\b\d{1,2}\s?(?:am|pm)\b", re.I)
_PROPER = re.compile(r"(?<=[a-z,;:]\s)[A-Z][a-z]{2,}|(?<=\s)[A-Z][a-z]+\s+[A-Z][a-z]+")
_DAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:today|tomorrow|yesterday|tonight)\b|"
                  r"\b(?-i:(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun|MON|TUE|WED|THU|FRI|SAT|SUN)\.?,?\s*(?=\d))", re.I)
# an abbreviated day counts capitalised and beside a number only ("Wed 18:38", "Sat, 12"): "sat" and "wed" are words too
_LONE_NAME = re.compile(r"[A-Z][a-z]{2,}(?:[ -][A-Z][a-z]+){0,2}")
YEAR = re.compile(r"\b(?:1[5-9]|20)\d{2}\b")
MONTH_DAY = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?"
                    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b", re.I)
_BARE_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
LABEL = re.compile(r"^\s*([^:]{2,30}):\s*\S")
SALIENT_SOUNDS = {"tone": 0.3, "burst": 0.3, "noise": 0.25, "sound": 0.1, "silence": 0.0}
"""how much each kind the acoustic statistics find says about what was heard"""
NAMED_SOUND = 0.3
"""a sound the audio tagger named ("Church bell") says more than any of those kinds; its confidence adds
up to as much again"""
TYPE_BONUS = 0.6
PANEL_BONUS = 0.5
"""a value in the panel of the item the question names, as much as a value beside the label it names"""
LASTING_SOUND = 1.5
"""seconds: an unnamed tonal fragment shorter than this is too brief for its guessed source to say what it was"""
_GUESS = re.compile(r"\(an? [^)]*\)")


ORGANISATIONS = frozenset({"company", "companies", "firm", "business", "corporation", "organisation", "organization", "studio",
                           "manufacturer", "maker", "brand", "sponsor", "agency", "publisher", "supplier", "vendor"})
"""what "which ..." asks for when it asks for an organisation, which a person's name is not ("label"
is left out: a screen's labels are no firms)"""


_ORGANISATION_ENDING = re.compile(  # the end of a word: "Nordsystems", "Bytesoft", "Harborworks"
    r"(?:systems?|soft|tech|technolog(?:y|ies)|labs?|works|media|studios?|productions?|pictures|films|records|games|networks?|"
    r"electronics|industries|entertainment|interactive|broadcasting|publishing|solutions)$", re.IGNORECASE)
_ORGANISATION_WORD = {"group", "foundation", "institute", "university", "inc", "ltd", "llc", "gmbh", "corp", "corporation", "company",
                      "co", "plc", "bank", "association", "society", "council", "agency"}


def organisation_name(text: str) -> bool:
    """Whether ``text`` names an organisation by the look of its words: a word after the first that
    ends the way firms' names do, or is a word firms put in their names ("Nordlight Systems",
    "Harbor Lane Media Production", "Kestrel Foundation", "Acme Ltd"; one word alone: "Bytesoft")."""
    words = re.findall(r"[A-Za-z]{2,}", text)
    return any(_ORGANISATION_ENDING.search(w) or w.lower() in _ORGANISATION_WORD for w in (words[1:] or words))


def _only_a_person(text: str) -> bool:
    """Whether ``text`` is one person's name and nothing else ("Jonas Ekberg")."""
    names = person_names(text)
    return len(names) == 1 and names[0].strip().lower() == text.strip(" .,:;·").lower() and not organisation_name(text)


def places_named(text: str) -> list[str]:
    """The places known by name that ``text`` names ("Lisbon, Portugal": lisbon, portugal; "Studio
    Nord, Hamburg": hamburg), lower case."""
    words = re.findall(r"[A-Za-z][A-Za-z.'-]*", text)
    places = place_names()
    return [name for n in (1, 2, 3) for i in range(len(words) - n + 1)
            if words[i][0].isupper() and (name := " ".join(words[i:i + n]).lower().rstrip(".")) in places]


def names_place(text: str, kind: str | None = None) -> bool:
    """Whether ``text`` names a place known by name, of ``kind`` when given ("city": Hamburg, not Germany)."""
    return any(kind is None or kind in place_kinds(name) for name in places_named(text))


def lone_name(text: str) -> bool:
    """Whether ``text`` is one name alone, no English word ("Kettlewerk", "Nordlicht" under a credit's heading):
    a studio or a person credited by one name."""
    bare = text.strip(" .,:;·")
    common = common_words()
    word = bare.lower()
    forms = {word, word.removesuffix("s"), word.removesuffix("es"), re.sub(r"ies$", "y", word)}  # "Displays", "Activities"
    return bool(re.fullmatch(r"[A-Z][a-z]{2,}", bare)) and bool(common) and not forms & common


def has_type(text: str, answer_type: str | None) -> bool:
    """Whether ``text`` states something of the kind asked for."""
    text = GLUED.sub(" ", text)  # "14March2025", "Gate7": OCR lost the spaces
    if answer_type == "money":
        return bool(MONEY.search(text))
    if answer_type == "percent":
        return bool(PERCENT.search(text))
    if answer_type in ("number", "duration"):  # "one" is left out: "One more offer" states no number
        return bool(NUMBER.search(text)) or bool(set(re.findall(r"[a-z]+", text.lower())) & (set(NUMBER_WORDS) - {"one", "zero"}))
    if answer_type == "time":
        return bool(CLOCK_TIME.search(text))
    if answer_type == "when":  # a clock time or a date
        return bool(CLOCK_TIME.search(text) or YEAR.search(text) or MONTH_DAY.search(text) or _DAY.search(text))
    if answer_type == "date":
        return bool(YEAR.search(text) or MONTH_DAY.search(text) or _DAY.search(text))
    if answer_type == "person":
        return bool(person_names(text))
    if answer_type == "place":  # "Office: Dubai" beyond the question's words leaves "Dubai"
        return bool(NAME.search(text) or _PROPER.search(text) or _LONE_NAME.fullmatch(text.strip(" .,:;")))
    if answer_type == "url":
        return bool(URL.search(text))
    if answer_type == "entity":  # "which company ...": a name of something, capitalised
        return bool(re.search(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+|\b[A-Z]{2,}\b", text.strip()))
    return False


def answers_type(text: str, news: str, q: Question) -> bool:
    """Whether a line states the kind of answer asked for beyond the question's own words (``news``:
    the line less those words). A person counts by a whole name the question does not hold: "Clara
    Hood" on a title card does not answer "which character is the Hood passage about?"."""
    if q.answer_type == "person":
        return any(not matched(q.tokens, set(tokenize(name))) for name in person_names(text))
    if q.answer_type == "entity" and news.strip() and _LONE_NAME.fullmatch(text.strip(" .,:;")):
        return True  # a name alone on its line ("Krita" under "STUDIO SOFTWARE"), not a word left of a longer one
    return has_type(news, q.answer_type)


def matched(wanted: set[str], tokens: set[str] | frozenset[str]) -> set[str]:
    """The question's words found among ``tokens``, a word also matching one it begins or ends
    ("grow" ~ "growth", "direct" ~ "director"): stemming does not join such pairs; one it is
    equivalent to (``EQUIVALENT_WORDS``: "score" finds "MUSIC"); and the name of a person WordNet
    knows as what the word says ("president" finds "Lincoln", "fdr" finds "Roosevelt")."""
    found = wanted & tokens
    missing = wanted - found
    if not missing:
        return found
    people = person_kind_stems()
    named = {word for t in tokens for word in people.get(t, ())}  # what the people these tokens name were
    for w in missing:
        if (_equivalents().get(w, frozenset()) | _adjective_equivalents(w)) & tokens or w in named \
                or any(_extends(w, t) or _extends(t, w) for t in tokens):
            found.add(w)
    return found


@functools.lru_cache(maxsize=1)
def person_kind_stems() -> dict[str, frozenset[str]]:
    """``words.person_kinds`` in the stems questions and lines are tokenized to."""
    stems: dict[str, set[str]] = {}
    for name, kinds in person_kinds().items():
        if len(whole := tokenize(name)) == 1:  # a long name is also read as the words glued in it ("art" in "artaxerxes")
            stems.setdefault(whole[0], set()).update(t for kind in kinds for t in tokenize(kind))
    return {stem: frozenset(found) for stem, found in stems.items()}


@functools.lru_cache(maxsize=1)
def _equivalents() -> dict[str, frozenset[str]]:  # built on first use: tokenizing reads the word list
    out: dict[str, set[str]] = {}
    for group in EQUIVALENT_WORDS:
        stems = {t for word in group for t in tokenize(word)}
        for stem in stems:
            out.setdefault(stem, set()).update(stems - {stem})
    return {stem: frozenset(others) for stem, others in out.items()}


@functools.lru_cache(maxsize=1)
def _adjectives_by_start() -> dict[str, list[str]]:
    """WordNet's adjectives with synonyms, by their first three letters (a stem begins as its word does)."""
    out: dict[str, list[str]] = {}
    for word in adjective_synonyms():
        out.setdefault(word[:3], []).append(word)
    return out


@functools.lru_cache(maxsize=4096)
def _adjective_equivalents(stem: str) -> frozenset[str]:
    """The stems of the other words of the commonest sense of the adjective ``stem`` is the stem of
    ("main" finds "primary", "little" finds "small"), worked out for the stems asked about only
    (stemming all of WordNet's adjectives takes a second). A word the tokenizer splits, as if glued,
    would find its pieces, not itself: left out."""
    synonyms = adjective_synonyms()
    found: set[str] = set()
    for word in _adjectives_by_start().get(stem[:3], ()):
        if tokenize(word) == [stem]:
            found |= {t[0] for other in synonyms[word] if len(t := tokenize(other)) == 1}
    return frozenset(found - {stem})


def _extends(short: str, long: str) -> bool:
    """Whether ``long`` is ``short`` with an ending added: four letters may take at most two more
    ("grow" ~ "growth"), so a short name does not stand for a long word ("Lang" ~ "language")."""
    return len(short) >= 4 and long.startswith(short) and (len(short) >= 5 or len(long) - len(short) <= 2)


def beyond_question(text: str, q: Question) -> str:
    """``text`` without the words the question already used: what the line adds. A number is news
    unless the question wrote it as a number of its own ("Q4 2025" asks about 2025, not about 4)."""
    wanted, given = q.tokens, set(_BARE_NUMBER.findall(q.text))
    kept = []
    for word in text.split():
        bare = word.strip(".,;:!?$€£%()“”\"'")
        if (_BARE_NUMBER.fullmatch(bare) and bare not in given) or not matched(wanted, set(tokenize(word))):
            kept.append(word)
    return " ".join(kept)


def word_weights(wanted: set[str], lines: list[set[str]]) -> dict[str, float]:
    """How telling each question word is among the lines read: a word on every line (the product
    a slide is about) tells less than the one word that singles out a line ("battery"), and a word
    on no line tells nothing about which line answers."""
    counts = {w: sum(1 for toks in lines if matched({w}, toks)) for w in wanted}
    return {w: 1.0 / n if n else 0.0 for w, n in counts.items()}


def weighted(found: set[str], weights: dict[str, float]) -> float:
    total = sum(weights.values())
    return sum(weights.get(w, 0.0) for w in found) / total if total else 0.0


def normalised(text: str) -> str:
    """Lower-case words only, for finding quoted words in a line whatever its punctuation."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower().replace("'", "")))


def quote_share(quote: str, text: str) -> float:
    """How much of a quoted phrase ``text`` holds: 1 when it holds it whole, else the share of its
    words in order (speech recognition and OCR garble a word or two)."""
    q, t = normalised(quote), normalised(text)
    if not q:
        return 0.0
    if q in t:
        return 1.0
    words, found = q.split(), set(t.split())
    return sum(1.0 if w in found else 0.8 if _misheard(w, found) else 0.0 for w in words) / len(words) * 0.9


def _misheard(word: str, heard: set[str]) -> bool:
    """Whether a line holds ``word`` as speech recognition or OCR might have garbled it ("Oyelaran" heard
    as "Oyelaren"): a word of four letters or more that is spelled nearly the same."""
    return len(word) >= 4 and any(len(h) >= 4 and abs(len(h) - len(word)) <= 2 and SequenceMatcher(None, word, h).ratio() >= 0.7 for h in heard)


NAME_CARRIES_S = 30.0
"""how far back a name said in speech still tells who a later sentence is about"""
_LONG = re.compile(r"\b(?:long|longest|longer|lengthy|extended)\s+(?:silence|pause|gap|quiet)", re.I)
_URL_TOKENS = frozenset(tokenize(" ".join(URL_WORDS)))


def echo_words(q: Question) -> frozenset[str]:
    """The function words that carry a question whose other words only name where to look or whom
    it is about ("what did they have before them, according to Dickens?": have, before; "what was
    John Holm not?": not); empty otherwise."""
    names = set().union(*names_in_question(q, q.tokens))
    if q.tokens - q.scope_tokens - names - VOICE_TOKENS:
        return frozenset()
    return function_words(q.text)


_ACTIONS = tuple(frozenset(tokenize(words)) for words in (
    "save apply keep confirm accept ok commit", "undo revert restore cancel discard reset rollback", "close exit quit dismiss",
    "detect scan search find refresh look", "delete remove erase clear", "add create insert", "open launch", "next continue proceed",
    "back previous return"))
"""what a button does, by the verbs that name one action: "which button saves the changes?" is
answered by "Apply", "what undoes them?" by "Restore Previous Configuration"."""
BUTTON_WORDS = 4
"""words at most in a button's label"""


def button_action(q: Question, e: Evidence) -> frozenset[str]:
    """For a question about a button, the verbs of the action a short on-screen label names by its
    first word ("Restore Previous Configuration": undo, revert, cancel...); nothing otherwise."""
    if q.asked_for != "button" or e.modality != "ocr" or len(e.text.split()) > BUTTON_WORDS or not (verb := tokenize(e.text)[:1]):
        return frozenset()
    return next((action for action in _ACTIONS if verb[0] in action), frozenset())


def is_choice(e: Evidence, popups: set[tuple]) -> bool:
    """Whether a line of a pop-up (``popups``: keys, see ``popped_up``) is one of the choices it
    offers: a short label, not its question or its message ("Keep This Configuration", not "Does the
    display look OK?"), beside other lines of it (a hint that came up alone offers no choice)."""
    return (len(e.text.split()) <= BUTTON_WORDS and not e.text.rstrip().endswith(("?", ".", ":"))
            and any(key != e.key() and abs(key[0] - e.start) <= TOGETHER_S for key in popups))


def implied_words(q: Question, e: Evidence, boxes: dict[tuple, Box] | None, echo: frozenset[str] = frozenset(),
                  popups: set[tuple] = frozenset()) -> frozenset[str]:
    """The question's words a line answers to without holding them: where it sits on the frame ("the
    clock in the top bar"), "pop-up" or "dialog" for a line of text that came up over a window
    (``popups``, see ``popped_up``), "website" or "link" for any address when one is asked for, for a button
    asked about by what it does the other verbs of the action its label names, and the ``echo``
    words (see ``echo_words``) it holds, which tokens leave out as stopwords."""
    words = set(place_tokens((boxes or {}).get(e.key()))) if e.modality == "ocr" else set()
    if e.key() in popups and q.names_popup:
        words |= POPUP_TOKENS
        if is_choice(e, popups):
            words |= CHOICE_TOKENS  # a pop-up's short label is a button: one of the choices it offers
    words |= button_action(q, e)
    if q.answer_type == "url" and has_type(e.text, "url"):
        words |= _URL_TOKENS
    if echo:
        words |= function_words(e.text) & echo
    words |= {a.lower() for a in acronyms(q.text) if a in initials(e.text)}  # "JFK" for "John F. Kennedy"
    return frozenset(words)


def acronyms(text: str) -> list[str]:
    """Words of two to five capitals a question may use for a name ("JFK", "MLK")."""
    return re.findall(r"\b[A-Z]{2,5}\b", text)


def initials(text: str) -> str:
    """The first letters of each run of capitalised words, runs apart ("Inaugural address - John F.
    Kennedy, 1961": "I JFK"), in which a name's acronym is looked for."""
    runs = [""]
    for word in re.findall(r"[A-Za-z][A-Za-z'’]*|[^\sA-Za-z.]+", text):  # a dot ("F.") joins; a comma, a dash or a number parts
        if word[0].isupper():
            runs[-1] += word[0]
        elif runs[-1]:
            runs.append("")
    return " ".join(r for r in runs if r)


@dataclass
class Scored:
    score: float
    share: float
    """the weighted part of the question's words the line itself holds"""
    evidence: Evidence


def score_line(q: Question, e: Evidence, context: set[str], weights: dict[str, float], wanted: set[str],
               implied: frozenset[str] = frozenset(), unheard: frozenset[str] = frozenset(), names_unheard_sound: bool = False) -> tuple[float, float, bool]:
    """``(score, share, holds)`` of one line (``holds``: whether it states the kind of answer asked for
    beyond the question's words, see ``answers_type``); ``context`` holds the words of what is shown or said beside it,
    ``implied`` the words the line stands for without holding them (see ``implied_words``),
    ``unheard`` the question's words no line holds, which an acoustic guess at a sound may stand for,
    ``names_unheard_sound`` whether one of them names a sound ("creak")."""
    toks = set(tokenize(heard_words(e))) | implied
    share = weighted(matched(wanted, toks), weights)
    around = weighted(matched(wanted, toks | context), weights)
    news = beyond_question(e.text, q)
    says_more = bool(tokenize(news))
    # a moment of the video asked for: a time written on screen answers it only when it is about what is
    # asked ("First shift: 06:45"), not a clock in the corner
    holds = answers_type(e.text, news, q)
    typed = holds and not (q.asks_moment and share == 0)
    score = share + 0.5 * (around - share) + (TYPE_BONUS if typed else 0.0)
    score += 0.15 if e.modality in q.wants else 0.0
    label = LABEL.match(e.text)
    label_words = set(tokenize(label[1])) if label else set()
    if e.modality == "ocr" and label_words and says_more and matched(label_words, wanted) == label_words:
        score += 0.5  # "How long does the battery last?" -> "Battery: 26 hours"
    elif q.asked_for and e.modality != "audio" and says_more and matched(set(tokenize(q.asked_for)), toks):
        score += 0.5  # "Which room ...?" -> "Room: 3D" (sound labels are ranked by salience below)
    if matched(wanted & q.asked_tokens, button_action(q, e)):
        score += 0.5  # "which button saves the changes?": a label that does what the question says ("Apply")
    elif q.asked_for == "button" and e.modality == "ocr" and (len(e.text.split()) > BUTTON_WORDS or e.text.rstrip().endswith("?")):
        score -= 0.3  # a button's label is a few words, and no question ("Does the display look OK?")
    if not says_more and not q.asks_moment:
        score -= 0.4  # a line that only restates the question says nothing, unless its time is what is asked
    elif stray_sign(e.text):
        score -= 0.4  # "Q", "x": an icon read as a letter
    if q.asks_a_question and e.modality in ("ocr", "speech") and e.text.rstrip().endswith("?"):
        score += 0.5  # "what does the pop-up ask?": the line that asks
        share = max(share, 0.3)
    if q.besides and (aside := set(tokenize(q.besides))) and matched(aside, toks) == aside:
        score -= 0.8  # "besides the best of times, what else ...": the line the question sets aside
    restates = not says_more and not q.asks_moment and q.wh != "yesno" and not q.count  # a count is of the part the quote names
    for quote in q.quoted:
        found = quote_share(quote, e.text)
        if found >= 0.6:
            # a line that is only the quoted words is where to look ("the file under 'recent items'"), not
            # what is asked, unless the question asks when it is, whether it is there, or how many it holds
            score += 0.0 if restates else 1.5 * found
            share = max(share, found)
    if (q.time_range or q.relation) and e.source != "cross_modal_search" and (not q.wants or e.modality in q.wants):
        share = max(share, 0.5)  # the question named the moment: what is there is the answer
    if share == 0 and around >= 0.5:
        share = 0.3 * around  # the figure under a matching title: eligible, though it names nothing asked
    if e.modality == "audio" and "audio" in q.wants:
        # any sound may answer "what is heard?"; one the question names and no line holds ("when does
        # the door creak?") is answered only by a guess that names it (below), not by the tagger's other
        # labels ("Crying"): that guess, or nothing
        share = share if names_unheard_sound else max(share, 0.5)
        kind = sound_kind(e)
        score += 0.5 + (NAMED_SOUND * (1.0 + e.score) if named_sound(e) and not names_unheard_sound else SALIENT_SOUNDS.get(kind, 0.0))
        if kind == "silence":  # a pause between sentences is not "the silence after"
            score += 0.06 * min(e.end - e.start, 6.0)
            if q.names_a_sound:  # "what sound ...": silence is no sound
                score -= 0.5
            elif q.names_silence:  # "how long is the pause?": the longest stands out (its length as measured, before any clipping)
                stated = re.search(r"(\d+(?:\.\d+)?) s of silence", e.text)
                seconds = min(float(stated[1]) if stated else e.end - e.start, 6.0)
                score += 0.4 + (0.3 if _LONG.search(q.text) else 0.1) * seconds  # "a long silence": its length decides
        elif "tonal" in e.text:
            score += 0.1  # a chime or a bell says more than an unnamed sound
        if unheard and e.end - e.start >= LASTING_SOUND and (guess := _GUESS.search(e.text)):
            # "how long does the creaking door sound?" when no line names a creak: the acoustics' guess
            # at a sound's source counts as a line holding the words would
            guessed = len(matched(set(unheard), set(tokenize(guess[0])))) / len(wanted)  # words on no line weigh nothing: count them
            score, share = score + guessed, max(share, guessed)
        if q.moment is not None:  # "around 0:50": the nearer, the likelier; a sound heard through it, likeliest
            off = 0.0 if e.start <= q.moment <= e.end else min(abs(e.start - q.moment), abs(e.end - q.moment))
            score += 0.6 * max(0.0, 1.0 - off / 10.0)
    return score, share, holds


def clipped_field(q: Question, evidence: list[Evidence], tokens: dict[tuple, set[str]]) -> tuple[str, str] | None:
    """``(word, field)`` when the attribute a question asks for is a clipped word ("what res is it
    at?") that no line holds and that begins the name of exactly one field on screen (a label with a
    colon: "Resolution:"); None otherwise. Chat clips words a screen spells out."""
    short = tokenize(q.asked_for or "")
    if len(short) != 1 or len(short[0]) < 3 or any(short[0] in found for found in tokens.values()):
        return None
    fields = {t for t in field_names(evidence) if t.startswith(short[0]) and t != short[0]}
    return (short[0], fields.pop()) if len(fields) == 1 else None


def field_names(evidence: list[Evidence]) -> set[str]:
    """The tokens of the fields on screen: the on-screen lines that are a label alone, with its colon
    ("Resolution:")."""
    return {t for e in evidence if e.modality == "ocr" and e.text.rstrip().endswith(":") for t in tokenize(e.text)}


def field_label(e: Evidence) -> set[str]:
    """The words of the label an on-screen line begins with ("Note: may limit ..." -> {note})."""
    label = LABEL.match(e.text) if e.modality == "ocr" else None
    return set(tokenize(label[1])) if label else set()


def where_words(q: Question) -> set[str]:
    """The tokens of the question's words that otherwise only say where to look ("note", "screen")."""
    return set(tokenize(" ".join(q.keywords))) - q.tokens


def names_field(q: Question, e: Evidence) -> bool:
    """Whether ``e`` is the value of a field the question names by its label, with a word that would
    otherwise only say where to look, saying more than the question ("the note under the checkbox" ->
    "Note: may limit resolution options"). A label of the question's own words is no such sign: a
    price shown is not the price of whatever the question names."""
    label = field_label(e)
    return bool(label) and label <= where_words(q) and bool(tokenize(beyond_question(e.text, q)))


def stray_sign(text: str) -> bool:
    """"Q", "x": an icon read as a letter or two, no text."""
    return sum(c.isalnum() for c in text) <= 2


def on_throughout(e: Evidence, duration: float | None) -> bool:
    """An on-screen line that stays for ``CHROME`` of the video or more (a clock, a watermark)."""
    return bool(duration) and e.modality == "ocr" and e.end - e.start >= CHROME * duration


def heard_words(e: Evidence | dict) -> str:
    """The words a line (or a search hit's line, as a dict) holds, less the acoustic statistics' guess
    at a sound's source ("(a chime, bell or music)"): a guess is no mention, neither of the line
    itself nor of what is heard beside it (but see ``score_line``'s ``unheard``)."""
    modality, text = (e.get("modality"), str(e.get("text", ""))) if isinstance(e, dict) else (e.modality, e.text)
    # nor is the acoustics' kind "sound" (anything not speech, tone or noise) a mention of "what's that sound?"
    return re.sub(r"^sound\b:?\s*", "", _GUESS.sub("", text)) if modality == "audio" else text


def sound_kind(e: Evidence) -> str:
    """"tone" for "tone: steady tone near 440 Hz", "church bell" for a named "Church bell"."""
    return e.text.split(":", 1)[0].strip().lower()


def named_sound(e: Evidence) -> bool:
    """Whether the audio tagger named this sound (it then has a confidence), rather than the
    acoustic statistics sorting it into a kind; silence is no sound either way."""
    kind = sound_kind(e)
    return e.modality == "audio" and e.score is not None and e.source == "detect_audio_events" and kind not in SALIENT_SOUNDS


def names_in_question(q: Question, wanted: set[str]) -> list[set[str]]:
    """The names the question uses, as the search tokens of each: capitalised words not at its start
    ("Montreal"; "CloudBase" is {cloud, base}, and "DataBase" does not name it), and words typed in
    lower case that are names all the same ("the austen book": no word WordNet lists in lower case)."""
    rest = q.text.split(None, 1)[-1] if " " in q.text else ""
    from ....qa.language import parse

    # a noun typed in lower case that is no word WordNet lists (function words and run-together
    # contractions, "wouldve", are no nouns to the parser)
    typed_low = [t.text for t in list(parse(q.text))[1:] if t.pos_ in ("NOUN", "PROPN") and t.text.islower() and t.lower_ not in STOPWORDS
                 and is_name_word(t.text)]
    words = re.findall(r"(?<=[\s'‘“(])([A-Z][\w'’-]*)", " " + rest) + typed_low
    return list({frozenset(found): found for word in words if (found := set(tokenize(word)) & wanted)}.values())


def names_part(q: Question, e: Evidence, tokens: set[str], place_words: set[str]) -> bool:
    """Whether ``e`` is a line that only names the part the question asks about (its title card:
    it holds the words that place the question, ``place_words``), so says where to look, not what is
    asked there ("in the Darwin lecture, which bird gets called tame?"). It still answers what is
    shown (a credit on the card), a title, or the kind of answer it holds beyond the question ("who
    gave the lecture?")."""
    if not place_words or q.asks_title or "ocr" in q.wants or not matched(place_words, tokens):
        return False
    specific = q.answer_type not in (None, "entity")
    return not (specific and has_type(beyond_question(e.text, q), q.answer_type))


def rank(
    q: Question,
    evidence: list[Evidence],
    *,
    wanted: set[str] | None = None,
    focus: list[tuple[float, float]] | None = None,
    search_rank: dict[tuple, int] | None = None,
    edge: float | None = None,
    boxes: dict[tuple, Box] | None = None,
    duration: float | None = None,
    pointed: list[Evidence] | None = None,
    place_words: set[str] | None = None,
) -> list[Scored]:
    """Every line that bears on the question, best first. ``focus``: the spans the question names
    (lines outside them are left out when any line is inside); ``search_rank``: the rank (1 = best)
    of the search hit each line came with, by ``Evidence.key()``; ``edge``: the moment a question
    placed right after or before something points at (the nearer a sound, the likelier); ``boxes``:
    where on the frame each on-screen line was read; ``duration``: the video's length; ``pointed``:
    what "it" in the question points at (the last answer's lines); ``place_words``: the words that
    only say where to look (a named part's, by default)."""
    echo = echo_words(q)  # a question carried by its function words is matched on them
    wanted = (q.tokens if wanted is None else wanted) | echo
    if echo:  # the named part's words ("according to the Kessel excerpt") say where to look, its function words what is asked
        wanted = (wanted - q.scope_tokens) | echo
    popups = popped_up(evidence, duration) if q.names_popup else set()  # only a question about a pop-up looks for one
    implied = {e.key(): implied_words(q, e, boxes, echo, popups) for e in evidence}
    tokens = {e.key(): set(tokenize(heard_words(e))) | implied[e.key()] for e in evidence}
    if (short := clipped_field(q, evidence, tokens)) is not None:
        wanted = (wanted - {short[0]}) | {short[1]}  # "what res is it at?": the field "Resolution:" it is short for
    # "the note under the checkbox": a word that otherwise only says where to look ("note", "warning")
    # names a field when a line on screen is labelled with it ("Note: may limit ..."), and is looked for
    wanted |= (where_words(q) - wanted) & set().union(*map(field_label, evidence))
    read = [tokens[e.key()] for e in evidence if e.source != "cross_modal_search"]  # the span read competes; search hits elsewhere do not
    weights = word_weights(wanted, read or list(tokens.values()))
    unheard = frozenset(wanted - matched(wanted, set().union(*tokens.values()))) if "audio" in q.wants else frozenset()
    names_unheard_sound = any(w in SOUND_TOKENS or names_a_sound(w) for w in unheard)
    names = names_in_question(q, wanted)
    sounds = [e.start for e in evidence if e.modality == "audio"]
    first, last = (min(sounds), max(sounds)) if sounds else (0.0, 0.0)
    inside_focus = False
    if focus:
        inside = [e for e in evidence if any(e.start < b and e.end > a for a, b in focus)]
        evidence, inside_focus = inside or evidence, bool(inside)
    motion = Motion(evidence, boxes or {})
    labels = labelled(evidence, boxes, motion)
    labelling = {label.key() for found in labels.values() for label in found}
    # "1280 × 1024" beside "Resolution:" in the panel headed "Acer Technologies 17": the value is the Acer's
    panels = {e.key(): heading for e in evidence if boxes and (found := labels.get(e.key()))
              and (heading := panel_heading(e, found[0], evidence, boxes)) is not None}
    # "any websites listed in it?" after the special thanks: the lines under the heading the last answer stood under
    sections = {label.key() for e in pointed or () for label in labels.get(e.key(), ())}
    tallest = max((height(boxes[e.key()]) for e in evidence if boxes and e.key() in boxes), default=0.0)
    span = (min(e.start for e in evidence), max(e.end for e in evidence)) if evidence else (0.0, 0.0)
    placed = {e.key(): names_place(beyond_question(e.text, q)) for e in evidence} if q.answer_type == "place" else {}
    known_places = any(placed.values())
    # the kind of place asked for, when some line names one of that kind ("which city": Amsterdam, not Germany)
    kind_asked = q.asked_for.lower() if known_places and q.asked_for and any(
        names_place(beyond_question(e.text, q), q.asked_for.lower()) for e in evidence) else None
    out = []
    for e in evidence:
        beside = [tokens[o.key()] for o in evidence if o.modality == e.modality and o.start < e.end + 1 and o.end > e.start - 1]
        score, share, holds = score_line(q, e, set().union(*beside), weights, wanted, implied[e.key()], unheard, names_unheard_sound)
        if names:
            # "the Montreal warehouse": a line said or shown while something else is on (another
            # warehouse's slide) answers for that, not for the one the question names
            # a person named in speech stays the subject of what is said next ("Mr. Dashwood ... he might
            # have been"): speech looks back further for the name
            back = NAME_CARRIES_S if e.modality == "speech" else 2
            about = set().union(*(tokens[o.key()] for o in evidence if o.start < e.end + 2 and o.end > e.start - 2
                                  or (o.modality == e.modality == "speech" and e.start - back <= o.start <= e.start)))
            if not any(matched(name, about) == name for name in names):
                score -= 0.6
        if q.names_popup and popups and e.key() not in popups:
            score -= 0.6  # "what does the pop-up offer?": its own text, not the window's under it
        if echo and not tokens[e.key()] & echo:
            score -= 0.3  # only the part's name ("Dickens") and none of the words that carry the question
        if e.key() in labelling and e.key() not in labels and matched(wanted, tokens[e.key()]):
            score -= 0.3  # the question names a label, a heading, a placeholder: what it labels is the answer
        if (label := label_text(labels, e)) and matched(wanted, set(tokenize(label))) and tokenize(e.text):
            # "Orientation:" beside "Landscape": the value of what is asked, as if it held the label's words
            named = weighted(matched(wanted, set(tokenize(label))), weights)
            exact = len(matched(set(tokenize(label)), wanted)) / len(set(tokenize(label)))  # "Director" over "Art Director"
            score += 0.5 + max(0.0, named - share) + 0.3 * exact
            if q.asked_for and matched(set(tokenize(q.asked_for)), set(tokenize(label)[-1:])):
                score += 0.3  # "what software ...": the heading "STUDIO SOFTWARE" lists software; "Software Developer" names a job
            if f" {normalised(label)} " in f" {normalised(q.text)} ":
                score += 0.1  # the role as the question words it ("Character Animator"), not glued or derived ("CHARACTERANIMATION")
            if q.answer_type == "person" and not is_heading(e.text) and not holds:
                score += TYPE_BONUS * named  # "who did the logo?": the holder of the credit the question names, whatever the name looks like ("Grrr")
            if motion.rolls(e):  # the names right under a rolling heading are its credit; lines that came in later may begin the next block
                score -= 0.04 * min(LABEL_SECONDS, max(0.0, e.start - labels[e.key()][0].start))
            share = max(share, named)
        if not q.asks_moment and (heading := panels.get(e.key())) and matched(wanted, set(tokenize(heading.text))) - matched(wanted, set(tokenize(label_text(labels, e) or ""))):
            score += PANEL_BONUS  # "what paper size is the inkjet on?": the value in the panel the inkjet heads
        if e.modality == "audio" and q.relation and edge is not None:
            # "just before X": the sound next to X's edge, even over a surer label a few seconds off
            weight, reach = (0.8, 10.0) if q.relation_close and sound_kind(e) != "silence" else (0.3, 20.0)  # a pause is no sound next to it
            score += weight * max(0.0, 1.0 - min(abs(e.start - edge), abs(e.end - edge)) / reach)
        elif e.modality == "audio" and q.relation and last > first:
            position = (e.start - first) / (last - first)
            score += 0.15 * (position if q.relation == "after" else 1 - position)
        if boxes and e.modality == "ocr" and superseded(e, evidence, boxes):
            score -= 0.5  # typing in progress: the finished text stands where it stood
        if q.asks_title and boxes and e.key() in boxes and height(boxes[e.key()]) >= 0.8 * tallest:
            score += 0.8  # a title is the biggest text around
            share = max(share, 0.5)
        if q.order and span[1] > span[0]:  # "set to at first": of the values read, the earlier; "in the end", the later
            where = (e.start - span[0]) / (span[1] - span[0])
            score += 0.3 * (where if q.order == "latest" else 1.0 - where)
        if q.position and inside_focus and span[1] > span[0]:
            # "at the end": of two answers in the closing part, the later one; "at the start", the earlier
            where = (e.start - span[0]) / (span[1] - span[0])
            # of the lines that hold the kind asked for ("the website at the very end"), the position decides;
            # not where the credits set it, which says only that they close the video
            weight = TYPE_BONUS if not q.credits and holds else 0.2
            score += weight * (where if q.position == "end" else 1.0 - where)
        if on_throughout(e, duration) and not matched(wanted, tokens[e.key()]) and not (
                q.answer_type in ("person", "time", "date", "money", "percent", "url", "place") and has_type(e.text, q.answer_type)
                and not q.asks_moment):  # a moment of the video is asked for, not what a clock on screen reads
            score -= 0.3  # on screen from start to end (a clock, a logo): the frame, not the content, unless it is what is asked for
        if q.author and e.modality == "ocr" and person_names(e.text):
            score += 0.3  # "whose novel": the name on the work's title card, not a character named in it
        if q.asked_for in ORGANISATIONS and e.modality == "ocr":
            # "which company ...": a firm's name answers it, a person's name in the credits does not
            score += 0.3 if organisation_name(e.text) else -0.3 if _only_a_person(e.text) else 0.0
        elif q.asked_for and q.answer_type != "person" and e.modality == "ocr" and names_a_person(q.asked_for) is False and _only_a_person(e.text) \
                and not placed.get(e.key()):  # "Filmmore Amsterdam" asked "which city?" reads as a name, but holds a place
            score -= 0.6  # "what software ...": a person's name under a heading that holds the word is no software
        if known_places:  # "in which city ...": a place known by name beyond those the question names, not any capitalised word
            score += 0.3 if placed[e.key()] else -TYPE_BONUS if has_type(beyond_question(e.text, q), "place") else 0.0
            if placed[e.key()] and kind_asked and not names_place(beyond_question(e.text, q), kind_asked):
                score -= 0.4  # "which city ...": "Germany" is a place, but no city
        if sections and any(label.key() in sections for label in labels.get(e.key(), ())):
            score += 0.2
        if inside_focus and any(a - 0.5 <= e.start < b for a, b in focus or ()):
            score += 0.05  # what appears in the part says more of it than what stays on screen throughout (a clock)
        if search_rank and (place := search_rank.get(e.key())):
            # what the hybrid search put first (it also weighs meaning, not only words); a sound has no
            # words to match, so where it is (the span the question's topic was found in) counts most
            # (a moment asked about, or one placed by what comes before or after it, says where, for a sound)
            score += (0.6 if e.modality == "audio" and q.moment is None and not q.relation else 0.1) / place
        if share > 0 or (inside_focus and not names_part(q, e, tokens[e.key()], q.scope_tokens if place_words is None else place_words)):  # inside the part the question names, every line is a candidate
            out.append(Scored(score, share, e))
    out.sort(key=lambda s: (-s.score, s.evidence.start))
    return out
