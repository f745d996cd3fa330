"""What a question asks, as typed fields: the ``QuestionFrame``, and the readers that produce it.

A frame is read from the parse of the question (spaCy), not matched against phrasings: the answer
type comes from the question word and, for "what/which X", from what WordNet says X is a kind of; the
terms are the question's content lemmas; times written in it give the scope. ``SpacyQuestionReader``
is one implementation of ``QuestionReader``; a model's structured output can be another.
"""

from __future__ import annotations

import re
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from ..timecodes import times_in_text
from .language import parse, respelled

AnswerType = Literal[
    "person", "place", "organization", "date", "time", "moment", "duration", "money", "count", "number",
    "yesno", "thing", "description",
]  # fmt: skip

# What a "what/which X" question asks for, by the WordNet category X falls under (its commonest
# sense): the categories of spaCy's entity types, named by WordNet's own nouns.
KIND_ROOTS: tuple[tuple[str, AnswerType], ...] = (
    ("person", "person"),
    ("organization", "organization"),
    ("location", "place"),
    ("time_period", "date"),
    ("calendar_day", "date"),
    ("date", "date"),
    ("time_unit", "duration"),
    ("monetary_value", "money"),
    ("number", "number"),
    ("measure", "number"),
)

_QUOTED = re.compile(r"[\"“”‘’']([^\"“”‘’']{2,80})[\"“”‘’']")


class TimeScope(BaseModel):
    """Where in the video the question points: a range written in it, the time next to a part it
    names ("after the bell"), or the part an earlier answer cited."""

    start: float
    end: float
    kind: Literal["range", "anchor", "previous"] = "range"


class Anchor(BaseModel):
    """A part of the video the question places its answer against: "after the Dickens reading"."""

    relation: Literal["after", "before", "between", "during"]
    terms: list[str]
    second: list[str] = Field(default_factory=list, description="the other end of 'between X and Y'")


# English's temporal prepositions and conjunctions (a closed class), by the relation each states
TEMPORAL = {"after": "after", "following": "after", "since": "after", "before": "before", "until": "before",
            "prior": "before", "between": "between", "during": "during", "while": "during", "throughout": "during"}


class Placed(BaseModel):
    """"Is the Acer one left or right of the laptop?": the words naming the thing asked about (the
    figure) and the thing it is placed against (the ground)."""

    figure: list[str]
    ground: list[str]


# WordNet roots of the nouns that name a side or position ("left", "side", "position"): a question
# holding one, or asking "where", may ask how two things stand
PLACE_ROOTS = ("position", "side")


def placed_terms(doc) -> Placed | None:
    """The figure and ground of a question about where one named thing stands against another: the
    ground is what a preposition's object names ("of the laptop", "compared to the laptop"), the
    figure the other nouns; words of a clause that only places the question in time ("once they
    finish dragging", "before mirroring") and the side nouns themselves name neither. None for a
    question that does not ask that."""
    from ..words import falls_under

    # by the word as written: the parser takes "left" in "is it left or right of ..." for a verb
    sides = {t.i for t in doc if t.pos_ in ("NOUN", "VERB", "ADJ", "ADV") and t.dep_ != "ROOT"
             and any(falls_under(t.lower_, root) for root in PLACE_ROOTS)}
    sides |= {c.i for i in sides for c in doc[i].conjuncts}  # "left or right": "right" is a side here too
    # "where" asks only as the question's own word, not in a relative clause ("the town where it lives")
    if not sides and not any(t.tag_ == "WRB" and t.lower_ == "where" and t.head.dep_ != "relcl" for t in doc):
        return None
    timing = {t.i for token in doc if token.dep_ == "advcl" or TEMPORAL.get(token.lower_) and token.dep_ in ("prep", "mark")
              for t in token.subtree}
    figure, ground = [], []
    for token in doc:
        if token.pos_ not in ("NOUN", "PROPN") or token.i in sides | timing or token.is_stop:
            continue
        under = token.head if token.dep_ != "pobj" else token
        (ground if under.dep_ == "pobj" else figure).append(token.lemma_.lower())
    if not figure and any(t.pos_ == "PRON" and t.dep_ in ("nsubj", "nsubjpass") and t.i not in timing for t in doc):
        # "when they drag the acer screen around, which side of the laptop does it end up on?": the
        # pronoun stands for what the clause before it names
        figure = [t.lemma_.lower() for t in doc if t.i in timing and t.pos_ in ("NOUN", "PROPN") and t.i not in sides and not t.is_stop]
    if not figure or not ground:
        return None
    return Placed(figure=list(dict.fromkeys(figure)), ground=list(dict.fromkeys(ground)))


class QuestionFrame(BaseModel):
    text: str
    answer_type: AnswerType = "description"
    focus: str | None = Field(None, description="the noun the question asks for ('year' in 'what year'), not expected in the answer line")
    terms: list[str] = Field(default_factory=list, description="content lemmas the evidence should be about")
    names: list[str] = Field(default_factory=list, description="proper names the question gives (they are not the answer)")
    quoted: list[str] = Field(default_factory=list)
    scope: TimeScope | None = None
    refers_back: bool = Field(False, description="leans on the previous turn (a pronoun, no subject of its own)")
    previous_terms: list[str] = Field(default_factory=list, description="the previous question's terms, for a question that refers back")
    heard: bool = Field(False, description="asks about something heard (a sound named by a noun WordNet files under sounds)")
    anchors: list[Anchor] = Field(default_factory=list, description="parts the answer is placed against; their words locate, they do not answer")
    placed: Placed | None = Field(None, description="asks where one thing on screen stands against another")


class QuestionReader(Protocol):
    def read(self, question: str, previous: QuestionFrame | None = None) -> QuestionFrame: ...


def kind_of_noun(noun: str) -> AnswerType | None:
    """The answer type a noun asks for, from the WordNet category it falls under; None when none."""
    from ..words import american, falls_under

    noun = american(noun)
    for root, answer_type in KIND_ROOTS:
        if falls_under(noun, root):
            return answer_type
    return None


def asked_noun(wh) -> str | None:
    """The noun a "what/which" asks for: the one it determines ("which year"), else the subject or
    attribute of the clause ("what is the price")."""
    if wh.dep_ == "det" and wh.head.pos_ in ("NOUN", "PROPN"):
        return wh.head.lemma_.lower()
    root = wh.head if wh.head.pos_ in ("AUX", "VERB") else wh
    for child in root.children:
        if child.dep_ in ("nsubj", "attr", "nsubjpass") and child.pos_ == "NOUN" and child.i != wh.i:
            return child.lemma_.lower()
    return None


def _answer_type(doc) -> tuple[AnswerType, str | None]:
    wh = next((t for t in doc if t.tag_ in ("WP", "WP$", "WRB", "WDT")), None)
    if wh is None:
        first = next((t for t in doc if not t.is_punct), None)
        return ("yesno" if first is not None and first.pos_ == "AUX" else "description"), None
    word = wh.lower_
    if word in ("who", "whom", "whose"):
        return "person", None
    if word == "where":
        return "place", None
    if word == "when":
        return "moment", None
    if word == "how":
        nxt = doc[wh.i + 1] if wh.i + 1 < len(doc) else None
        if nxt is not None and nxt.pos_ in ("ADJ", "ADV"):
            return {"many": "count", "much": "number", "long": "duration", "old": "number"}.get(nxt.lower_, "description"), None
        return "description", None
    noun = asked_noun(wh)
    if noun is None:
        return "description", None
    return (kind_of_noun(noun) or "thing"), noun


def content_terms(doc, skip: set[int] = frozenset()) -> list[str]:
    """The content lemmas of a parsed text, lower case, once each, in order."""
    found = []
    for token in doc:
        if token.i in skip or token.is_stop or token.is_punct or token.like_num and not token.text.isdigit():
            continue
        if token.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "NUM", "ADV") and len(token.text) > 1:
            found.append(token.lemma_.lower())
    return list(dict.fromkeys(found))


def _anchors(doc) -> tuple[list[Anchor], set[int]]:
    """The parts a question places its answer against, and the token positions naming them."""
    found, used = [], set()
    for token in doc:
        relation = TEMPORAL.get(token.lower_)
        if relation is None or token.dep_ not in ("prep", "mark", "advmod"):
            continue
        objects = [c for c in token.children if c.dep_ in ("pobj", "pcomp", "nsubj", "dobj")] or [
            c for c in token.head.children if c.dep_ in ("nsubj",) and token.dep_ == "mark"]
        if not objects:
            continue
        whole = {t.i for t in objects[0].subtree}
        other = {t.i for c in objects[0].children if c.dep_ == "conj" for t in c.subtree} if relation == "between" else set()
        first = content_terms([doc[i] for i in sorted(whole - other)])
        second = content_terms([doc[i] for i in sorted(other)])
        if first:
            found.append(Anchor(relation=relation, terms=first, second=second))
            used |= whole | {token.i}
    return found, used


class SpacyQuestionReader:
    """The English question reader: spaCy's parse, WordNet's categories, the one time parser."""

    def read(self, question: str, previous: QuestionFrame | None = None) -> QuestionFrame:
        from ..words import names_a_sound

        text = respelled(" ".join(question.split()))  # "titel": title
        doc = parse(text)
        answer_type, focus = _answer_type(doc)
        wh = {t.i for t in doc if t.tag_ in ("WP", "WP$", "WRB", "WDT")}
        wh |= {i + 1 for i in wh if doc[i].lower_ == "how" and i + 1 < len(doc) and doc[i + 1].pos_ in ("ADJ", "ADV")}  # "how long"
        anchors, placing = _anchors(doc)
        terms = content_terms(doc, wh | placing)
        names = [ent.text for ent in doc.ents if ent.label_ in ("PERSON", "ORG", "GPE", "WORK_OF_ART", "NORP", "FAC", "LOC")]
        times = times_in_text(text)
        scope = TimeScope(start=times[0].start, end=max(times[0].end, times[0].start + 1.0)) if times else None
        pronouns = [t for t in doc if t.pos_ == "PRON" and t.lower_ not in ("i", "me", "you", "we", "what", "who", "which")]
        has_subject = any(t.pos_ in ("NOUN", "PROPN") for t in doc if t.i not in wh and t.lemma_.lower() != focus)
        refers_back = previous is not None and (bool(pronouns) or not has_subject)
        if refers_back and scope is None and previous.scope is not None:
            scope = previous.scope.model_copy(update={"kind": "previous"})
        return QuestionFrame(
            text=text,
            answer_type=answer_type,
            focus=focus,
            terms=terms,
            names=list(dict.fromkeys(names)),
            quoted=[q.strip() for q in _QUOTED.findall(text) if len(q.split()) <= 12],
            scope=scope,
            refers_back=refers_back,
            previous_terms=[t for t in previous.terms if t not in terms] if refers_back and previous else [],
            heard=any(names_a_sound(t.text) for t in doc if t.pos_ in ("NOUN", "VERB") and t.i not in placing),
            anchors=anchors,
            placed=placed_terms(doc),
        )
