"""What ``bench score`` prints: each scorer's own lines (its declaration says how it reads), and a
plain "not applicable" for a scorer that found nothing to score in the run's dataset."""

from __future__ import annotations

from typing import Any

from .scorers.registry import get_scorer

NOT_APPLICABLE = "not applicable to this dataset (no turn it can score)"


def score_lines(summaries: dict[str, dict[str, Any] | None]) -> list[str]:
    """The lines ``bench score`` prints for ``{metric: summary}`` (``None``: nothing to score)."""
    lines = []
    for metric, summary in summaries.items():
        lines += get_scorer(metric).console_lines(summary) if summary else [f"{metric}: {NOT_APPLICABLE}"]
    return lines
