"""People's names and web addresses, read off a line of text by the shape of its words: shared by
the screen layout (a name beside its role in credits; an address is no heading) and the planners."""

from __future__ import annotations

import re

from ..words import common_words

NAME = re.compile(r"\b(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z]+(?:[\s-]+(?:[A-Z]\.\s*)?[A-Z][a-z]+)+\b|\b(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+[A-Z][a-z]+")
URL = re.compile(r"\b(?:https?://|www\.)\S+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|io|co|uk|de|fr|info|tv)\b", re.I)
_TITLE = re.compile(r"^(?:Dr|Mr|Mrs|Ms|Prof|Sir|Lady|Lord)\.?\s", re.I)


def person_names(text: str) -> list[str]:
    """Names of people written in ``text``: capitalised words in a row, at least one of which is no
    common English word ("Ilse Vandermeer", "Mr. Arthur Penhallow", "JORIS TEN BRINKE" in capitals;
    not "Desktop Sharing")."""
    common = common_words()
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 4 and all(c.isupper() for c in letters):
        text = text.title()  # credits written in capitals
    out = []
    for name in NAME.findall(text):
        name = re.sub(r"^(?:(?:The|A|An|This|That|Our|My|Your|Their|His|Her|Its|And|But|So|Then|In|On|At|Of|For|With)\s+)+", "", name)
        if " " not in name.strip() and not _TITLE.match(name):
            continue
        words = re.findall(r"[A-Za-z]+", name)
        if _TITLE.match(name) or not common or any(w.lower() not in common for w in words if len(w) > 1):
            out.append(name)
    return out
