"""Small text utilities shared by the heuristic judge, argument matchers and lexical scorers."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter

from ..words import NUMBER_WORDS

STOPWORDS = frozenset(
    """a an the and or but if then than that this these those there here of to in on at by for from with
    without about into onto over under as is are was were be been being it its it's he she they them his
    her their we you i me my our your do does did done has have had not no nor so such too very can could
    should would will shall may might must also just only any all each every some what which who whom whose
    when where why how mention mentions mentioned state states stated say says said answer include
    includes including correct correctly identify identifies explain explains describe describes note
    notes that's one""".split()  # noqa: SIM905
)

_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])[-+]?\$?\d+(?:\.\d+)?")
CLOCK = re.compile(r"\b(\d{1,2}:)?\d{1,2}:\d{2}\b")  # m:ss, h:mm:ss
_QUOTED = re.compile(r"[\"“”‘’]([^\"“”‘’]{1,120})[\"“”‘’]|(?<!\w)'([^']{1,120})'(?!\w)")



def normalise(text: str) -> str:
    """Lower case, accents folded, punctuation to spaces, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-z0-9.:$%]+", " ", text.lower())
    return re.sub(r"\s+", " ", text).strip(" .")


def tokens(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode().lower())


@functools.lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def stem(word: str) -> str:
    return _stemmer().stem(word)


def content_words(text: str) -> list[str]:
    return [stem(t) for t in tokens(text) if t not in STOPWORDS and not t.isdigit()]


def numbers(text: str, words: bool = True) -> list[float]:
    """Numbers written in digits (``1,299.50``, ``$12``, ``45%``) and, with ``words``, small number words."""
    out = []
    for match in _NUMBER.finditer(str(text)):
        raw = match.group(0).replace(",", "").replace("$", "")
        try:
            out.append(float(raw))
        except ValueError:
            continue
    for word in tokens(text) if words else ():
        if word in NUMBER_WORDS:
            out.append(float(NUMBER_WORDS[word]))
    return out


def times(text: str) -> list[float]:
    """Clock times (``m:ss``, ``h:mm:ss``) in seconds."""
    from ..errors import TimeFormatError
    from ..timecodes import parse_time

    out = []
    for match in CLOCK.finditer(str(text)):
        try:
            out.append(parse_time(match.group(0)))
        except (ValueError, TimeFormatError):
            continue
    return out


def quoted(text: str) -> list[str]:
    return [(a or b).strip() for a, b in _QUOTED.findall(str(text)) if (a or b).strip()]


def token_f1(candidate: str, reference: str) -> float:
    """SQuAD-style token F1 on normalised tokens (stop words kept)."""
    c, r = tokens(candidate), tokens(reference)
    if not c or not r:
        return float(c == r)
    common = sum((Counter(c) & Counter(r)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(c), common / len(r)
    return 2 * precision * recall / (precision + recall)


def contains_phrase(haystack: str, phrase: str) -> bool:
    """Whether the normalised, stemmed words of ``phrase`` appear in order in ``haystack``."""
    h = [stem(t) for t in tokens(haystack)]
    p = [stem(t) for t in tokens(phrase)]
    if not p:
        return False
    n = len(p)
    return any(h[i : i + n] == p for i in range(len(h) - n + 1))


def section(prompt: str, heading: str) -> str:
    """Text under ``## heading`` up to the next ``## `` heading."""
    match = re.search(rf"^##\s+{re.escape(heading)}\s*$(.*?)(?=^##\s|\Z)", prompt, re.MULTILINE | re.DOTALL)
    return match.group(1).strip() if match else ""
