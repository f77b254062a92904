"""Morse code and Roman numerals, both ways."""

from __future__ import annotations

from ...tools.spec import tool


_MORSE = {"A": ".-", "B": "-...", "C": "-.-.", "D": "-..", "E": ".", "F": "..-.", "G": "--.", "H": "....",
          "I": "..", "J": ".---", "K": "-.-", "L": ".-..", "M": "--", "N": "-.", "O": "---", "P": ".--.",
          "Q": "--.-", "R": ".-.", "S": "...", "T": "-", "U": "..-", "V": "...-", "W": ".--", "X": "-..-",
          "Y": "-.--", "Z": "--..", "0": "-----", "1": ".----", "2": "..---", "3": "...--", "4": "....-",
          "5": ".....", "6": "-....", "7": "--...", "8": "---..", "9": "----."}


@tool
def morse_encode(text: str) -> str:
    """Encode text as Morse code (letters separated by spaces, words by ' / ').

    Args:
        text: letters and digits to encode
    """
    words = [" ".join(_MORSE[c] for c in word.upper() if c in _MORSE) for word in text.split()]
    return " / ".join(w for w in words if w) or "Nothing to encode: use letters or digits."


@tool
def morse_decode(code: str) -> str:
    """Decode Morse code (dots and dashes, letters separated by spaces, words by '/') into text.

    Args:
        code: Morse code such as '... --- ...'
    """
    back = {v: k for k, v in _MORSE.items()}
    words = []
    for word in code.split("/"):
        letters = [back.get(sym, "?") for sym in word.split()]
        words.append("".join(letters))
    return " ".join(w for w in words if w) or "Nothing to decode."


_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
          (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


@tool
def int_to_roman(number: int) -> str:
    """Write a whole number from 1 to 3999 as a Roman numeral.

    Args:
        number: the number
    """
    if not 1 <= number <= 3999:
        return "Roman numerals here cover 1 to 3999."
    out = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


@tool
def roman_to_int(numeral: str) -> str:
    """Read a Roman numeral (such as MCMXCIV) as a whole number.

    Args:
        numeral: the Roman numeral
    """
    text = numeral.strip().upper()
    values = dict((letters, value) for value, letters in _ROMAN if len(letters) == 1)
    if not text or any(c not in values for c in text):
        return f"{numeral.strip()[:30]!r} is not a Roman numeral (letters I V X L C D M)."
    total = 0
    for i, c in enumerate(text):
        v = values[c]
        total += -v if i + 1 < len(text) and values[text[i + 1]] > v else v
    return str(total)
