"""What ``bench score`` prints: one readable line per metric (or per Giraffe evaluator), and a plain
"not applicable" for a metric that found nothing to score in the run's dataset."""

from __future__ import annotations

from typing import Any

NOT_APPLICABLE = "not applicable to this dataset (no turn it can score)"


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}%"


def fraction(value: float | None) -> str:
    """A number with two decimals (a 0-1 share, a 0-100 lexical score, a 1-3 rating)."""
    return "–" if value is None else f"{value:.2f}"


def _ci(interval: dict[str, Any] | None) -> str:
    return f" [95% CI {interval['lower']:.2f}–{interval['upper']:.2f}]" if interval else ""


def _scored(summary: dict[str, Any], unit: str = "turns") -> str:
    skipped = summary.get("skipped") or 0
    return f"{summary.get('turns', summary.get('n', 0))} {unit}" + (f", {skipped} without an answer" if skipped else "")


def _rubric(s: dict[str, Any]) -> list[str]:
    rel, pap = s["released"], s["paper"]
    agentic = rel["agentic"]
    line = (
        f"rubric ({rel['turns']} turns): overall released {pct(rel['overall'])}{_ci(rel.get('overall_ci'))}, "
        f"paper {pct(pap['overall'])}"
    )
    line += f"; agentic {pct(agentic['score'])} ({agentic['n']} turns)" if agentic else ""
    return [line + f"; unanswered {rel['unanswered']}; failed judge calls {rel['failed_calls']}"]


def _trajectory(s: dict[str, Any]) -> list[str]:
    return [
        f"trajectory ({s['turns']} agentic turns): score {pct(s['score'])}, tool F1 {fraction(s['tool_f1'])}, "
        f"argument accuracy {fraction(s['arg_accuracy'])}, final answer {fraction(s['final_answer_accuracy'])}; "
        f"unanswered {s['unanswered']}; failed judge calls {s['failed_judge_calls']}"
    ]


def _rated(metric: str, s: dict[str, Any]) -> list[str]:
    return [
        f"{metric} ({_scored(s)}): score {pct(s['score'])}{_ci(s.get('score_ci'))}, mean rating "
        f"{fraction(s['mean_rating'])} of 1-3; failed judge calls {s['failed_calls']}"
    ]


def _lexical(s: dict[str, Any]) -> list[str]:
    return [
        f"lexical ({_scored(s)}; 0-100): BLEU-4 {fraction(s.get('bleu'))}, ROUGE-L {fraction(s.get('rouge_l'))}, "
        f"METEOR {fraction(s.get('meteor'))} ({s.get('meteor_variant')})"
    ]


def _consensus(s: dict[str, Any]) -> list[str]:
    return [
        f"consensus ({_scored(s)}; 0-100): best {s['metric']} against the nearest human answers "
        f"{fraction(s['score'])}{_ci(s.get('score_ci'))}"
    ]


def _videoautobench(s: dict[str, Any]) -> list[str]:
    return [
        f"videoautobench ({_scored(s, 'answers')}): score {pct(s.get('score'))}{_ci(s.get('score_ci'))} "
        f"(vs selected {pct(s.get('selected'))}, vs rejected {pct(s.get('rejected'))}); "
        f"failed judge calls {s.get('failed_calls', 0)}"
    ]


def _giraffe(s: dict[str, Any]) -> list[str]:
    lines = []
    for evaluator, m in s.items():
        dims = ", ".join(f"{k} {v:.1f}" for k, v in m.items() if k not in ("n", "avg", "failed_calls", "skipped"))
        lines.append(f"giraffe {evaluator.upper()} ({_scored(m, 'samples')}): avg {m['avg']:.1f} of 100 ({dims}); "
                     f"failed judge calls {m['failed_calls']}")  # fmt: skip
    return lines


def _factqa(s: dict[str, Any]) -> list[str]:
    kinds = ", ".join(f"{kind} {m['right']}/{m['n']}" for kind, m in s["by_kind"].items())
    videos = ", ".join(f"{video} {m['right']}/{m['n']}" for video, m in s["by_video"].items())
    return [f"factqa ({_scored(s, 'questions')}): {s['right']}/{s['n']} right ({s['accuracy']}%); by kind: {kinds}; by video: {videos}"]


LINES = {
    "rubric": _rubric,
    "trajectory": _trajectory,
    "vdeval": lambda s: _rated("vdeval", s),
    "lave": lambda s: _rated("lave", s),
    "lexical": _lexical,
    "consensus": _consensus,
    "videoautobench": _videoautobench,
    "giraffe": _giraffe,
    "factqa": _factqa,
}


def score_lines(summaries: dict[str, dict[str, Any] | None]) -> list[str]:
    """The lines ``bench score`` prints for ``{metric: summary}`` (``None``: nothing to score)."""
    lines = []
    for metric, summary in summaries.items():
        lines += LINES[metric](summary) if summary else [f"{metric}: {NOT_APPLICABLE}"]
    return lines
