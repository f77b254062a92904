"""Deciding whether a final answer is right: one pure rule per match kind.

Small models answer in sentences, in two languages, with full-width digits,
thousands separators and their own working shown. A success rate is only worth
comparing if these rules are strict enough that hedging does not pass and
lenient enough that formatting does not fail; ``suites/README.md`` documents
each rule and the tests pin them down.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Iterable, Sequence, Union

import regex

from .refusals import canonical, is_refusal

MATCH_KINDS: tuple[str, ...] = ("exact", "number", "contains", "regex", "one_of", "refusal")

Tolerance = Union[float, int, str, None]

_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}"
_SPACE_NEXT_TO_CJK = regex.compile(rf"(?<=[{_CJK}])\s+|\s+(?=[{_CJK}])")
# A letter or digit that is not CJK: the characters a word boundary is about.
_WORD_CHAR = regex.compile(rf"[^\W{_CJK}]")


def normalize_text(text: str) -> str:
    """Canonical form for ``exact`` and ``contains``: case-folded, punctuation
    and symbols turned into spaces, runs of space collapsed, and no space next
    to CJK characters (Chinese is written without spaces)."""
    folded = canonical(text).casefold()
    chars = [" " if unicodedata.category(c)[0] in "PSZC" else c for c in folded]
    collapsed = " ".join("".join(chars).split())
    return _SPACE_NEXT_TO_CJK.sub("", collapsed)


def contains_phrase(answer: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``answer`` after normalisation, as whole
    words: expected ``3`` is not found in ``13`` nor ``Orin`` in ``Orinoco``.
    CJK characters need no boundary."""
    needle = normalize_text(phrase)
    if not needle:
        return False
    hay = normalize_text(answer)
    start = hay.find(needle)
    while start >= 0:
        end = start + len(needle)
        clash_before = start > 0 and _is_word(needle[0]) and _is_word(hay[start - 1])
        clash_after = end < len(hay) and _is_word(needle[-1]) and _is_word(hay[end])
        if not clash_before and not clash_after:
            return True
        start = hay.find(needle, start + 1)
    return False


def _is_word(char: str) -> bool:
    return _WORD_CHAR.match(char) is not None


# --- numbers ------------------------------------------------------------------

_SCALES = {
    "%": 0.01, "percent": 0.01, "per cent": 0.01,
    "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
    "千": 1e3, "万": 1e4, "十万": 1e5, "百万": 1e6, "千万": 1e7, "亿": 1e8,
}

_NUMBER = regex.compile(
    r"""
    (?P<percent_prefix>百分之\s*)?
    (?P<sign>(?<![0-9A-Za-z.,)\]])[-+])?
    (?P<digits>
        (?<![0-9.])
        (?: [0-9]{1,3}(?:,[0-9]{3})+(?![0-9]) | [0-9]+ )
        (?:\.[0-9]+)?
      | (?<![0-9])\.[0-9]+
    )
    (?P<exponent>[eE][-+]?[0-9]+)?
    (?:\s*(?P<scale>%|per\s*cent\b|percent\b|thousand\b|million\b|billion\b|trillion\b
                    |十万|百万|千万|千|万|亿))?
    """,
    regex.VERBOSE | regex.IGNORECASE,
)

# Thin and no-break spaces as thousands separators ("3 379"); NFKC would turn
# them into plain spaces, which are not read as separators.
_DIGIT_GROUP_SPACE = regex.compile(r"(?<=\d)[\u00a0\u2009\u202f](?=\d{3}(?!\d))")

_OPENERS, _CLOSERS = "([{", ")]}"


@dataclass(frozen=True)
class NumberMention:
    """One number written in a text.

    ``values`` holds every reading a human would accept: the face value, and
    for a scale word or a percent sign also the scaled value ("3.5万" is 3.5
    and 35000; "12%" is 12 and 0.12). ``bracketed`` marks numbers inside
    parentheses, where models put their working rather than their answer.
    """

    text: str
    values: tuple[float, ...]
    start: int
    """Offset in the canonical text (see ``canonical``), not in the raw answer."""
    bracketed: bool


def extract_numbers(text: str) -> list[NumberMention]:
    """Every number in ``text`` in order, read from its canonical form:
    "3,379", "3379.0", "３３７９", "-5", "1.5e6", "2.35亿", "12.5%".
    Numbers written as words ("three", "三千") are not read."""
    canon = canonical(_DIGIT_GROUP_SPACE.sub("", text))
    depth_at = _bracket_depths(canon)
    mentions = []
    for m in _NUMBER.finditer(canon):
        digits = m["digits"].replace(",", "")
        face = float(f"{m['sign'] or ''}{digits}{m['exponent'] or ''}")
        scale_word = regex.sub(r"\s+", " ", (m["scale"] or "").casefold())
        if m["percent_prefix"]:
            scale_word = "%"
        values = [face]
        if scale_word:
            values.append(face * _SCALES[scale_word])
        mentions.append(NumberMention(m.group(0).strip(), tuple(values), m.start(), depth_at[m.start()] > 0))
    return mentions


def _bracket_depths(text: str) -> list[int]:
    depths, depth = [], 0
    for char in text:
        if char in _CLOSERS:
            depth = max(0, depth - 1)
        depths.append(depth)
        if char in _OPENERS:
            depth += 1
    depths.append(depth)
    return depths


def deciding_number(answer: str, copied: Iterable[float] = ()) -> NumberMention | None:
    """The one number of ``answer`` that is judged.

    It is the last number that is neither inside brackets nor ``copied`` (a
    value the task itself states, see ``number_matches``); when every number
    is bracketed or copied, the last one outside brackets, else simply the
    last one. So "1,008,737 (7,384 × 129 + 56,201)" and "307 years passed
    between 1687 and 1994" are judged by their result, while "96,426 or maybe
    96,500" is judged by 96,500 and does not pass by listing the right number
    among guesses.
    """
    mentions = extract_numbers(answer)
    if not mentions:
        return None
    copied = set(copied)
    new = [m for m in mentions if not copied.intersection(m.values)]
    for tier in (
        [m for m in new if not m.bracketed],
        new,
        [m for m in mentions if not m.bracketed],
        mentions,
    ):
        if tier:
            return tier[-1]
    return None  # pragma: no cover - mentions is not empty


def parse_tolerance(tolerance: Tolerance) -> tuple[float, bool]:
    """``(amount, relative)`` from a suite's tolerance: a number is absolute,
    a string like ``"1%"`` is relative to the expected value. Raises
    ValueError with the reason for anything else."""
    if tolerance is None:
        return 0.0, False
    if isinstance(tolerance, bool):
        raise ValueError("tolerance must be a number or a percentage string like \"1%\", not a boolean")
    if isinstance(tolerance, (int, float)):
        amount, relative = float(tolerance), False
    elif isinstance(tolerance, str) and tolerance.strip().endswith("%"):
        try:
            amount, relative = float(tolerance.strip()[:-1]), True
        except ValueError:
            raise ValueError(f"tolerance {tolerance!r} is not a percentage like \"1%\"") from None
    else:
        raise ValueError(f"tolerance {tolerance!r} must be a number (absolute) or a string like \"1%\" (relative)")
    if not amount >= 0 or amount == float("inf"):
        raise ValueError(f"tolerance {tolerance!r} must be a finite number >= 0")
    return amount, relative


def within(value: float, expected: float, tolerance: Tolerance = None) -> bool:
    """``|value - expected|`` within the tolerance; with none, equal up to
    float rounding (1e-9 relative), so 3379.0 equals 3379."""
    amount, relative = parse_tolerance(tolerance)
    allowed = abs(expected) * amount / 100 if relative else amount
    allowed += 1e-9 * max(1.0, abs(expected))
    return abs(value - expected) <= allowed


def number_matches(
    answer: str, expected: float, tolerance: Tolerance = None, context: Sequence[str] = ()
) -> bool:
    """Whether the deciding number of ``answer`` (any of its readings) is
    ``expected`` within ``tolerance``.

    ``context`` holds the texts whose numbers an answer may repeat without
    them counting as its result: the question and the facts the task is built
    on. A context number equal to ``expected`` is never treated as copied.
    """
    copied = {
        value
        for text in context
        for mention in extract_numbers(text)
        for value in mention.values
        if not within(value, expected, tolerance)
    }
    mention = deciding_number(answer, copied)
    return mention is not None and any(within(v, float(expected), tolerance) for v in mention.values)


# --- the dispatcher ------------------------------------------------------------

def answer_matches(
    kind: str,
    expected: object,
    answer: str | None,
    *,
    tolerance: Tolerance = None,
    context: Sequence[str] = (),
) -> bool:
    """Judge ``answer`` by one match kind. A missing or blank answer (a run
    that gave up or hit a limit) never matches, not even ``refusal``.
    ``context`` is only read by ``number`` (see ``number_matches``)."""
    if answer is None or not answer.strip():
        return False
    if kind == "exact":
        return normalize_text(answer) == normalize_text(str(expected))
    if kind == "number":
        return number_matches(answer, _as_float(expected), tolerance, context)
    if kind == "contains":
        return contains_phrase(answer, str(expected))
    if kind == "one_of":
        return any(contains_phrase(answer, str(option)) for option in _as_options(expected))
    if kind == "regex":
        return regex.search(str(expected), canonical(answer), regex.IGNORECASE) is not None
    if kind == "refusal":
        return is_refusal(answer)
    raise ValueError(f"unknown match kind {kind!r}; expected one of {', '.join(MATCH_KINDS)}")


def _as_float(expected: object) -> float:
    if isinstance(expected, bool) or not isinstance(expected, (int, float, str)):
        raise ValueError(f"expected value {expected!r} is not a number")
    return float(str(expected).replace(",", "")) if isinstance(expected, str) else float(expected)


def _as_options(expected: object) -> Sequence[str]:
    if isinstance(expected, str):
        return (expected,)
    return tuple(str(option) for option in expected)  # type: ignore[union-attr]
