"""Small formatting helpers the scorers' console lines and report tables share."""

from __future__ import annotations

from typing import Any


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}%"


def fraction(value: float | None) -> str:
    """A number with two decimals (a 0-1 share, a 0-100 lexical score, a 1-3 rating)."""
    return "–" if value is None else f"{value:.2f}"


def ci_suffix(interval: dict[str, Any] | None) -> str:
    """`` [95% CI a–b]`` after a console number, or nothing."""
    return f" [95% CI {interval['lower']:.2f}–{interval['upper']:.2f}]" if interval else ""


def ci_cell(summary: dict[str, Any] | None, key: str = "score_ci") -> str:
    """An interval as a report table cell."""
    ci = (summary or {}).get(key)
    return f"{ci['lower']:.2f} – {ci['upper']:.2f}" if ci else "–"


def scored(summary: dict[str, Any], unit: str = "turns") -> str:
    """``"12 turns, 2 without an answer"``."""
    skipped = summary.get("skipped") or 0
    return f"{summary.get('turns', summary.get('n', 0))} {unit}" + (f", {skipped} without an answer" if skipped else "")
