"""Parsers for judge replies. Each returns ``None`` when the reply holds no usable verdict, so the
client retries and, in the end, records a failed call instead of guessing."""

from __future__ import annotations

import json
import re
from typing import Any

from ..chat import strip_think

_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL | re.IGNORECASE)
_TRUE = {"true", "yes", "met", "1", "pass", "passed", "satisfied"}
_FALSE = {"false", "no", "not met", "unmet", "0", "fail", "failed", "not satisfied"}


def _json_objects(text: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    candidates = [m.group(1) for m in _FENCE.finditer(text)]
    # Every balanced {...} at any position (no nesting needed for verdicts, but allow it).
    depth, start = 0, None
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0 and start is not None:
                candidates.append(text[start : i + 1])
    for cand in candidates:
        try:
            obj = json.loads(cand)
        except json.JSONDecodeError:
            try:
                obj = json.loads(re.sub(r",\s*}", "}", cand.replace("'", '"')))
            except json.JSONDecodeError:
                continue
        if isinstance(obj, dict):
            found.append(obj)
    return found


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
    return None


def parse_criterion_verdict(text: str) -> dict[str, Any] | None:
    """``{"criteria_met": bool, "explanation": str}`` from a rubric judge reply, or ``None``."""
    text = strip_think(text)
    if not text:
        return None
    for obj in reversed(_json_objects(text)):
        for key in ("criteria_met", "criterion_met", "met", "verdict"):
            if key in obj:
                met = _as_bool(obj[key])
                if met is not None:
                    explanation = obj.get("explanation") or obj.get("reason") or obj.get("rationale") or ""
                    return {"criteria_met": met, "explanation": str(explanation)}
    match = re.search(r"criteri(?:a|on)_met\W{0,3}\s*[:=]\s*\W?\s*(true|false|yes|no)\b", text, re.IGNORECASE)
    if match:
        return {"criteria_met": match.group(1).lower() in _TRUE, "explanation": text[:300]}
    return None


RATING_MARKER = "So rating="
_RATING = re.compile(r"so\s+rating\s*[=:]\s*\[?\s*\**\s*([0-9]+(?:\.[0-9]+)?)", re.IGNORECASE)


def parse_rating(text: str, lo: int = 1, hi: int = 3) -> dict[str, Any] | None:
    """The 1-3 rating after the ``So rating=`` marker (VDEval / LAVE), with the rationale before it."""
    text = strip_think(text)
    matches = list(_RATING.finditer(text))
    if not matches:
        return None
    last = matches[-1]
    value = float(last.group(1))
    if not value.is_integer() or not lo <= value <= hi:
        return None
    return {"rating": int(value), "rationale": text[: last.start()].strip()}


_PAIR_MARK = re.compile(r"\[\[\s*([AB])\s*(>>|>|=|<<|<)\s*([AB])\s*\]\]")
_OVERALL = re.compile(r"\[\s*overall(?:\s+judge(?:ment)?)?\s*\]", re.IGNORECASE)


def _marker_verdict(match: re.Match) -> str | None:
    left, op, right = match.groups()
    if left == right:
        return "tie" if op == "=" else None
    if op == "=":
        return "tie"
    better_left = op in (">", ">>")
    return left if better_left else right


def _word_verdict(region: str) -> str | None:
    r = region.strip().strip("`").strip().lower()
    r = re.sub(r"^\s*(overall\s*(judge(ment)?)?\s*[:\-]?)", "", r).strip()
    if re.search(r"tie\W*\(?\s*(both\s+(are\s+)?)?good|tie[_\s-]good|both\s+(are\s+)?good", r):
        return "tie_good"
    if re.search(r"tie\W*\(?\s*(both\s+(are\s+)?)?bad|tie[_\s-]bad|both\s+(are\s+)?bad", r):
        return "tie_bad"
    if re.search(r"\btie\b|\bdraw\b", r):
        return "tie"
    a = re.search(r"model\s+a\s+(wins|is\s+better)|\ba\s+wins\b|^\W*(model\s+)?a\W*$", r)
    b = re.search(r"model\s+b\s+(wins|is\s+better)|\bb\s+wins\b|^\W*(model\s+)?b\W*$", r)
    if a and not b:
        return "A"
    if b and not a:
        return "B"
    return None


def _last_marker(region: str) -> str | None:
    for mark in reversed(list(_PAIR_MARK.finditer(region))):
        verdict = _marker_verdict(mark)
        if verdict:
            return verdict
    return None


def parse_pairwise(text: str) -> str | None:
    """``"A"``, ``"B"``, ``"tie_good"``, ``"tie_bad"`` or ``"tie"`` from a pairwise judge reply.

    The overall block (``[Overall Judge]``) decides when present: the last ``[[A>B]]``-style marker in
    it, else words such as "Tie (both good)", "B" or "Model B wins". Without one, the last marker of the
    whole reply, else such words near its end."""
    text = strip_think(text)
    if not text:
        return None
    overall = list(_OVERALL.finditer(text))
    if overall:
        region = text[overall[-1].end() :]
        block = region.split("```")[0]
        verdict = _last_marker(block) or _word_verdict(block) or _last_marker(region)
        if verdict:
            return verdict
    return _last_marker(text) or _word_verdict(text[-300:])


def parse_dimension_scores(
    text: str, dimensions: dict[str, tuple[str, ...]], scales: dict[str, tuple[float, float]]
) -> dict[str, float] | None:
    """Scores such as ``2. Accuracy: score: [4]. reason: ...`` for every dimension, or ``None`` when one
    is missing or out of its scale. ``dimensions`` maps a key to the names the judge may use."""
    text = strip_think(text)
    out: dict[str, float] = {}
    for key, names in dimensions.items():
        value = None
        for name in names:
            pattern = r"\s*".join(re.escape(part) for part in name.split())
            match = re.search(
                pattern + r"\s*[:\-]?\s*(?:score\s*[:=]?\s*)?\[?\s*(-?[0-9]+(?:\.[0-9]+)?)", text, re.IGNORECASE
            )
            if match:
                value = float(match.group(1))
                break
        lo, hi = scales[key]
        if value is None or not lo <= value <= hi:
            return None
        out[key] = value
    return out
