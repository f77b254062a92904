"""Reading the words small models put into arithmetic, before the calculator parses it.

Why: asked to compute, a 0.5B model writes ``17% of 846300``, ``318.6 million / 1842``,
``3 的 25 次方`` or ``87 公里/小时 * 36 小时 + 1,245 公里``. Each has one arithmetic meaning,
and an error only makes the model rewrite the expression, usually dropping a term
(``87 * 36``). So the calculator reads them:

- percent: ``17% of X`` and ``X * 17%`` are ``17/100``;
- scale words: thousand, million, billion, trillion, 万, 亿, 百万, 千万, exactly;
- operator words: plus, minus, times, multiplied by, divided by, to the power of,
  squared, cubed, 加, 减, 乘以, 除以, 的平方, 的立方, 的 N 次方;
- units after a number (``36 hours``, ``1,245 公里``) are left out, but only in an
  expression that has an operator, and the result then says what was computed
  (``4377 (= 87 * 36 + 1245)``), so a reading that mixed units is visible.

Pure text in, text out; the calculator's own checks still see every character.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["mixed_units", "read_words"]

_NUMBER = r"\d+(?:\.\d+)?"
_SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12,
           "千万": 7, "百万": 6, "万": 4, "亿": 8}
_SCALE = re.compile(rf"({_NUMBER})\s*(thousand|million|billion|trillion|千万|百万|万|亿)(?![a-z])", re.IGNORECASE)
_PERCENT_OF = re.compile(rf"({_NUMBER})\s*%\s*(?:of\b|的)\s*", re.IGNORECASE)
_PERCENT = re.compile(rf"({_NUMBER})\s*%(?!\s*[\d.(])")
_WORD_OPERATORS = [
    (re.compile(r"\s*的\s*(\d+)\s*次(?:方|幂)"), r" ** \1"),
    (re.compile(r"\s*的平方(?!根)"), " ** 2"),
    (re.compile(r"\s*的立方(?!根)"), " ** 3"),
    (re.compile(r"\b(?:raised\s+)?to\s+the\s+power\s+of\b", re.IGNORECASE), "**"),
    (re.compile(r"\bsquared\b", re.IGNORECASE), "** 2"),
    (re.compile(r"\bcubed\b", re.IGNORECASE), "** 3"),
    (re.compile(r"\bmultiplied\s+by\b|\btimes\b", re.IGNORECASE), "*"),
    (re.compile(r"\bdivided\s+by\b", re.IGNORECASE), "/"),
    (re.compile(r"\bplus\b", re.IGNORECASE), "+"),
    (re.compile(r"\bminus\b", re.IGNORECASE), "-"),
    (re.compile(r"(?<=[\d)\s])(?:乘以|乘)(?=\s*[\d(])"), " * "),
    (re.compile(r"(?<=[\d)\s])除以(?=\s*[\d(])"), " / "),
    (re.compile(r"(?<=[\d)\s])(?:加上|加)(?=\s*[\d(])"), " + "),
    (re.compile(r"(?<=[\d)\s])(?:减去|减)(?=\s*[\d(])"), " - "),
]
"""Chinese operator words only between operands: 加 and 减 also start words (加仑, 减少)."""
_CURRENCY = re.compile(r"[$€£¥￥](?=\s*\d)")
_KEPT_NAMES = frozenset("pi e tau sqrt abs round min max floor ceil log ln log10 log2 exp sin cos tan pow factorial".split())
_WORD = r"[^\W\d_]+"
_UNIT = re.compile(
    rf"(?<=\d)(?P<unit>\s*{_WORD}(?:\s*(?:/|\bper\b)\s*{_WORD})?(?:\s+{_WORD}){{0,2}})"
    r"(?=\s*(?:[-+*/)]|$))")
_OPERATOR = re.compile(r"\d[\s)]*(?:\*\*|[-+*/])[\s(]*\d")


def _scaled(number: str, power: int) -> str:
    """``2.35`` and 8 give ``235000000``: the scale moves the decimal point, exactly."""
    try:
        value = Decimal(number).scaleb(power)
    except InvalidOperation:
        return number
    return format(value.normalize(), "f") if value != value.to_integral_value() else str(int(value))


def _unit_words(match: re.Match[str]) -> str | None:
    """The unit after a number, or None for a name the calculator knows (``2 pi``) or a one-letter
    suffix glued to the number (``1j``), which are not units."""
    words = match.group("unit")
    first = re.match(rf"\s*({_WORD})", words)
    name = first.group(1) if first else ""
    if name.casefold() in _KEPT_NAMES or (not words[:1].isspace() and len(name) < 2 and name.isascii()):
        return None
    return " ".join(words.split())


def read_words(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with the words above read as arithmetic, and the units left out (empty when none)."""
    text = _CURRENCY.sub("", text)
    text = _SCALE.sub(lambda m: _scaled(m.group(1), _SCALES[m.group(2).casefold()]), text)
    text = _PERCENT_OF.sub(r"(\1 / 100) * ", text)
    text = _PERCENT.sub(r"(\1 / 100)", text)
    for pattern, replacement in _WORD_OPERATORS:
        text = pattern.sub(replacement, text)
    units: list[str] = []

    def drop(match: re.Match[str]) -> str:
        unit = _unit_words(match)
        if unit is None:
            return match.group()
        units.append(unit)
        return ""

    without_units = _UNIT.sub(drop, text)
    if units and _OPERATOR.search(without_units):
        return " ".join(without_units.split()), tuple(units)
    return text, ()


def mixed_units(text: str, units: tuple[str, ...]) -> bool:
    """Sums of different units (``5 kg + 300 g``): only products and quotients may mix them
    (``87 km/h * 36 h``), so a sum that does is an error for the model to fix, not a number."""
    return len({unit.casefold() for unit in units}) > 1 and not re.search(r"[*/]", text)
