"""The character ranges of Chinese, Japanese and Korean text: the one definition every reader uses.

Why one: five modules each wrote their own range (one with Japanese kana, one without the compatibility
ideographs), so whether a question "is Chinese" depended on who asked.
"""

from __future__ import annotations

__all__ = ["CJK", "HAN", "HANGUL", "KANA"]

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Chinese characters (CJK unified ideographs, extension A, compatibility ideographs), for a ``[...]`` class."""
KANA = "\u3040-\u30ff"
"""Japanese hiragana and katakana."""
HANGUL = "\uac00-\ud7af"
"""Korean syllables."""
CJK = KANA + HAN + HANGUL
"""Every script written without spaces between words."""
