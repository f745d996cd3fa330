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

from ..words import american, doer_base, glued_pieces

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


def overlap(query_tokens: set[str], text: str) -> float:
    """Share of the query's tokens found in ``text`` (0-1)."""
    if not query_tokens:
        return 0.0
    return len(query_tokens & set(tokenize(text))) / len(query_tokens)
