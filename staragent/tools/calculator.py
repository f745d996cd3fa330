"""calculator: arithmetic on numbers found in the video, evaluated by walking the syntax tree
(never ``eval``), with bounds on size so that no expression can exhaust the machine."""

from __future__ import annotations

import ast
import math
import operator
import re

from pydantic import BaseModel, Field

from ..errors import ToolError
from ..limits import MAX_EXPRESSION_CHARS
from .base import Tool, ToolContext, ToolResult

MAX_NODES = 200
MAX_EXPONENT = 1000
MAX_MAGNITUDE = 1e300

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _mean(*values):
    values = _flatten(values)
    return sum(values) / len(values)


def _flatten(values) -> list:
    out = []
    for v in values:
        out.extend(_flatten(v) if isinstance(v, (list, tuple)) else [v])
    if not out:
        raise ToolError("a function over values was given none")
    return out


_FUNCTIONS = {
    "abs": abs,
    "round": lambda x, n=0: round(x, int(n)),
    "min": lambda *v: min(_flatten(v)),
    "max": lambda *v: max(_flatten(v)),
    "sum": lambda *v: sum(_flatten(v)),
    "mean": _mean,
    "avg": _mean,
    "average": _mean,
    "sqrt": math.sqrt,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "floor": math.floor,
    "ceil": math.ceil,
}
_CONSTANTS = {"pi": math.pi, "e": math.e}


def normalize_expression(text: str) -> str:
    """Accept what people write: "$1,249.99", "15% of 200", "240 * 15%", "3 x 4", "2^10", "×", "÷", "−"."""
    text = text.strip().replace("×", "*").replace("÷", "/").replace("−", "-").replace("^", "**")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = re.sub(r"[$€£¥]", "", text)
    text = re.sub(r"(\d+(?:\.\d+)?)\s*%\s*of\b", r"(\1/100)*", text)
    # "240 * 15%": a percent sign with no operand after it is a percentage; "10 % 3" is modulo
    text = re.sub(r"(\d+(?:\.\d+)?)\s*%(?!\s*[\w(.])", r"(\1/100)", text)
    text = re.sub(r"(?<=[\d)])\s*[xX]\s*(?=[\d(])", "*", text)
    return text


def evaluate(expression: str) -> float | int:
    if not expression or not expression.strip():
        raise ToolError("the expression is empty; give something to compute, e.g. '249 + 129'")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    text = normalize_expression(expression)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ToolError(f"cannot read {expression!r} as arithmetic (use numbers, + - * / ** %, parentheses, sqrt(), round(), ...)") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ToolError("the expression is too large")
    value = _eval(tree.body)
    if isinstance(value, (list, tuple)):
        raise ToolError("the expression gives a list, not a number")
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        raise ToolError("the result is not a finite number")
    return value


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, list, tuple)):
        raise ToolError("only numbers are allowed")
    if isinstance(value, (int, float)) and abs(value) > MAX_MAGNITUDE:
        raise ToolError("the result is too large")
    return value


def _eval(node):
    if isinstance(node, ast.Constant):
        return _number(node.value)
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ToolError(f"unknown name {node.id!r} in the expression")
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_eval(e) for e in node.elts]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _number(_UNARY[type(node.op)](_eval(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > MAX_EXPONENT or (abs(left) > 1 and abs(right) * math.log10(abs(left)) > 300)):
            raise ToolError("the power is too large to compute")
        try:
            return _number(_BINARY[type(node.op)](left, right))
        except ZeroDivisionError:
            raise ToolError("division by zero") from None
        except TypeError:
            raise ToolError("arithmetic on a list is not allowed") from None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS and not node.keywords:
        try:
            return _number(_FUNCTIONS[node.func.id](*[_eval(a) for a in node.args]))
        except (ValueError, TypeError) as exc:
            raise ToolError(f"{node.func.id}() cannot take these arguments ({exc})") from None
    raise ToolError(f"{ast.unparse(node)!r} is not allowed in a calculation")


def format_number(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


class CalculatorResult(ToolResult):
    expression: str
    result: float | int
    text: str = Field(description="the result as written for people")

    def summary(self) -> str:
        return f"{self.expression} = {self.text}"


class Calculator(Tool):
    name = "calculator"
    brief = "Compute arithmetic exactly, e.g. '249 + 129.50', '15% of 240' or 'round(1240 / 3, 2)'."
    description = (
        "Compute arithmetic exactly: + - * / ** and % (modulo, as in '10 % 3'), parentheses, percentages "
        "('15% of 240', '240 * 15%'), and functions "
        "sqrt, round, abs, min, max, sum, mean, log, exp. Use it for totals, differences and ratios of numbers "
        "found in the video."
    )
    needs_video = False

    class Args(BaseModel):
        expression: str = Field(description="e.g. '249 + 129.50' or 'round(1240 / 3, 2)'")

    Result = CalculatorResult

    def run(self, ctx: ToolContext, args: Args) -> CalculatorResult:
        value = evaluate(args.expression)
        return CalculatorResult(expression=args.expression, result=value, text=format_number(value))
