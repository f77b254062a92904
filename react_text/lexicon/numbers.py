"""Numbers as written, in digits or words: the one definition every reader of questions, answers and call values uses.

Why one: the answer checks, the rounding request and the call-values check each kept their own list of
number words, and one of them lacked the teens and sixty to ninety, so "Fifteen boats" was told it held
no number. Pure data and functions over text.
"""

from __future__ import annotations

import regex

from . import en, zh

__all__ = ["EN_NUMBER_WORDS", "NUMBER", "ZH_NUMERAL", "digits_value", "en_number_words", "number_value", "numbers_at",
           "percentages", "scaled_numbers", "written_number", "zh_value"]

NUMBER = regex.compile(r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?)")
"""A number as written in digits: thousands commas, decimals ("48,213", "2.40"). A comma not followed by
three digits separates numbers: "3,4,5,2" is four of them, as a list written without spaces means."""
EN_NUMBER_WORDS = en.NUMBER_WORDS
_ZH_DIGITS, _ZH_UNITS = zh.DIGITS, zh.NUMBER_UNITS
ZH_NUMERAL = regex.compile(f"[{''.join(_ZH_DIGITS)}{''.join(_ZH_UNITS)}]+")
"""A Chinese numeral (``三``, ``十二``, ``两千``)."""

_PERCENT = regex.compile(
    rf"(?<![\d.,])({NUMBER.pattern})\s*(?:[%％]|(?:{'|'.join(en.PERCENT_WORDS)})\b)"
    rf"|{zh.PERCENT}({NUMBER.pattern}|{ZH_NUMERAL.pattern})", regex.IGNORECASE)
_ZH_SCALES = {unit: zh.NUMBER_UNITS[unit] for unit in "万亿"}
_SCALED = regex.compile(
    rf"(?<![\d.,])({NUMBER.pattern})\s*(?:({'|'.join(en.SCALE_WORDS)})\b|([{''.join(_ZH_SCALES)}]))", regex.IGNORECASE)
_EN_WORD = regex.compile(rf"\b(?:{'|'.join(sorted(EN_NUMBER_WORDS, key=len, reverse=True))})\b", regex.IGNORECASE)
_NUMBER_OR_WORD = regex.compile(rf"\d|{ZH_NUMERAL.pattern}|{_EN_WORD.pattern}", regex.IGNORECASE)


def written_number(text: str) -> bool:
    """Whether ``text`` holds a number: digits, an English number word or a Chinese numeral."""
    return _NUMBER_OR_WORD.search(text) is not None


def zh_value(text: str) -> float:
    """``三`` → 3, ``十二`` → 12, ``二十五`` → 25, ``三百`` → 300 (enough for what questions say)."""
    total, digit = 0, 0
    for ch in text:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        else:
            total += (digit or 1) * _ZH_UNITS[ch]
            digit = 0
    return float(total + digit)


def number_value(word: str) -> float | None:
    """The value of one number as written: digits (``4``), an English word (``four``) or a Chinese numeral
    (``四``); None for anything else."""
    word = word.strip().casefold()
    if word.isdigit():
        return float(word)
    if word in EN_NUMBER_WORDS:
        return EN_NUMBER_WORDS[word]
    return zh_value(word) if ZH_NUMERAL.fullmatch(word) else None


def en_number_words(text: str) -> list[str]:
    """The English number words in ``text``, folded, in order."""
    return [m.casefold() for m in _EN_WORD.findall(text)]


def percentages(text: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The numbers ``text`` writes as percentages ("5%", "5 percent", "百分之五": 5.0), and those it writes
    without a percent sign or word, each in the order written."""
    shares = [digits_value(m[1]) if m[1] else (digits_value(m[2]) if m[2][0].isdigit() else zh_value(m[2]))
              for m in _PERCENT.finditer(text)]
    rest = _PERCENT.sub(" ", text)
    bare = [digits_value(m[0]) for m in NUMBER.finditer(rest)]
    return (tuple(dict.fromkeys(v for v in shares if v is not None)),
            tuple(dict.fromkeys(v for v in bare if v is not None)))


def digits_value(written: str) -> float | None:
    """The value of a number written in digits, as every check reads one: thousands commas dropped, a Unicode
    minus read as "-", a full stop that ends the sentence left off ("48,213." is 48213); None when ``float``
    cannot read it (``\\d`` takes every Unicode digit, ``float`` only those its tables know: U+11F50, a Kawi
    digit, is one Hypothesis found)."""
    try:
        return float(written.replace(",", "").replace("−", "-").rstrip("."))
    except ValueError:
        return None


def numbers_at(text: str) -> list[tuple[int, int, float]]:
    """Each number ``text`` writes in digits: where it starts and ends, and its value (``digits_value``); for the
    checks that read which words stand beside a value."""
    return [(m.start(), m.end(), value) for m in NUMBER.finditer(text) if (value := digits_value(m[0])) is not None]


def scaled_numbers(text: str) -> list[float]:
    """The values of the numbers ``text`` writes in digits with a scale word after them, in order: "1.267 billion"
    is 1,267,000,000, "50 million" 50,000,000, "3.5万" 35,000. A call passes such a value whole."""
    found = []
    for m in _SCALED.finditer(text):
        value = digits_value(m[1])
        scale = en.SCALE_WORDS[m[2].casefold()] if m[2] else _ZH_SCALES[m[3]]
        if value is not None:
            found.append(round(value * scale, 6))
    return found
