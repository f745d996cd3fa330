"""Tool-use trajectory metrics for agentic turns (turns with expected tool calls).

Alignment: each expected call, in order, is paired with the unused predicted call of the same tool whose
arguments match best. From that:

- tool selection: precision = matched / predicted calls, recall = matched / expected calls, F1;
- arguments: per-argument matchers (below) over matched pairs. Required arguments (Table 7 of the
  STARBench paper) always count; an optional argument counts only when the expected call gives it and
  the prediction supplies it (leaving an optional argument out is not an error);
- order agreement: share of matched pairs whose predicted order agrees with the expected order;
- redundant calls (same tool and same normalised arguments as an earlier call), failed calls
  (``ok=False``), extra calls (predicted beyond the matched ones), wrong-tool calls (tools that are not
  expected at all); steps, tool latency, turn latency and tokens;
- an LLM-judged final-answer criterion: does the answer reach the reference's result.

Points (positives, then penalties that SUBTRACT, so a perfect trajectory scores 100%):
+1 per distinct expected tool used; +1 per correct required argument; +0.25 per correct optional
argument the prediction supplies (an optional argument left out adds nothing to the maximum either, so
a correct minimal trajectory still scores 100%); +1 when every expected call is made in the expected
order; +3 for a correct final answer. Penalties: -2 per wrong-tool call (a tool not expected at all);
-1 per other extra call (a repeated or surplus call of an expected tool), at most -5. Each surplus call
is charged once. ``score`` = points / positive maximum, clipped to 0-100%.

Matchers by argument name: ``timestamp`` — both ends within ``tolerance_s`` or temporal IoU >= 0.5
(parsed with :func:`staragent.timecodes.parse_range`); ``expression`` — same numeric value, else same
normalised text; ``categories``/``modalities``/lists — same set of normalised items; ``k``/
``num_results`` — same number; languages — normalised names or codes; free text (``query``, ``text``,
``object_query``, ``code``) — token F1 >= 0.5; anything else — normalised equality.
"""

from __future__ import annotations

import ast
import json
import operator
import re
from typing import Any

from ...errors import TimeFormatError
from ...timecodes import parse_range
from .. import text as tx
from ..charts import Table, bar_chart
from ..sample_records import Criterion, ToolCall
from .common import Unit, mean, pmap
from .display import fraction, pct
from .scorer import Headline, Needs, Scorer, Section

TOOL_PARAMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "transcribe_speech": (("timestamp",), ("language",)),
    "extract_scene_text": (("timestamp",), ("language",)),
    "count_objects": (("timestamp", "object_query"), ()),
    "object_detection": (("timestamp", "categories"), ()),
    "extract_math_exp": (("timestamp",), ("language",)),
    "calculator": (("expression",), ()),
    "web_search": (("query",), ("num_results",)),
    "detect_audio_events": (("timestamp",), ()),
    "execute_code": (("code", "language"), ("inputs",)),
    "detect_activities": (("timestamp",), ()),
    "summarize_segment": (("timestamp", "text", "length"), ()),
    "detect_faces": (("timestamp",), ()),
    "cross_modal_search": (("query", "modalities"), ("k",)),
    "memory_tool": (("func",), ("data",)),
    "translate_speech": (("timestamp", "from_lang", "to_lang"), ()),
    "translate_text": (("text", "from_lang", "to_lang"), ()),
}

LANGUAGES = {
    "en": "english", "eng": "english", "es": "spanish", "spa": "spanish", "fr": "french", "fra": "french",
    "de": "german", "deu": "german", "zh": "chinese", "zho": "chinese", "ja": "japanese", "jpn": "japanese",
    "ar": "arabic", "ara": "arabic", "hi": "hindi", "it": "italian", "pt": "portuguese", "ru": "russian",
    "ko": "korean",
}  # fmt: skip
TEXT_ARGS = {"query", "text", "object_query", "code", "data"}
LIST_ARGS = {"categories", "modalities", "inputs"}
NUMBER_ARGS = {"k", "num_results"}
LANGUAGE_ARGS = {"language", "from_lang", "to_lang"}

SCORE_POINTS = {"tool": 1.0, "required": 1.0, "optional": 0.25, "order": 1.0, "final": 3.0}
PENALTY_POINTS = {"extra": 1.0, "extra_cap": 5.0, "wrong_tool": 2.0}


def param_kinds(tool: str, expected_params: dict[str, Any]) -> tuple[list[str], list[str]]:
    required, optional = TOOL_PARAMS.get(tool, (tuple(expected_params), ()))
    req = [p for p in expected_params if p in required or p not in optional]
    opt = [p for p in expected_params if p in optional and p not in required]
    return req, opt


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.Pow: operator.pow, ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv}  # fmt: skip


def safe_eval(expression: str) -> float | None:
    """The value of an arithmetic expression (numbers, + - * / ** % //, parentheses), else ``None``."""
    text = str(expression).replace("$", "").replace(",", "").replace("^", "**")
    text = re.sub(r"(?<=[\d)])\s*[x×]\s*(?=[\d(])", "*", text)

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        raise ValueError("not arithmetic")

    try:
        return walk(ast.parse(text, mode="eval"))
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
            if isinstance(parsed, list):
                value = parsed
        except json.JSONDecodeError:
            value = [v for v in value.replace(";", ",").split(",")]
    if not isinstance(value, (list, tuple, set)):
        value = [value]
    return sorted({tx.normalise(str(v)) for v in value if str(v).strip()})


def match_timestamp(expected: Any, predicted: Any, tolerance_s: float = 5.0) -> bool:
    try:
        es, ee = parse_range(str(expected))
        ps, pe = parse_range(str(predicted))
    except (TimeFormatError, ValueError):
        return tx.normalise(str(expected)) == tx.normalise(str(predicted))
    if abs(es - ps) <= tolerance_s and abs(ee - pe) <= tolerance_s:
        return True
    inter = max(0.0, min(ee, pe) - max(es, ps))
    union = max(ee, pe) - min(es, ps)
    return union > 0 and inter / union >= 0.5


def match_argument(name: str, expected: Any, predicted: Any, tolerance_s: float = 5.0) -> bool:
    if predicted is None:
        return False
    if name == "timestamp":
        return match_timestamp(expected, predicted, tolerance_s)
    if name == "expression":
        ev, pv = safe_eval(str(expected)), safe_eval(str(predicted))
        if ev is not None and pv is not None:
            return abs(ev - pv) <= 1e-6 * max(1.0, abs(ev))
        return tx.normalise(str(expected)).replace(" ", "") == tx.normalise(str(predicted)).replace(" ", "")
    if name in LIST_ARGS or isinstance(expected, (list, tuple)):
        return _as_list(expected) == _as_list(predicted)
    if name in NUMBER_ARGS or (isinstance(expected, (int, float)) and not isinstance(expected, bool)):
        try:
            return abs(float(expected) - float(predicted)) <= 1e-9
        except (TypeError, ValueError):
            return False
    if name in LANGUAGE_ARGS:
        e, p = tx.normalise(str(expected)), tx.normalise(str(predicted))
        return LANGUAGES.get(e, e) == LANGUAGES.get(p, p)
    if name in TEXT_ARGS:
        return tx.token_f1(str(predicted), str(expected)) >= 0.5
    return tx.normalise(str(expected)) == tx.normalise(str(predicted))


def compare_call(expected: ToolCall, predicted_args: dict[str, Any], tolerance_s: float = 5.0) -> dict[str, Any]:
    required, optional = param_kinds(expected.tool, expected.parameters)
    req_ok = {p: match_argument(p, expected.parameters[p], predicted_args.get(p), tolerance_s) for p in required}
    opt_ok = {
        p: match_argument(p, expected.parameters[p], predicted_args.get(p), tolerance_s)
        for p in optional
        if p in predicted_args
    }
    return {"required": req_ok, "optional": opt_ok}


def align(expected: list[ToolCall], predicted: list[dict[str, Any]], tolerance_s: float = 5.0) -> list[tuple[int, int, dict]]:
    """``(expected index, predicted index, argument comparison)`` for every matched pair."""
    used: set[int] = set()
    pairs = []
    for ei, exp in enumerate(expected):
        best = None
        for pi, pred in enumerate(predicted):
            if pi in used or pred["tool"] != exp.tool:
                continue
            cmp = compare_call(exp, pred["args"], tolerance_s)
            hits = sum(cmp["required"].values()) + 0.25 * sum(cmp["optional"].values())
            if best is None or hits > best[0]:
                best = (hits, pi, cmp)
        if best is not None:
            used.add(best[1])
            pairs.append((ei, best[1], best[2]))
    return pairs


def order_agreement(pairs: list[tuple[int, int, dict]]) -> float:
    """Share of matched pairs (i < j in expected order) that the prediction also has in that order."""
    if len(pairs) < 2:
        return 1.0
    ordered = sorted(pairs)
    total = concordant = 0
    for i in range(len(ordered)):
        for j in range(i + 1, len(ordered)):
            total += 1
            concordant += ordered[i][1] < ordered[j][1]
    return concordant / total


def _call_key(step: dict[str, Any]) -> str:
    return json.dumps({"tool": step["tool"], "args": {k: tx.normalise(str(v)) for k, v in step["args"].items()}}, sort_keys=True)


def trajectory_metrics(expected: list[ToolCall], steps: list[dict[str, Any]], tolerance_s: float = 5.0) -> dict[str, Any]:
    """Everything but the final-answer criterion, from expected calls and predicted steps
    (``[{"tool", "args", "ok", "latency_s", "cached"}]``)."""
    pairs = align(expected, steps, tolerance_s)
    n_exp, n_pred, tp = len(expected), len(steps), len(pairs)
    precision = tp / n_pred if n_pred else (1.0 if n_exp == 0 else 0.0)
    recall = tp / n_exp if n_exp else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    req_total = sum(len(param_kinds(c.tool, c.parameters)[0]) for c in expected)
    opt_total = sum(len(param_kinds(c.tool, c.parameters)[1]) for c in expected)
    req_correct = sum(sum(cmp["required"].values()) for _, _, cmp in pairs)
    opt_correct = sum(sum(cmp["optional"].values()) for _, _, cmp in pairs)
    req_in_pairs = sum(len(cmp["required"]) for _, _, cmp in pairs)
    opt_in_pairs = sum(len(cmp["optional"]) for _, _, cmp in pairs)
    per_argument: dict[str, list[bool]] = {}
    for _, _, cmp in pairs:
        for kind in ("required", "optional"):
            for name, ok in cmp[kind].items():
                per_argument.setdefault(name, []).append(ok)
    seen: set[str] = set()
    redundant = 0
    for step in steps:
        key = _call_key(step)
        redundant += key in seen
        seen.add(key)
    expected_tools = {c.tool for c in expected}
    used_tools = {s["tool"] for s in steps}
    wrong_tool = sum(1 for s in steps if s["tool"] not in expected_tools)
    extra = max(0, n_pred - tp)  # every unmatched call; wrong-tool calls are among them
    order = order_agreement(pairs)
    return {
        "expected_calls": n_exp,
        "predicted_calls": n_pred,
        "matched_calls": tp,
        "tool_precision": precision,
        "tool_recall": recall,
        "tool_f1": f1,
        "tools_expected": sorted(expected_tools),
        "tools_used": sorted(used_tools),
        "distinct_tools_hit": len(expected_tools & used_tools),
        "required_args": req_total,
        "required_args_correct": req_correct,
        "optional_args": opt_total,
        "optional_args_correct": opt_correct,
        "optional_args_given": opt_in_pairs,
        "arg_accuracy": (req_correct + opt_correct) / (req_in_pairs + opt_in_pairs) if req_in_pairs + opt_in_pairs else None,
        "per_argument": {k: sum(v) / len(v) for k, v in sorted(per_argument.items())},
        "order_agreement": order,
        "in_order_complete": tp == n_exp and order == 1.0,
        "redundant_calls": redundant,
        "failed_calls": sum(1 for s in steps if not s.get("ok", True)),
        "extra_calls": extra,
        "wrong_tool_calls": wrong_tool,
        "steps": n_pred,
        "tool_latency_s": sum(float(s.get("latency_s") or 0.0) for s in steps),
        "alignment": [{"expected": e, "predicted": p, "arguments": cmp} for e, p, cmp in pairs],
    }


def trajectory_points(m: dict[str, Any], final_correct: bool) -> dict[str, float]:
    positive_max = (
        SCORE_POINTS["tool"] * len(m["tools_expected"])
        + SCORE_POINTS["required"] * m["required_args"]
        + SCORE_POINTS["optional"] * m["optional_args_given"]
        + SCORE_POINTS["order"]
        + SCORE_POINTS["final"]
    )
    positive = (
        SCORE_POINTS["tool"] * m["distinct_tools_hit"]
        + SCORE_POINTS["required"] * m["required_args_correct"]
        + SCORE_POINTS["optional"] * m["optional_args_correct"]
        + SCORE_POINTS["order"] * bool(m["in_order_complete"])
        + SCORE_POINTS["final"] * bool(final_correct)
    )
    surplus = m["extra_calls"] - m["wrong_tool_calls"]  # a wrong-tool call is charged as wrong, not also as extra
    penalty = min(PENALTY_POINTS["extra_cap"], PENALTY_POINTS["extra"] * surplus) + PENALTY_POINTS["wrong_tool"] * m["wrong_tool_calls"]
    points = positive - penalty
    return {
        "points": points,
        "positive": positive,
        "penalty": penalty,
        "maximum": positive_max,
        "score": 100 * min(1.0, max(0.0, points / positive_max)) if positive_max else 0.0,
    }


def final_answer_criterion(reference: str) -> Criterion:
    return Criterion(
        name="final_answer_correctness",
        description=f"The answer reaches the same final result as the reference answer: {reference}",
        category="high_priority",
        weight=SCORE_POINTS["final"],
        compare_to_reference=True,
    )


def score_unit(judge: Any, unit: Unit, tolerance_s: float = 5.0) -> dict[str, Any]:
    record = unit.record
    steps = [s.model_dump() for s in record.trajectory] if record is not None else []
    m = trajectory_metrics(unit.pair.expected_tool_calls, steps, tolerance_s)
    if not unit.skip_reason:
        call = judge.check_criterion(
            question=unit.question,
            reference=unit.reference,
            answer=unit.answer,
            criterion=final_answer_criterion(unit.reference),
            history=unit.sample.history_before(unit.pair.index),
        )
        final_ok = bool(call.ok and call.value["criteria_met"])
        final = {"met": final_ok, "failed": not call.ok, "error": call.error, "judge_reply": call.reply, "cached": call.cached}
    else:
        final_ok = False
        final = {"met": False, "failed": False, "skipped": unit.skip_reason}
    return {
        "metric": "trajectory",
        **unit.describe(),
        **m,
        **trajectory_points(m, final_ok),
        "final_answer": final,
        "failed_calls_judge": int(final.get("failed", False)),
        "latency_s": record.latency_s if record else None,
        "tokens_in": record.tokens.input if record else 0,
        "tokens_out": record.tokens.output if record else 0,
        "simulated_tools": record.simulated_tools if record else False,
        "skipped": unit.skip_reason,
    }


def score_trajectory(judge: Any, units: list[Unit], workers: int = 1, tolerance_s: float = 5.0) -> list[dict[str, Any]]:
    return pmap(lambda u: score_unit(judge, u, tolerance_s), [u for u in units if u.agentic], workers)


SUMMARY_FIELDS = (
    "tool_precision", "tool_recall", "tool_f1", "arg_accuracy", "order_agreement", "redundant_calls",
    "failed_calls", "extra_calls", "wrong_tool_calls", "steps", "tool_latency_s", "latency_s", "tokens_in",
    "tokens_out", "score",
)  # fmt: skip


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if not rows:
        return {"turns": 0}
    out: dict[str, Any] = {"turns": len(rows)}
    for name in SUMMARY_FIELDS:
        out[name] = mean(r.get(name) for r in rows)
    out["final_answer_accuracy"] = mean(float(r["final_answer"]["met"]) for r in rows)
    total_max = sum(r["maximum"] for r in rows)
    out["pooled_score"] = 100 * max(0.0, sum(r["points"] for r in rows)) / total_max if total_max else 0.0
    out["failed_judge_calls"] = sum(r.get("failed_calls_judge", 0) for r in rows)
    out["unanswered"] = sum(1 for r in rows if r.get("skipped"))
    per_arg: dict[str, list[float]] = {}
    for r in rows:
        for k, v in r.get("per_argument", {}).items():
            per_arg.setdefault(k, []).append(v)
    out["per_argument"] = {k: mean(v) for k, v in sorted(per_arg.items())}
    return out


ROWS = (
    "turns", "unanswered", "score", "pooled_score", "tool_precision", "tool_recall", "tool_f1", "arg_accuracy",
    "order_agreement", "final_answer_accuracy", "redundant_calls", "failed_calls", "extra_calls", "wrong_tool_calls",
    "steps", "latency_s", "tokens_in", "tokens_out", "failed_judge_calls",
)  # fmt: skip
CHARTED = ("tool_precision", "tool_recall", "tool_f1", "arg_accuracy", "order_agreement", "final_answer_accuracy")


def console_lines(s: dict[str, Any]) -> list[str]:
    return [
        f"trajectory ({s['turns']} agentic turns): score {pct(s['score'])}, tool F1 {fraction(s['tool_f1'])}, "
        f"argument accuracy {fraction(s['arg_accuracy'])}, final answer {fraction(s['final_answer_accuracy'])}; "
        f"unanswered {s['unanswered']}; failed judge calls {s['failed_judge_calls']}"
    ]


def sections(t: dict[str, Any]) -> list[Section]:
    tables: list[Table] = [("", ["Metric", "Value"], [[k, t.get(k)] for k in ROWS])]
    if t.get("per_argument"):
        tables.append(("Arguments", ["Argument", "Accuracy"], [[k, v] for k, v in t["per_argument"].items()]))
    charts = []
    if t.get("turns"):
        values = [None if t.get(k) is None else 100 * t[k] for k in CHARTED]
        charts.append(bar_chart("Trajectory metrics (%)", list(CHARTED), {"this run": values}))
    return [Section("Tool-use trajectories (agentic turns)", tables, charts=charts)]


def explain(row: dict[str, Any]) -> str | None:
    final = row.get("final_answer") or {}
    parts = [f"tool F1 {row.get('tool_f1')}, arguments {row.get('arg_accuracy')}, final answer {'met' if final.get('met') else 'not met'}"]
    if final.get("judge_reply"):
        parts.append(final["judge_reply"])
    return "\n".join(parts)


SCORER = Scorer(
    name="trajectory",
    title="Tool-use trajectories",
    run=score_trajectory,
    summarise=summarise,
    needs=Needs(judge="any", trajectories=True),
    headlines=(Headline("trajectory score", "score", chart=False),),
    lines=console_lines,
    sections=sections,
    explain=explain,
    applies=lambda samples: any(s.is_agentic for s in samples),
)
