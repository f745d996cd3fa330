"""extract_math_exp: the mathematical expressions and equations shown on screen in a time range.

Text comes from the index's OCR. Each line that looks like mathematics is read into a sympy object
by walking Python's syntax tree (never ``eval``: the text comes from the video), then evaluated,
checked, or solved for its one unknown when that is a polynomial of low degree."""

from __future__ import annotations

import ast
import re

from pydantic import BaseModel, Field

from ..errors import ToolError
from ..languages import parse_language
from ..schema import Evidence
from ..timecodes import format_range
from .base import Tool, ToolContext, ToolResult
from .calculator import format_number, normalize_expression
from .common import Span, TimeRangeArg, span

MAX_NODES = 120
MAX_EXPONENT = 100
MAX_DEGREE = 4
MAX_EXPRESSIONS = 100
DECIMAL_COMMA = {"de", "fr", "es", "it", "pt", "nl", "ru", "pl", "cs", "sv", "da", "fi", "no", "tr", "ro", "hu", "uk", "id", "vi"}
_LABEL = re.compile(r"^\s*([A-Za-z][A-Za-z .'-]{0,40}?)\s*:\s*")
_RELATION = re.compile(r"(<=|>=|!=|≤|≥|≠|=|<|>)")
_OPERATOR = re.compile(r"[+\-−–*/×÷^√²³·=<>≤≥≠]")
_NUMBER_RANGE = re.compile(r"^\s*\d+\s*[-–]\s*\d+\s*$")  # "2019-2024" is a span of years, not a subtraction
_SYMBOLS = {"√": "sqrt", "²": "**2", "³": "**3", "·": "*", "⋅": "*", "–": "-", "≤": "<=", "≥": ">=", "≠": "!="}
_LATEX_RELATION = {"=": "=", "!=": r"\neq", "<": "<", ">": ">", "<=": r"\leq", ">=": r"\geq"}
_RELATION_NAMES = {"=": "equation", "!=": "inequality", "<": "inequality", ">": "inequality", "<=": "inequality", ">=": "inequality"}


class NotMath(ValueError):
    """The text is not a mathematical expression this reader understands."""


def _functions():
    import sympy

    return {"sqrt": sympy.sqrt, "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "log": sympy.log, "ln": sympy.log,
            "exp": sympy.exp, "abs": sympy.Abs}


def _prepare(text: str, decimal_comma: bool) -> str:
    for symbol, plain in _SYMBOLS.items():
        text = text.replace(symbol, plain)
    if decimal_comma:
        text = re.sub(r"(?<=\d),(?=\d)", ".", text)
    text = normalize_expression(text)
    text = re.sub(r"sqrt\s*(\d+(?:\.\d+)?|[a-zA-Z])\b", r"sqrt(\1)", text)
    text = re.sub(r"(?<=\d)\s*(?=[a-zA-Z(])", "*", text)  # 3x, 2(x+1)
    text = re.sub(r"\)\s*(?=[\w(])", ")*", text)  # (a+b)(a-b), (x+1)2
    return text.strip()


def _is_atomic(text: str) -> bool:
    """A lone number or letter ("-5", "x"): nothing is computed on it."""
    node = ast.parse(text.strip(), mode="eval").body
    while isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, (ast.Constant, ast.Name))


def to_sympy(text: str):
    """One side of an expression as a sympy object, built node by node from the syntax tree."""
    import sympy

    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise NotMath(text) from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise NotMath("too long")
    functions = _functions()

    def walk(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return sympy.Rational(repr(node.value)) if isinstance(node.value, float) else sympy.Integer(node.value)
        if isinstance(node, ast.Name):
            if node.id == "pi":
                return sympy.pi
            if len(node.id) == 1:
                return sympy.Symbol(node.id)
            raise NotMath(node.id)  # a word, not a variable
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Div):
                if right == 0:
                    raise NotMath("division by zero")
                return left / right
            if right.is_number and abs(right) > MAX_EXPONENT:
                raise NotMath("exponent too large")
            return left**right
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions and len(node.args) == 1 and not node.keywords:
            return functions[node.func.id](walk(node.args[0]))
        raise NotMath(ast.unparse(node))

    with sympy.evaluate(False):  # keep "249 + 129" as written; values are computed separately
        return walk(tree.body)


class MathExpression(Span):
    text: str = Field(description="the line as read on screen")
    expression: str = Field(description="the mathematics in plain notation (* for times, ** for powers)")
    latex: str
    kind: str = Field(description="expression | equation | inequality")
    label: str | None = Field(None, description='words before it on the line, e.g. "Total" in "Total = 249 + 129"')
    value: str | None = Field(None, description="the numeric value, when it has one")
    solutions: list[str] = Field(default_factory=list, description="solutions of an equation in one unknown")
    holds: bool | None = Field(None, description="for an equation without unknowns: whether it is true")


def _number(value) -> str:
    if value.is_Integer:
        return str(int(value))
    return format_number(float(value.evalf(15)))


def read_math(line: str, decimal_comma: bool = False) -> dict | None:
    """The mathematics on one line of text, or None when it holds none."""
    import sympy

    label = None
    body = line
    if m := _LABEL.match(line):
        label, body = m[1].strip(), line[m.end():]
    if not _OPERATOR.search(body) or not re.search(r"\d", body) or _NUMBER_RANGE.match(body):
        return None
    parts = _RELATION.split(_prepare(body, decimal_comma))
    sides, relations = parts[0::2], parts[1::2]
    if len(relations) > 1:
        return None
    try:
        if relations and len(sides) == 2 and re.fullmatch(r"[A-Za-z][A-Za-z ]+", sides[0].strip()):
            label, sides, relations = sides[0].strip(), [sides[1]], []  # "Area = 12 * 4": a named quantity
        if relations and sides[1].strip() in ("?", ""):
            sides, relations = [sides[0]], []  # "12 * 4 = ?": asks for the value
        exprs = [to_sympy(s.strip()) for s in sides]
    except (NotMath, TypeError, ValueError, ZeroDivisionError):
        return None
    found = {"label": label, "solutions": [], "value": None, "holds": None}
    if not relations:
        expr = exprs[0]
        if _is_atomic(sides[0]):
            return None  # a lone number or letter
        found.update(kind="expression", expression=sides[0].strip(), latex=sympy.latex(expr))
        if not expr.free_symbols:
            found["value"] = _number(expr.doit())
        return found
    op = relations[0]
    left, right = exprs
    difference = (left - right).doit()
    found.update(kind=_RELATION_NAMES[op], expression=f"{sides[0].strip()} {op} {sides[1].strip()}",
                 latex=f"{sympy.latex(left)} {_LATEX_RELATION[op]} {sympy.latex(right)}")
    unknowns = sorted(difference.free_symbols, key=str)
    if op == "=" and not unknowns:
        found["holds"] = bool(sympy.simplify(difference) == 0)
        found["value"] = _number(left.doit())
    elif op == "=" and len(unknowns) == 1 and difference.is_polynomial(unknowns[0]):
        unknown = unknowns[0]
        if 0 < sympy.Poly(difference, unknown).degree() <= MAX_DEGREE:
            found["solutions"] = [f"{unknown} = {_number(s) if s.is_real else s}" for s in sympy.solve(difference, unknown)]
    return found


class MathResult(ToolResult):
    timestamp: str
    expressions: list[MathExpression]
    note: str | None = None

    def evidence(self) -> list[Evidence]:
        return [Evidence(start=e.start, end=e.end, modality="ocr", text=e.text, source="extract_math_exp") for e in self.expressions]

    def summary(self) -> str:
        if not self.expressions:
            return f"{self.timestamp}: {self.note}"
        return f"{self.timestamp}: " + " | ".join(e.expression for e in self.expressions)[:140]


class ExtractMathExp(Tool):
    name = "extract_math_exp"
    description = (
        "Find the mathematical expressions and equations shown on screen in a time range, each normalised, "
        "with its value, or its solutions when it is an equation in one unknown. "
        'timestamp: a range such as "00:05:00-00:05:30".'
    )

    class Args(BaseModel):
        timestamp: TimeRangeArg
        language: str | None = Field(None, description="language of the slides, e.g. 'de' (decimal commas are read as points)")

    Result = MathResult

    def run(self, ctx: ToolContext, args: Args) -> MathResult:
        index = ctx.require_index()
        start, end = ctx.time_range(args.timestamp)
        language = parse_language(args.language, allow_auto=True)
        decimal_comma = language in DECIMAL_COMMA
        found, seen = [], set()
        shown = index.ocr_between(start, end)
        for line in shown:
            math = read_math(line.text, decimal_comma)
            if math is None or (line.text, math["expression"]) in seen:
                continue
            if len(found) == MAX_EXPRESSIONS:  # refuse before reading the rest of a long range
                raise ToolError(f"more than {MAX_EXPRESSIONS} expressions in {format_range(start, end)}; ask about a shorter range")
            seen.add((line.text, math["expression"]))
            found.append(MathExpression(**span(max(start, line.start), min(end, line.end)), text=line.text, **math))
        note = None if found else "no mathematical expression is written on screen in this range"
        if not found and not shown:
            note = "no text at all is readable on screen in this range"
        return MathResult(timestamp=format_range(start, end), expressions=found, note=note)
