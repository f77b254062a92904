"""The calculator tool: arithmetic a small model writes, evaluated without ``eval``.

It parses with ``ast`` and walks a small whitelist, with bounds on length,
node count, nesting, exponent and result size, so no input can hang it,
exhaust memory or reach Python objects. It also reads the spellings small
models write (``×``, ``÷``, ``^``, ``1,234``, full-width digits, a trailing ``=``)
and the words they put in arithmetic (``17% of``, ``million``, ``的平方``, units; ``calc_words``).
"""

from __future__ import annotations

import ast
import keyword
import math
import operator
import re
import unicodedata
from collections.abc import Callable

from .calc_words import mixed_units, read_words
from .spec import tool

__all__ = ["CALCULATOR_TOOL", "CalculatorError", "calculate", "calculator", "format_number"]

CALCULATOR_TOOL = "calculator"
"""The calculator's name, which the loop's rules for questions that compute with found facts look for."""


class CalculatorError(ValueError):
    """An expression the calculator will not evaluate; the message is for the model."""


MAX_INPUT_CHARS = 2000
MAX_EXPRESSION_CHARS = 1000
MAX_NODES = 300
MAX_DEPTH = 60
MAX_EXPONENT = 1000
MAX_INT_BITS = 10_000  # about 3000 decimal digits
MAX_ARGS = 100

Number = int | float

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUPERSCRIPT_RUN = re.compile(r"[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_SPELLINGS = [  # applied after NFKC, which already maps full-width digits and operators
    (re.compile(r"√\s*(\d+(?:\.\d+)?)"), r"sqrt(\1)"),
    (re.compile(r"√"), "sqrt"),
    (re.compile(r"[×✕✖⋅∗]"), "*"),
    (re.compile(r"[÷∕⁄]"), "/"),
    (re.compile(r"[−–]"), "-"),
    (re.compile(r"π"), "pi"),
    (re.compile(r"\^"), "**"),
    (re.compile(r"(?<=[\d)])\s+[xX]\s+(?=[\d(])"), " * "),
]
_MULTI_ARG_CALL = re.compile(r"\b(min|max|round|log|pow)\s*\(")
_THOUSANDS = re.compile(r"(?<![\w.,])\d+(?:,\d{3})+(?![\d,])")
"""Grouped thousands, also mis-grouped ones (``4382,910``): a tuple has no arithmetic meaning."""


def _normalise(expression: str) -> str:
    """Rewrite common model spellings into Python arithmetic syntax."""
    # before NFKC, which would turn "3²" into "32"
    expression = _SUPERSCRIPT_RUN.sub(lambda m: "**(" + m.group().translate(_SUPERSCRIPTS) + ")", expression)
    expression = unicodedata.normalize("NFKC", expression)
    for pattern, replacement in _SPELLINGS:
        expression = pattern.sub(replacement, expression)
    expression = expression.strip().strip("`").strip()
    expression = re.sub(r"^=+|[=?\s]+$", "", expression).strip()
    if not _MULTI_ARG_CALL.search(expression):
        expression = _THOUSANDS.sub(lambda m: m.group().replace(",", ""), expression)
    return expression


def _check_size(value: Number) -> Number:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise CalculatorError("the result is too large (more than about 3000 digits)")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CalculatorError("the result is too large for a floating-point number")
        return value
    raise CalculatorError("the result is not a real number")


def _power(base: Number, exponent: Number) -> Number:
    if isinstance(base, int) and isinstance(exponent, int):
        if base in (0, 1) and exponent >= 0:
            return base if exponent else 1
        if base == -1:
            return 1 if exponent % 2 == 0 else -1
        if abs(exponent) > MAX_EXPONENT:
            shown = str(exponent) if exponent.bit_length() < 64 else "in the power"
            raise CalculatorError(f"the exponent {shown} is too large (limit {MAX_EXPONENT})")
        if exponent > 0 and abs(base).bit_length() * exponent > MAX_INT_BITS + 64:
            raise CalculatorError("the result is too large (more than about 3000 digits)")
        if exponent < 0 and base == 0:
            raise ZeroDivisionError
    return operator.pow(base, exponent)


def _multiply(a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
        raise CalculatorError("the result is too large (more than about 3000 digits)")
    return a * b


def _divide(a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int) and b != 0 and a % b == 0:
        return a // b  # keep integers exact
    return a / b


_BINARY: dict[type, Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: _multiply,
    ast.Div: _divide,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
}


def _as_int(value: Number, what: str) -> int:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    raise CalculatorError(f"{what} must be a whole number")


def _sqrt(x: Number) -> Number:
    if x < 0:
        raise CalculatorError("cannot take the square root of a negative number")
    if isinstance(x, int):
        root = math.isqrt(x)
        if root * root == x:
            return root
    return math.sqrt(x)


def _log(x: Number, base: Number | None = None) -> float:
    if x <= 0:
        raise CalculatorError("the logarithm is only defined for positive numbers")
    if base is None:
        return math.log(x)
    if base <= 0 or base == 1:
        raise CalculatorError("the base of a logarithm must be positive and not 1")
    return math.log(x, base)


def _round(x: Number, digits: Number | None = None) -> Number:
    if digits is None:
        return round(x)
    places = _as_int(digits, "the number of digits to round to")
    if abs(places) > 100:
        raise CalculatorError("round() keeps at most 100 digits")
    return round(x, places)


def _factorial(n: Number) -> int:
    whole = _as_int(n, "the factorial's argument")
    if whole < 0:
        raise CalculatorError("factorial is only defined for non-negative whole numbers")
    if whole > 1000:
        raise CalculatorError("factorial argument too large (limit 1000)")
    return math.factorial(whole)


def _positive_log(fn: Callable[[float], float]) -> Callable[[Number], float]:
    def checked(x: Number) -> float:
        if x <= 0:
            raise CalculatorError("the logarithm is only defined for positive numbers")
        return fn(x)
    return checked


# name -> (function, min args, max args)
_FUNCTIONS: dict[str, tuple[Callable[..., Number], int, int]] = {
    "sqrt": (_sqrt, 1, 1),
    "abs": (abs, 1, 1),
    "round": (_round, 1, 2),
    "min": (min, 1, MAX_ARGS),
    "max": (max, 1, MAX_ARGS),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "log": (_log, 1, 2),
    "ln": (_log, 1, 1),
    "log10": (_positive_log(math.log10), 1, 1),
    "log2": (_positive_log(math.log2), 1, 1),
    "exp": (math.exp, 1, 1),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
    "tan": (math.tan, 1, 1),
    "pow": (_power, 2, 2),
    "factorial": (_factorial, 1, 1),
}
_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}
_HELP = "allowed are numbers, + - * / // % **, parentheses, " + ", ".join(_FUNCTIONS) + ", pi and e"


class _Evaluator:
    """Walks a parsed expression, allowing only arithmetic nodes."""

    def evaluate(self, node: ast.AST, depth: int = 0) -> Number:
        if depth > MAX_DEPTH:
            raise CalculatorError("the expression is nested too deeply")
        if isinstance(node, ast.Expression):
            return self.evaluate(node.body, depth + 1)
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                kind = "complex numbers" if isinstance(value, complex) else f"the value {value!r:.40}"
                raise CalculatorError(f"{kind} cannot be used; {_HELP}")
            return _check_size(value)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left = self.evaluate(node.left, depth + 1)
            right = self.evaluate(node.right, depth + 1)
            return _check_size(_BINARY[type(node.op)](left, right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            value = self.evaluate(node.operand, depth + 1)
            return -value if isinstance(node.op, ast.USub) else +value
        if isinstance(node, ast.Name):
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            if node.id in _FUNCTIONS:
                raise CalculatorError(f"{node.id} is a function; write it with parentheses, e.g. {node.id}(2)")
            raise CalculatorError(f"unknown name {node.id[:40]!r}; {_HELP}")
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        raise CalculatorError(f"{_describe(node)} is not allowed; {_HELP}")

    def call(self, node: ast.Call, depth: int) -> Number:
        if not isinstance(node.func, ast.Name):
            raise CalculatorError(f"{_describe(node.func)} is not allowed; {_HELP}")
        if node.func.id not in _FUNCTIONS:
            raise CalculatorError(f"unknown function {node.func.id[:40]!r}; {_HELP}")
        name = node.func.id
        fn, low, high = _FUNCTIONS[name]
        if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
            raise CalculatorError(f"{name}() takes plain positional numbers")
        if not low <= len(node.args) <= high:
            count = str(low) if low == high else f"{low} to {high}"
            raise CalculatorError(f"{name}() takes {count} argument(s), got {len(node.args)}")
        args = [self.evaluate(arg, depth + 1) for arg in node.args]
        return _check_size(fn(*args))


def _describe(node: ast.AST) -> str:
    names = {ast.Attribute: "attribute access", ast.Subscript: "indexing", ast.Compare: "comparison",
             ast.BoolOp: "and/or", ast.Lambda: "lambda", ast.Tuple: "a tuple (a comma outside a function call)",
             ast.List: "a list", ast.Dict: "a dict", ast.IfExp: "if/else", ast.JoinedStr: "an f-string"}
    for kind, label in names.items():
        if isinstance(node, kind):
            return label
    if isinstance(node, ast.BinOp):
        return f"the operator {type(node.op).__name__}"
    if isinstance(node, ast.UnaryOp):
        return f"the operator {type(node.op).__name__}"
    return type(node).__name__


_DIGITS = r"\d(?:_?\d)*"
_TOKEN = re.compile(
    rf"(?P<number>(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?)"
    r"|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|//|[-+*/%(),])|(?P<space>\s+)", re.ASCII)


def _check_tokens(text: str) -> None:
    """Reject anything but numbers, names, operators and parentheses before Python's parser sees it.

    This gives the model a precise message and keeps the parser away from
    strings, attributes and keywords (and from the SyntaxWarnings they raise).
    """
    position, previous = 0, ""
    while position < len(text):
        token = _TOKEN.match(text, position)
        if token is None:
            raise CalculatorError(f"cannot read {text[position]!r} at position {position + 1}; {_HELP}")
        kind = token.lastgroup or ""
        if kind == "name" and keyword.iskeyword(token.group()):
            raise CalculatorError(f"cannot read the word {token.group()!r} in arithmetic; {_HELP}")
        if kind == "name" and previous == "number":
            raise CalculatorError("cannot read a number followed directly by a name; "
                                  "write the operator, e.g. 2 * pi")
        previous = kind
        position = token.end()


def calculate(expression: str) -> str:
    """Evaluate arithmetic exactly where possible; raises only ``CalculatorError``."""
    if not isinstance(expression, str):
        raise CalculatorError("the expression must be text, e.g. (4 + 6) * 2.5")
    if len(expression) > MAX_INPUT_CHARS:
        raise CalculatorError(f"the expression is too long ({len(expression)} characters)")
    text, units = read_words(_normalise(expression))
    if mixed_units(text, units):
        raise CalculatorError(f"the units differ ({', '.join(units)}); convert them to one unit first")
    if not text:
        raise CalculatorError("the expression is empty; write one such as (4 + 6) * 2.5")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"the expression is too long ({len(text)} characters, limit {MAX_EXPRESSION_CHARS})")
    _check_tokens(text)
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        raise CalculatorError(f"cannot read {text[:80]!r} as arithmetic; {_HELP}") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalculatorError(f"the expression has too many parts (limit {MAX_NODES})")
    try:
        value = _Evaluator().evaluate(tree)
    except ZeroDivisionError:
        raise CalculatorError("division by zero") from None
    except OverflowError:
        raise CalculatorError("the result is too large for a floating-point number") from None
    except (ValueError, TypeError) as exc:
        if isinstance(exc, CalculatorError):
            raise
        raise CalculatorError(f"math error: {exc}") from None
    except (RecursionError, MemoryError):
        raise CalculatorError("the expression is too complex") from None
    return f"{format_number(value)} (= {text})" if units else format_number(value)


def format_number(value: Number) -> str:
    """Compact text for a number: integers exact, floats to 10 significant digits."""
    if isinstance(value, int):
        return str(value)
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return format(value, ".10g")


@tool(examples={"expression": "(4 + 6) * 2.5"}, timeout=5.0, cacheable=True, version="1", aliases=("计算器",))
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression, such as (4 + 6) * 2.5 or sqrt(2) ** 3.

    Supports + - * / // % ** (or ^), parentheses, sqrt, abs, round, min, max,
    floor, ceil, log, exp, sin, cos, tan, pi and e.

    Args:
        expression: the arithmetic to evaluate, e.g. (4 + 6) * 2.5
    """
    return calculate(expression)
