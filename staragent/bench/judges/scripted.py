"""A deterministic stand-in for an LLM judge: a tiny LangChain chat model whose reply is derived from
the prompt it receives (the sections of the ``bench_*`` templates), in the reply formats those prompts
ask for. It lets the full judging path (prompt, client, cache, parser) run offline, in tests and demos.
Its identity is ``scripted`` and no report presents it as a real judge."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from .. import text as tx
from ..function_chat import FunctionChatModel
from ..sample_records import Criterion
from ..text import section
from .heuristic import heuristic_verdict

SCRIPTED_VERSION = "1"


def _field(block: str, name: str) -> str:
    matches = re.findall(rf"^{re.escape(name)}:\s*(.*)$", block, re.MULTILINE)
    return matches[-1].strip() if matches else ""


def _fenced(prompt: str, tag: str) -> str:
    match = re.search(rf"```{tag}\n(.*?)\n```", prompt, re.DOTALL)
    return match.group(1).strip() if match else ""


def _rubric(prompt: str) -> str:
    block = section(prompt, "Criterion to check")
    penalty = "Kind: penalty" in block
    criterion = Criterion(
        description=_field(block, "Criterion"),
        category="penalty" if penalty else "high_priority",
        compare_to_reference=_field(block, "Name") == "final_answer_correctness",
    )
    answer = section(prompt, "Candidate answer")
    if answer.startswith("(the candidate gave no answer)"):
        answer = ""
    verdict = heuristic_verdict(criterion, answer, section(prompt, "Reference answer"))
    return json.dumps({"criteria_met": verdict["criteria_met"], "explanation": "scripted: " + verdict["explanation"]})


def _rating(prompt: str) -> str:
    target = prompt.split("## Turn to rate")[-1]
    f1 = tx.token_f1(_field(target, "Candidate answer"), _field(target, "Reference answer"))
    rating = 3 if f1 >= 0.5 else 2 if f1 >= 0.2 else 1
    return f"Scripted rationale: the candidate shares {f1:.2f} token F1 with the reference. So rating={rating}"


def _pairwise(prompt: str) -> str:
    """Prefers the answer that adds more distinct content words beyond the question's own."""
    a, b = _fenced(prompt, "model_a"), _fenced(prompt, "model_b")
    asked = set(tx.content_words(section(prompt, "Question")))
    wa, wb = (len(set(tx.content_words(x)) - asked) for x in (a, b))
    if not a and not b:
        overall = "Tie (both bad)"
    elif abs(wa - wb) <= 0.1 * max(wa, wb, 1):
        overall = "Tie (both good)"
    else:
        overall = "A" if wa > wb else "B"
    note = f"scripted: Model A adds {wa} content words to the question, Model B {wb}."
    blocks = [f"```[{dim}]\n{note}\n```" for dim in ("Instruction Following", "Accuracy", "Relevance", "Helpfulness")]
    blocks.append(f"```[Overall Judge]\n{overall}\n```")
    return "\n".join(blocks)


def _prediction_lines(text: str) -> list[str]:
    lines = [re.sub(r"^\s*\d+[.)]\s*", "", line).strip() for line in text.splitlines()]
    return [line for line in lines if line]


def _giraffe(prompt: str) -> str:
    prediction = (section(prompt, "Model predictions") or section(prompt, "Model answer")).split("\n\n")[0]
    context = section(prompt, "What the video shows so far") or section(prompt, "What the scene shows") or section(
        prompt, "True pattern and next frame"
    )
    truth = section(prompt, "True outcome") or context
    lines = _prediction_lines(prediction)

    def five(x: float) -> int:
        return max(0, min(5, round(5 * x)))

    logic = five(tx.token_f1(prediction, context))
    spec = five(min(1.0, len(tx.content_words(prediction)) / 30))
    if "Plausibility" in prompt:
        scores = [("Plausibility", logic), ("Specificity", spec), ("Diversity", min(5, len(lines)))]
    elif "True outcome" in prompt:
        hit = int(any(tx.token_f1(line, truth) >= 0.5 for line in lines))
        scores = [("LogicalConsistency", logic), ("Specificity", spec), ("Accuracy", hit)]
    else:
        scores = [("LogicalConsistency", logic), ("Accuracy", five(tx.token_f1(prediction, truth))), ("Specificity", spec)]
    return "\n".join(f"{i}. {name}: score: [{value}]. reason: [scripted]" for i, (name, value) in enumerate(scores, 1))


def scripted_reply(prompt: str) -> str:
    """The scripted judge's reply to a rendered ``bench_*`` prompt."""
    if "## Criterion to check" in prompt:
        return _rubric(prompt)
    if "## Turn to rate" in prompt and "So rating=" in prompt:
        return _rating(prompt)
    if "[Overall Judge]" in prompt:
        return _pairwise(prompt)
    if "score: [n]" in prompt:
        return _giraffe(prompt)
    if "## Answer to rewrite" in prompt:
        return "In other words: " + section(prompt, "Answer to rewrite")
    return "This scripted judge has no reply for that prompt."


class ScriptedChatModel(FunctionChatModel):
    """The scripted judge's chat model: replies with :func:`scripted_reply` unless given another
    ``reply_fn``."""

    reply_fn: Callable[[str], str] = scripted_reply
    model_name: str = "scripted-judge"
