"""What someone is like: questions that ask it, and lines that say it, read from the parse.

"how is he described?", "what sort of person is he?", "is he a bad guy?", "what's wrong with his
personality?" all ask what a person is like; the line that answers says it in the form "he was not
an ill-disposed young man": the verb "be" with the person as its subject and what they are as its
complement. Both sides are recognised by their grammar and WordNet's classes, not by their words.
"""

from __future__ import annotations

from ..words import names_a_person, names_a_quality, verb_falls_under
from .language import parse

PERSONAL = frozenset({"he", "she", "him", "her", "his", "hers", "himself", "herself"})
"""the pronouns that stand for a person (not "it", nor "they", which may be things)"""
SUBJECTS = ("nsubj", "nsubjpass")


def _is_person(token) -> bool:
    return token.lower_ in PERSONAL or token.ent_type_ == "PERSON" or bool(token.pos_ == "NOUN" and names_a_person(token.lemma_.lower()))


def _described(token) -> bool:
    """A complement that says what someone is like: an adjective ("selfish"), a kind of person with
    something said of it ("a bad guy"), or "what sort of person", not who they are ("the narrator")."""
    if token.pos_ == "ADJ":
        return True
    said_of = any(c.dep_ == "amod" for c in token.children)
    kind_of = any(c.dep_ == "prep" and c.lower_ == "of" and any(_is_person(p) for p in c.children) for c in token.children)
    return said_of or (kind_of and not _is_person(token))


def asks_what_someone_is_like(text: str) -> bool:
    """Whether the question asks what a person is like, as the parser reads it: a form of "describe"
    with a person as its object ("how does the narrator describe him?"), "be" with a person as its
    subject and a description as its complement ("is he a bad guy?", "what sort of person is he?"),
    or a quality a person has ("his personality", "John's character")."""
    for token in parse(text):
        children = list(token.children)
        passive = any(c.dep_ == "auxpass" for c in children)  # "how is he described?"
        if token.pos_ == "VERB" and verb_falls_under(token.lemma_.lower(), "describe") \
                and any(_is_person(c) and (c.dep_ in ("dobj", "nsubjpass") or (c.dep_ == "nsubj" and passive)) for c in children):
            return True
        # (the parser may take a name for the complement: "what sort of person is tom brandt?")
        people = [c for c in children if c.dep_ in SUBJECTS and _is_person(c)] \
            or [c for c in children if c.dep_ == "attr" and (_is_person(c) or c.pos_ == "PROPN")]
        if token.lemma_ == "be" and people and any(c.dep_ in ("attr", "acomp") and c not in people and _described(c) for c in children):
            return True
        if token.pos_ == "NOUN" and names_a_quality(token.lemma_.lower()) and any(c.dep_ == "poss" and _is_person(c) for c in children):
            return True
    return False


def says_what_someone_is(text: str) -> bool:
    """Whether a line's main verb is "be" with a person as its subject and a complement ("He was not
    an ill-disposed young man."): it says what that person is like."""
    for token in parse(text):
        if token.dep_ == "ROOT" and token.lemma_ == "be":
            children = list(token.children)
            return any(c.dep_ in SUBJECTS and _is_person(c) for c in children) and any(c.dep_ in ("attr", "acomp") for c in children)
    return False
