"""One tokenizer for indexing and querying text (speech, OCR, captions, audio labels).

Lower-cases, keeps numbers whole (``$1,249.99`` -> ``1249.99``), splits words that OCR glued
together ("MariaLopez", "Flight417"; and "Denverwarehouse" by dictionary, keeping the glued form
too), reads British spellings as American ones ("licence" finds "licensed"), lets an agent noun also
count as its verb ("director" is found by "directed"), drops common English
words and strips suffixes with Snowball's English stemmer so that
"prices" finds "price".
"""

from __future__ import annotations

import functools
import re

from ..words import GLUE_WORDS, american, doer_base, glued_pieces, split_glued, vocabulary

_NUMBER_COMMAS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# Word boundaries OCR sometimes loses: "MariaLopez", "Flight417" (applied before lower-casing).
GLUED = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_TOKEN = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")

STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "video", "shown", "show", "shows", "say", "says", "said", "tell", "told", "mention", "mentioned", "does", "anything", "something", "someone", "thing", "things"]
)


@functools.lru_cache(maxsize=1)
def _stemmer():
    import Stemmer  # PyStemmer: Snowball's English stemmer in C; importing it takes a millisecond

    return Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if word[0].isdigit():
        return word
    return _stemmer().stemWord(word)


def tokenize(text: str, keep_stopwords: bool = False) -> list[str]:
    text = _NUMBER_COMMAS.sub("", GLUED.sub(" ", text).lower().replace("’", "'"))
    tokens = []
    for token in _TOKEN.findall(text):
        token = american(token.removesuffix("'s"))
        if not keep_stopwords and token in STOPWORDS:
            continue
        tokens.append(_stem(token))
        if (base := doer_base(token)) and _stem(base) != tokens[-1]:  # "director" also counts as "direct"
            tokens.append(_stem(base))
        # "denverwarehouse" (OCR lost a space) also counts as "denver" and "warehouse"
        tokens.extend(_stem(piece) for piece in glued_pieces(token) if keep_stopwords or piece.lower() not in STOPWORDS)
    return tokens


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# a word of three letters or more against a number: "Wed18:38", "Technologies17" ("MP3", "H264" stay whole)
_LETTERS_NUMBER = re.compile(r"(?<=[A-Za-z]{3})(?=\d)|(?<=\d)(?=[A-Za-z]{3})")
_WORD = re.compile(r"[A-Za-z]+")
MIN_DISPLAY_SPLIT = 9
"""letters a run must have to be cut by the dictionary for reading: a short misread ("Technies") is
left as read rather than cut into two dictionary words (search splits it anyway)"""


def _cut(run: str) -> str:
    """A run of letters cut by the dictionary for reading, or as it was. A long lower-case run is
    glue ("limitresolution"). In capitals a title or a name is often two words set as one
    ("LANTERNFALL", "NORTHWIND"), so a run is cut only into three words or more, or around a short
    function word ("THEFINANCIALSUPPORTFROM", "PRODUCEDBY"); a capitalised word ("Northwind") is one."""
    if len(run) < MIN_DISPLAY_SPLIT or not (run.isupper() or run.islower()):
        return run
    pieces = split_glued(run)
    if run.isupper() and len(pieces) < 3 and not any(p.lower() in GLUE_WORDS for p in pieces):
        return run
    return " ".join(pieces) or run


def _uncamel(word: str) -> str:
    """"MirrorScreens" -> "Mirror Screens" when every part is a dictionary word; a brand or a name
    written in camel case ("LibriVox", "iPhone", "McDonald") stays whole."""
    parts = _CAMEL.sub(" ", word).split()
    vocab = vocabulary()
    return " ".join(parts) if len(parts) > 1 and all(len(p) >= 3 and p.lower() in vocab for p in parts) else word


def readable(text: str) -> str:
    """``text`` (a line read off the screen) with the spaces OCR lost put back where a dictionary
    shows them ("THEFINANCIALSUPPORTFROM" -> "THE FINANCIAL SUPPORT FROM", "may limitresolution
    options" -> "may limit resolution options", "CloseWindow" -> "Close Window"): what people and
    models read (the index keeps the text as read). Words holding a dot, a slash or an @ (web and mail
    addresses, file names), known words, and names are left whole."""
    out = []
    for word in text.split(" "):
        if any(c in word for c in "./@_\\"):
            out.append(word)
            continue
        word = _LETTERS_NUMBER.sub(" ", _WORD.sub(lambda m: _uncamel(m[0]), word))
        out.append(_WORD.sub(lambda m: _cut(m[0]), word))
    return " ".join(out)


def overlap(query_tokens: set[str], text: str) -> float:
    """Share of the query's tokens found in ``text`` (0-1)."""
    if not query_tokens:
        return 0.0
    return len(query_tokens & set(tokenize(text))) / len(query_tokens)
