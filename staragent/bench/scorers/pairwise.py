"""Pairwise judging (VideoAutoArena's judge, seed 003): instruction following, accuracy, relevance and
helpfulness, outcome A / B / tie (both good) / tie (both bad).

To cancel position bias each pair is judged in both orders. From X's point of view a win is 1, a tie
0.5, a loss 0; X's pair score is the mean over the orders that produced a verdict. X wins the pair above
0.5, loses below, ties at 0.5 (``tie_good`` / ``tie_bad`` when both orders agree on the kind of tie).
"""

from __future__ import annotations

from typing import Any

from ...prompts import render
from ..judges.parsing import parse_pairwise

TIE_VERDICTS = ("tie", "tie_good", "tie_bad")


def points_for(verdict: str | None, side: str) -> float | None:
    """1 / 0.5 / 0 for the model shown as ``side`` ("A" or "B"); ``None`` without a verdict."""
    if verdict is None:
        return None
    if verdict in TIE_VERDICTS:
        return 0.5
    return 1.0 if verdict == side else 0.0


def combine(forward: str | None, backward: str | None) -> dict[str, Any]:
    """X was A in ``forward`` and B in ``backward``."""
    scores = [s for s in (points_for(forward, "A"), points_for(backward, "B")) if s is not None]
    if not scores:
        return {"outcome": None, "score_x": None}
    score = sum(scores) / len(scores)
    if score > 0.5:
        outcome = "x"
    elif score < 0.5:
        outcome = "y"
    else:
        ties = {v for v in (forward, backward) if v in TIE_VERDICTS}
        outcome = ties.pop() if len(ties) == 1 and (forward in TIE_VERDICTS and backward in TIE_VERDICTS) else "tie"
    return {"outcome": outcome, "score_x": score}


def judge_pair(
    judge: Any, question: str, answer_x: str, answer_y: str, *, persona: str = "", context: str = "", both_orders: bool = True
) -> dict[str, Any]:
    def ask(a: str, b: str):
        prompt = render("bench_pairwise", persona=persona, question=question, context=context, answer_a=a, answer_b=b)
        return judge.ask(prompt, parse_pairwise)

    first = ask(answer_x, answer_y)
    second = ask(answer_y, answer_x) if both_orders else None
    forward = first.value if first.ok else None
    backward = second.value if second is not None and second.ok else None
    return {
        **combine(forward, backward),
        "forward": forward,
        "backward": backward,
        "failed_calls": int(not first.ok) + int(second is not None and not second.ok),
        "replies": [first.reply] + ([second.reply] if second is not None else []),
    }
