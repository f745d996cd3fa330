"""Which of the evidence a turn gathered its answer cites.

The rule planner says so itself (``AIMessage.response_metadata["evidence"]``); for a language model's
answer it is chosen here from what the answer echoes and the times it names. The runner returns these
with the answer, the transcript keeps them, and a compacted turn keeps their times.
"""

from __future__ import annotations

from ..schema import Evidence


def select_evidence(answer: str, evidence: list[Evidence], limit: int = 5) -> list[Evidence]:
    """For planners that do not say what they cite: the gathered evidence the answer echoes, and at
    the times it cites, the evidence that shares a word with it (else the one span it points at)."""
    from ..index.text import tokenize
    from .grounding import cited_evidence

    said = set(tokenize(answer))
    unique = list({e.key(): e for e in evidence}.values())
    scored = []
    for e in unique:
        toks = set(tokenize(e.text))
        shared = len(said & toks) + sum(1 for t in said & toks if len(t) >= 2 and any(c.isdigit() for c in t))  # a figure echoed counts twice
        if toks and (shared >= 2 or shared / len(toks) >= 0.5):
            scored.append((shared / len(toks), e))
    scored.sort(key=lambda x: -x[0])
    chosen = [e for _, e in scored[:limit]]
    at_times = cited_evidence(answer, unique)
    echoing = [e for e in at_times if said & set(tokenize(e.text))]
    for e in echoing or at_times[:1]:
        if e not in chosen and len(chosen) < limit + 2:
            chosen.append(e)
    return sorted(chosen, key=lambda e: e.start)


def cited(final, gathered: list[Evidence], text: str) -> list[Evidence]:
    """The evidence an answer (``final``, its text ``text``) cites: what the planner named, else what
    the answer echoes of ``gathered``."""
    named = (getattr(final, "response_metadata", None) or {}).get("evidence")
    return [Evidence(**e) for e in named] if named is not None else select_evidence(text, gathered)
