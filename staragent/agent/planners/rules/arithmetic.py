"""Arithmetic over amounts found in the video: which number answers each part of a question such as
"what do the X and the Y cost together?", "how much more is X than Y?", "what does X cost after the
discount?", and the calculator expression that combines them."""

from __future__ import annotations

import re

from ....index.text import tokenize
from ....schema import Evidence
from ....words import NUMBER_WORDS, SCALE_WORDS
from .conversation import SEARCH, Turn
from .ranking import MONEY, NUMBER, PERCENT, matched, rank

_PRICE_WORDS = re.compile(r"\b(price|costs?|normally|regular|usually|sells? for)\b", re.I)
_OFF_WORDS = re.compile(r"\b(off|discount|sale|saves?|reduced)\b", re.I)
_HOW_MANY_ITEMS = re.compile(r"\b(both|" + "|".join(w for w, n in NUMBER_WORDS.items() if 2 <= n <= 10) + r")\b", re.I)


def numbers(text: str) -> list[tuple[str, float]]:
    """Numbers written in ``text`` with their scale words applied ("$12.5 million" -> 12500000)."""
    out = []
    for raw in NUMBER.findall(re.sub(r"(?<=\d)(?=[A-Za-z])", " ", text)):
        parts = raw.split()
        scale = SCALE_WORDS.get(parts[-1].lower(), 1.0) if len(parts) > 1 else 1.0
        try:
            out.append((raw, float(parts[0].strip("$€£¥%").replace(",", "")) * scale))
        except ValueError:
            continue
    return out


def _read_first(evidence: list[Evidence]) -> list[Evidence]:
    """What the range tools read (whole spans) before what search saw elsewhere."""
    return [e for e in evidence if e.source != SEARCH] or evidence


def _near_topic(evidence: list[Evidence], e: Evidence, wanted: set[str]) -> float:
    """Share of the operand's words found in other evidence shown at the same time (a slide's title)."""
    toks: set[str] = set()
    for other in evidence:
        if other.modality == e.modality and other.start < e.end and other.end > e.start:
            toks |= set(tokenize(other.text))
    return len(matched(wanted, toks)) / max(1, len(wanted))


def operand_value(turn: Turn, operand: str, exclude: set | None = None) -> tuple[float, Evidence] | None:
    """The number that best answers one part of an arithmetic question."""
    q = turn.question
    wanted = set(tokenize(operand))
    evidence = turn.evidence()
    best = None
    for e in _read_first(evidence):
        if exclude and e.key() in exclude:
            continue
        found = numbers(e.text)
        if not found:
            continue
        score = len(matched(wanted, set(tokenize(e.text)))) / max(1, len(wanted))
        if q.answer_type == "money" and MONEY.search(e.text):
            score += 1.0  # "how much more does X cost": an amount, before the warranty years beside it
        score += 0.5 * _near_topic(evidence, e, wanted)
        if score > 0 and (best is None or score > best[0]):
            best = (score, found[0][1], e)
    return (best[1], best[2]) if best else None


def operand_values(turn: Turn) -> list[tuple[float, Evidence]]:
    """One number per part of the question, each from a different piece of evidence."""
    used: set = set()
    found = []
    for operand in turn.question.operands:
        value = operand_value(turn, operand, used)
        if value is None:
            return []
        used.add(value[1].key())
        found.append(value)
    return found


def listed_values(turn: Turn) -> list[tuple[float, Evidence]]:
    """For "the total of the two prices": every relevant number of the asked kind, in time order."""
    q = turn.question
    found: dict[float, Evidence] = {}
    for e in sorted(turn.evidence(), key=lambda x: x.start):
        if not matched(q.tokens, set(tokenize(e.text))):
            continue
        if q.answer_type == "money" and not MONEY.search(e.text):
            continue
        for _, value in numbers(e.text)[:1]:
            found.setdefault(value, e)
    many = _HOW_MANY_ITEMS.search(q.text)
    count = (2 if many[1].lower() == "both" else NUMBER_WORDS[many[1].lower()]) if many else 5
    return list(found.items())[:count]


def discount_values(turn: Turn) -> list[tuple[float, Evidence]]:
    """The price and the percentage off that best fit the question ("after the discount")."""
    scored = [s.evidence for s in rank(turn.question, _read_first(turn.evidence()))]
    # a price line says so ("Regular price", "normally costs"); a discount line says "off" or "discount"
    prices = [(_PRICE_WORDS.search(e.text) is None, i, e) for i, e in enumerate(scored) if MONEY.search(e.text)]
    offs = [(_OFF_WORDS.search(e.text) is None, i, e) for i, e in enumerate(scored) if PERCENT.search(e.text)]
    if not prices or not offs:
        return []
    price, off = min(prices, key=lambda x: x[:2])[2], min(offs, key=lambda x: x[:2])[2]
    return [(numbers(price.text)[0][1], price), (float(PERCENT.search(off.text)[1]), off)]


def values(turn: Turn) -> list[tuple[float, Evidence]]:
    q = turn.question
    if q.operation == "discount":
        return discount_values(turn)
    return operand_values(turn) if q.operands else listed_values(turn)


def expression(turn: Turn) -> str | None:
    """The calculator expression for the question's operation over the values found, or None."""
    q = turn.question
    found = [v for v, _ in values(turn)]
    if len(found) < 2:
        return None
    text = [f"{v:g}" for v in found]
    if q.operation == "discount":
        return f"{text[0]} * (1 - {text[1]} / 100)"
    if q.operation == "mean":
        return f"mean({', '.join(text)})"
    if q.operation == "-":
        return f"abs({text[0]} - {text[1]})"
    return f" {q.operation} ".join(text)


def currency(evidence: list[Evidence]) -> str:
    """The currency sign all the figures were written with, to put before a computed amount."""
    signs = {found[0] if (found := re.search(r"[$€£¥]", e.text)) else "" for e in evidence}
    return signs.pop() if len(signs) == 1 else ""
