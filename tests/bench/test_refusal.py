"""The judge's refusal detector, on its own: what it reads as "nothing found", and what it leaves alone."""

import pytest

from staragent.bench.judges.refusal import declines


@pytest.mark.parametrize("answer", [
    "I found nothing about the car's colour.",
    "I couldn't find a price in the video.",
    "I did not find any mention of a date.",
    "There is nothing about the speaker's age.",
    "There is no mention of the venue in the talk.",
    "No information about the author is given.",
    "The total is not shown on screen.",
    "The presenter doesn't say which model it is.",
    "I hear nothing that answers this.",
])  # fmt: skip
def test_answers_that_decline_are_refusals(answer):
    assert declines(answer)


@pytest.mark.parametrize("answer", [
    "It costs $249 (on screen at 0:12).",
    "On screen at 0:12: Price: $249. The pictures themselves are not checked by this profile.",
    "Nothing beats the original, says the host at 3:10.",
    "The speaker found the bug at 4:05.",
    "",
])  # fmt: skip
def test_answers_with_a_fact_or_a_caveat_are_not_refusals(answer):
    assert not declines(answer)


def test_the_fact_scorer_uses_the_judge_side_detector_not_the_agents():
    import ast
    from pathlib import Path

    import staragent.bench.scorers.factqa as factqa

    tree = ast.parse(Path(factqa.__file__).read_text(encoding="utf-8"))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any("agent" in name.split(".") for name in imported), imported
