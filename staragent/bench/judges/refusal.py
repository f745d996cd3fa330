"""Does an answer decline? The judge side's own reading of "the video holds nothing on that".

The agent has a detector of its own (``agent/grounding.py``) that decides when to search again; this
one decides whether a scored answer counts as a refusal. They are kept apart on purpose: a scorer that
shared the agent's rule would agree with the agent by construction, and a change made to steer the
agent would silently move the scores.

A refusal is recognised by whole phrases only, so that a caveat beside a real answer ("the pictures
are not checked") is not read as one.
"""

from __future__ import annotations

import re

_NEG = r"(?:n't|\s+not)"
_PHRASES = (
    r"\b(?:found|find|see|hear)\s+nothing\b",  # "I found nothing about ..."
    rf"\b(?:could|did){_NEG}\s+find\b",  # "I couldn't find ...", "did not find"
    r"\bnothing\s+(?:about|on|that\s+answers)\b",  # "there is nothing about ..."
    r"\bno\s+(?:mention|information|answer)\s+(?:of|about|to)\b",  # "no mention of ..."
    rf"\b(?:is|are|was|were){_NEG}\s+(?:mentioned|said|shown|stated)\b",  # "the price is not shown"
    rf"\bdoes{_NEG}\s+(?:say|show|mention|state)\b",  # "the video doesn't say"
)
_REFUSAL = re.compile("|".join(f"(?:{p})" for p in _PHRASES), re.IGNORECASE)


def declines(answer: str) -> bool:
    """Whether ``answer`` says the video holds nothing that answers the question."""
    return _REFUSAL.search(answer or "") is not None
