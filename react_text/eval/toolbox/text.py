"""String utilities: counting, casing, ciphers, hashes and Base64."""

from __future__ import annotations

import base64
import hashlib
import re
import unicodedata

from ...tools.spec import tool


@tool
def reverse_text(text: str) -> str:
    """Reverse a string character by character.

    Args:
        text: the text to reverse
    """
    return text[::-1]


@tool
def count_letter(text: str, letter: str) -> str:
    """Count how many times a letter or character occurs in a text (case-insensitive).

    Args:
        text: the text to look in
        letter: the character to count
    """
    if len(letter) != 1:
        return "Give exactly one character to count."
    return str(text.casefold().count(letter.casefold()))


@tool
def word_count(text: str) -> str:
    """Count the words in a text (字数统计).

    Args:
        text: the text
    """
    return str(len(text.split()))


@tool
def count_vowels(text: str) -> str:
    """Count the vowels (a, e, i, o, u) in a text.

    Args:
        text: the text
    """
    return str(sum(1 for c in text.casefold() if c in "aeiou"))


@tool
def to_uppercase(text: str) -> str:
    """Convert text to capital (upper-case) letters.

    Args:
        text: the text
    """
    return text.upper()


@tool
def title_case(text: str) -> str:
    """Capitalise the first letter of every word of a text.

    Args:
        text: the text
    """
    return " ".join(w[:1].upper() + w[1:].lower() for w in text.split())


@tool
def slugify(text: str) -> str:
    """Turn a title into a URL slug: lower case, ASCII, words joined by hyphens.

    Args:
        text: the title
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


@tool
def caesar_cipher(text: str, shift: int) -> str:
    """Shift every letter of a text by a number of places in the alphabet (Caesar cipher, ROT13 with 13).

    Args:
        text: the text to encrypt or decrypt
        shift: places to shift (negative to decrypt)
    """
    def turn(c: str) -> str:
        if "a" <= c <= "z":
            return chr((ord(c) - 97 + shift) % 26 + 97)
        if "A" <= c <= "Z":
            return chr((ord(c) - 65 + shift) % 26 + 65)
        return c

    return "".join(turn(c) for c in text)


@tool
def is_palindrome(text: str) -> str:
    """Check whether a word or phrase reads the same backwards, ignoring case, spaces and punctuation.

    Args:
        text: the word or phrase
    """
    letters = [c for c in text.casefold() if c.isalnum()]
    return "yes" if letters and letters == letters[::-1] else "no"


@tool
def acronym(phrase: str) -> str:
    """The acronym of a phrase: the first letter of each word, in capitals.

    Args:
        phrase: the phrase
    """
    return "".join(w[0].upper() for w in re.findall(r"[^\W\d_]+", phrase))


@tool
def sha256_hash(text: str) -> str:
    """The SHA-256 hash (checksum) of a text, as hexadecimal.

    Args:
        text: the text to hash (UTF-8)
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@tool
def base64_encode(text: str) -> str:
    """Encode text (UTF-8) as Base64.

    Args:
        text: the text to encode
    """
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


@tool
def base64_decode(data: str) -> str:
    """Decode Base64 back into text.

    Args:
        data: the Base64 string
    """
    try:
        return base64.b64decode(data.strip(), validate=True).decode("utf-8")
    except ValueError:
        return "Not valid Base64 text."
