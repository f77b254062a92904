"""What a question itself holds and asks: its numbers, a quoted passage, whether a number is asked
for, and whether an answer was read off the question's quote.

Why apart from ``checks.answers``: the answer checks, the evidence quote and the episode values all read a
question (and an answer) the same way; this is that one reading. Pure functions over text.
"""

from __future__ import annotations

import re

from .numbers import NUMBER, ZH_NUMERAL, number_value

__all__ = ["NUMBER", "asked_decimals", "asks_for_name", "asks_for_number", "from_quote", "numbers_in", "plain_words", "question_holds",
           "quoted_text", "written_numbers"]



def numbers_in(text: str) -> set[str]:
    """The numbers written in ``text``, digits only ("48,213." -> "48213"): how the checks compare values."""
    return {raw.replace(",", "").rstrip(".") for raw in written_numbers(text)}


def written_numbers(text: str) -> list[str]:
    """The numbers in ``text`` as written ("48,213", "2.40"), in order."""
    return NUMBER.findall(text)


# A question that asks for a quantity, a year or a count: its answer must hold a number.
_ASKS_NUMBER = re.compile(
    r"\bhow\s+(?:many|much|long|deep|high|tall|far|old|wide|big|heavy|large)\b|\b(?:what|which)\s+year\b|"
    r"\bpopulation\b|多少|几[个年天名人岁次座条本辆位种米公]|哪一?年",
    re.IGNORECASE,
)


def asks_for_number(question: str) -> bool:
    """Whether ``question`` asks for a number ("how many", "what year", "多少", "哪一年", ...)."""
    return _ASKS_NUMBER.search(question) is not None


_ASKS_WHICH = re.compile(r"\b(?:who|whom|which|what|where)\b|哪|谁|什么", re.IGNORECASE)
_OFFERS_CHOICE = re.compile(r"\bor\b|还是|或", re.IGNORECASE)


def asks_for_name(question: str) -> bool:
    """Whether ``question`` asks who, which or what, and offers no choice ("… A or B?") nor asks for a number."""
    return (_ASKS_WHICH.search(question) is not None and _OFFERS_CHOICE.search(question) is None
            and not asks_for_number(question))


# An operation on numbers the question itself gives ("the sum of 4,728 and 9,365", "250 乘以 48").
_OPERATION = re.compile(
    r"\b(?:sum|plus|add|added|minus|subtract(?:ed)?|difference|times|multiplied|product|divided|percent)\b|%|"
    r"加|减|乘|除以|之和|百分之",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"[\"“「『]([^\"”」』]{6,})[\"”」』]|'([^']{12,})'")


def quoted_text(question: str) -> str | None:
    """The passage ``question`` quotes ("in this sentence: '...'", "便条上写着：“...”"), if any."""
    found = _QUOTED.search(question)
    return None if found is None else (found.group(1) or found.group(2)).strip()


def question_holds(question: str, tool_names: tuple[str, ...]) -> str | None:
    """What ``question`` itself holds that answers it: ``"numbers"`` (two or more of its own and an
    operation on them, with the calculator offered) or ``"quote"`` (a quoted passage); else None."""
    if len(numbers_in(question)) >= 2 and _OPERATION.search(question) and "calculator" in tool_names:
        return "numbers"
    return "quote" if quoted_text(question) is not None else None


def from_quote(answer: str, question: str) -> bool:
    """The answer is read off the passage the question quotes ("212" for "A note says: 'The ferry
    carries 212 passengers.'"): its numbers, or else its words, are all in the quote."""
    quote = quoted_text(question)
    if quote is None:
        return False
    numbers = numbers_in(answer)
    if numbers:
        return numbers <= numbers_in(quote)
    words = plain_words(answer)
    return bool(words) and words in plain_words(quote)


def plain_words(text: str) -> str:
    """Words only, folded, single-spaced: how an answer is found in a quote (or the question) whatever its
    punctuation."""
    return " ".join(re.sub(r"[^\w\s]", " ", text).split()).casefold()


_DECIMALS = re.compile(rf"\b(\d+|[a-z]+)\s+decimal\s+places?\b|保留(\d+|{ZH_NUMERAL.pattern})位小数", re.IGNORECASE)
_FRACTIONS = {"tenth": 1, "hundredth": 2, "thousandth": 3}
_NEAREST = re.compile(r"\b(?:round(?:ed|ing)?\s+)?to\s+(?:the\s+)?nearest\s+(?:whole\s+)?([a-z]+)"
                      r"|\bnearest\s+(?:whole|integer)\b|\bwhole\s+number\b|四舍五入到整数|取整|精确到个位|保留整数",
                      re.IGNORECASE)
"""Rounding to a unit: "to the nearest pound", "rounded to nearest percent", "to the nearest tenth" (any unit
word: the question names its own), "四舍五入到整数"."""
_SCALES = frozenset({"ten", "hundred", "thousand", "million"})
"""Rounding to the nearest ten, hundred, ...: no decimals to check, and not a whole number either."""


def asked_decimals(question: str) -> int | None:
    """How many decimals the question asks its answer to be rounded to ("to two decimal places": 2,
    "to the nearest whole number", "四舍五入到整数": 0), or None when it asks for no rounding."""
    for found in _DECIMALS.finditer(question):
        places = number_value(found.group(1) or found.group(2))
        if places is not None:
            return int(places)
    for found in _NEAREST.finditer(question):
        unit = (found.group(1) or "").casefold().rstrip("s")
        if unit in _SCALES:
            continue
        return _FRACTIONS.get(unit, 0)
    return None
