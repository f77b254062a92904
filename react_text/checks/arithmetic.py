"""Arithmetic a model works out in its own words ("1,842 - 264 = 1,678"), and whether it is right.

Why: given the facts and the operation, a small model writes the right expression and then
the wrong result, in its head, instead of calling the calculator ("11,240 + 9,860 = 21,000",
"735 * 3 = 2105"). The loop checks such a claim once and shows the true result as a
correction. Only claims on numbers the run has seen (the question's and the results') are
checked: "96,426 * 2 = 96,426" after a correct "48,213 * 2 = 96,426" is the model talking to
itself, and correcting it would push a wrong answer. Pure functions; the caller evaluates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from ..lexicon.numbers import digits_value
from ..lexicon.question import NUMBER, numbers_in

__all__ = ["Slip", "arithmetic_slip"]

_NUMBER = NUMBER.pattern
_CLAIM = re.compile(
    rf"(?P<expr>[(\s]*{_NUMBER}[)\s]*(?:[-+*/×÷][(\s]*{_NUMBER}[)\s]*)+)(?:=|≈|约等于|等于)\s*(?P<value>-?{_NUMBER})(?!\s*[-+*/×÷(]|[\d,.]*\d)")
"""An expression of numbers and operators, then "=" (or "≈", 等于) and the number it is said to make (a
number alone: "= 1008737 * 129" restates the expression, it claims no result)."""
_FREE = 100
"""Whole numbers up to this need not be seen: factors and percentages ("* 2", "/ 100")."""


@dataclass(frozen=True)
class Slip:
    """A claim that does not hold: ``expression`` makes ``result``, not ``claimed``."""

    expression: str
    claimed: str
    result: str


def arithmetic_slip(text: str, seen: Iterable[str], evaluate: Callable[[str], str]) -> Slip | None:
    """The first claim in ``text`` on numbers from ``seen`` (or small whole ones) whose result is wrong.

    ``evaluate`` turns an expression into its result's text and raises ``ValueError`` on one it
    cannot read. A rounded result passes ("1926 / 142 ≈ 13.6"): it may be off by half its own last
    digit, or by a thousandth of the true value.
    """
    known = numbers_in(" ".join(seen))
    for m in _CLAIM.finditer(text):
        expression = " ".join(m.group("expr").replace(",", "").replace("×", "*").replace("÷", "/").split())
        operands = numbers_in(expression)
        if not all(n in known or (n.isdigit() and int(n) <= _FREE) for n in operands):
            continue
        try:
            result = evaluate(expression)
            true, claimed = float(result), digits_value(m.group("value"))
        except (ValueError, ArithmeticError):
            continue
        if claimed is None:
            continue
        decimals = len(m.group("value").partition(".")[2])
        if abs(true - claimed) <= max(0.5 * 10 ** -decimals, 0.001 * abs(true)):
            return None  # the first checkable claim is right: what follows builds on it
        return Slip(expression, m.group("value"), result)
    return None
