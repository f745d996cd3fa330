"""The offline rubric judge: no language model, only string evidence.

It checks whether the answer states the key facts a criterion names: quoted words, dates, numbers with
their units, clock times, and otherwise the criterion's content words. A fact counts only as a whole
(:mod:`staragent.bench.keyfacts`): a date's day and month together, a number with its unit where the
criterion gives one. Its verdicts are marked ``heuristic`` everywhere
(identity kind ``heuristic``, ``"heuristic": true`` in each verdict) and the report labels them as such;
they are never presented as an LLM verdict. It cannot detect hallucinations, so a penalty criterion
counts as violated only when the criterion quotes or numbers the very thing the answer must not say.
"""

from __future__ import annotations

import re

from .. import keyfacts as kf
from .. import text as tx
from ..sample_records import Criterion
from .client import JudgeCall, JudgeIdentity

HEURISTIC_VERSION = "1"
_PREAMBLE = re.compile(
    r"^\s*(must|should|the answer|answer)\s+(not\s+)?(clearly\s+)?"
    r"(mention|mentions|state|states|say|says|include|includes|identify|identifies|note|notes|explain|explains|"
    r"describe|describes|report|reports|give|gives|name|names|indicate|indicates)?\s*(that\s+)?",
    re.IGNORECASE,
)
TIME_TOLERANCE_S = 5.0
RECALL_THRESHOLD = 0.6


def phrase_stated(answer: str, phrase: str) -> bool:
    """A quoted phrase is stated word for word, or as the same facts in other words ("January 3rd, 2027"
    for "3 January 2027"): every key fact of the phrase, and its other content words."""
    if tx.contains_phrase(answer, phrase):
        return True
    facts = kf.key_facts(phrase)
    if not facts or not all(kf.states(answer, f) for f in facts):
        return False
    rest = phrase
    for fact in facts:
        rest = rest.replace(fact.text, " ")
    return set(tx.content_words(rest)) <= set(tx.content_words(answer))


def check_facts(description: str, answer: str) -> tuple[bool | None, list[str], list[str]]:
    """``(all_found, found, missing)`` for the specific facts (quotes, dates, quantities, numbers, times)
    in a criterion; ``all_found`` is ``None`` when the criterion names no specific fact."""
    found, missing = [], []
    answer_times = tx.times(answer)
    for phrase in tx.quoted(description):
        (found if phrase_stated(answer, phrase) else missing).append(f'"{phrase}"')
    desc_times = tx.times(description)
    for t in desc_times:
        ok = any(abs(a - t) <= TIME_TOLERANCE_S for a in answer_times)
        (found if ok else missing).append(f"time {int(t) // 60}:{int(t) % 60:02d}")
    stripped = description
    for phrase in tx.quoted(description):
        stripped = stripped.replace(phrase, " ")
    for fact in kf.key_facts(stripped):
        (found if kf.states(answer, fact) else missing).append(fact.text)
    if not found and not missing:
        return None, [], []
    return not missing, found, missing


def reference_verdict(reference: str, answer: str) -> dict:
    """Same final result as a reference: every date, quantity and number of the reference (each as a
    whole), else most of its content words. Clock times in the reference (where something happens) are
    not part of the result."""
    facts = kf.key_facts(reference)
    if facts:
        missing = [f.text for f in facts if not kf.states(answer, f)]
        return {
            "criteria_met": not missing,
            "explanation": "every fact of the reference stated" if not missing else f"missing {', '.join(missing)}",
            "heuristic": True,
        }
    wanted, have_words = set(tx.content_words(reference)), set(tx.content_words(answer))
    recall = len(wanted & have_words) / len(wanted) if wanted else 0.0
    return {
        "criteria_met": recall >= RECALL_THRESHOLD,
        "explanation": f"{recall:.0%} of the reference's content words in the answer (needs {RECALL_THRESHOLD:.0%})",
        "heuristic": True,
    }


def heuristic_verdict(criterion: Criterion, answer: str, reference: str | None = None) -> dict:
    """Verdict on one criterion. A criterion with ``compare_to_reference`` set (the trajectory scorer's
    final-answer check) is judged against ``reference`` instead of its own words."""
    description = criterion.description
    answer = answer or ""
    if getattr(criterion, "compare_to_reference", False) and reference is not None and not criterion.is_penalty:
        if not answer.strip():
            return {"criteria_met": False, "explanation": "empty answer", "heuristic": True}
        return reference_verdict(reference, answer)
    if criterion.is_penalty:
        if not answer.strip():
            return {"criteria_met": True, "explanation": "empty answer: nothing to violate", "heuristic": True}
        all_found, found, _ = check_facts(description, answer)
        if all_found is not None and found:
            return {
                "criteria_met": False,
                "explanation": f"the answer states what the penalty forbids: {', '.join(found)}",
                "heuristic": True,
            }
        return {
            "criteria_met": True,
            "explanation": "no forbidden fact named by the criterion appears; the heuristic judge cannot detect "
            "hallucinations or other errors",
            "heuristic": True,
        }
    if not answer.strip():
        return {"criteria_met": False, "explanation": "empty answer", "heuristic": True}
    all_found, found, missing = check_facts(description, answer)
    if all_found is not None:
        detail = f"found {', '.join(found) or 'nothing'}" + (f"; missing {', '.join(missing)}" if missing else "")
        return {"criteria_met": all_found, "explanation": detail, "heuristic": True}
    wanted = set(tx.content_words(_PREAMBLE.sub("", description)))
    have = set(tx.content_words(answer))
    if not wanted:
        return {"criteria_met": False, "explanation": "criterion has no checkable words", "heuristic": True}
    recall = len(wanted & have) / len(wanted)
    return {
        "criteria_met": recall >= RECALL_THRESHOLD,
        "explanation": f"{len(wanted & have)}/{len(wanted)} of the criterion's content words in the answer "
        f"(needs {RECALL_THRESHOLD:.0%})",
        "heuristic": True,
    }


class HeuristicJudge:
    """Rubric criteria only; metrics that need a language model refuse it with a clear message."""

    is_llm = False

    def __init__(self) -> None:
        self.identity = JudgeIdentity(
            kind="heuristic", model_id="heuristic-keyfacts", revision=HEURISTIC_VERSION, spec="heuristic"
        )
        self.stats = {"calls": 0, "cache_hits": 0, "model_calls": 0, "failures": 0, "retries": 0}

    def check_criterion(
        self, *, question: str, reference: str, answer: str, criterion: Criterion, history: list[dict] | None = None
    ) -> JudgeCall:
        self.stats["calls"] += 1
        verdict = heuristic_verdict(criterion, answer, reference)
        return JudgeCall(ok=True, value=verdict, reply=verdict["explanation"], attempts=1)
