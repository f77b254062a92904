"""One vocabulary: the character ranges, number words and refusal phrases the engine reads text by are
defined once, in ``react_text/lexicon``; every caller reads them from there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from react_text.lexicon import en, zh
from react_text.lexicon.cjk import CJK, HAN
from react_text.lexicon.numbers import number_value, written_number

ROOT = Path(__file__).resolve().parents[1] / "react_text"
OUTSIDE = [p for p in ROOT.rglob("*.py") if not {"lexicon", "eval"} & set(p.relative_to(ROOT).parts)]
"""The engine's modules that must read the lexicon rather than hold words of their own (``eval`` is the
judge, whose rules are its own on purpose)."""


def _literals(path: Path) -> list[str]:
    return [n.value for n in ast.walk(ast.parse(path.read_text("utf-8")))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_defines_its_own_cjk_range_number_words_or_refusals(path: Path) -> None:
    source = path.read_text("utf-8")
    assert not re.search(r"\\u(?:3040|3400|4e00|9fff|ac00|f900)|\\p\{Han\}", source), "a CJK range: use lexicon.cjk"
    number_words = set(en.NUMBER_WORDS) - {"hundred", "thousand", "million", "billion"}
    refusals = {p for p in (*en.REFUSALS, *zh.REFUSALS) if len(p) > 3}
    for text in _literals(path):
        words = set(re.findall(r"[a-z]+", text.lower()))
        assert len(words & number_words) < 3, f"number words in {text[:60]!r}: use lexicon.numbers"
        assert sum(1 for digit in zh.DIGITS if digit in text) < 4, f"Chinese digits in {text[:60]!r}: use lexicon.zh"
        if "|" in text:  # a pattern
            assert sum(1 for phrase in refusals if phrase in text) < 2, f"refusal phrases in {text[:60]!r}: use lexicon"


def test_no_word_list_is_written_twice() -> None:
    """Module-level collections of words, anywhere in the engine: no two hold the same words."""
    seen: dict[frozenset[str], str] = {}
    for path in [*OUTSIDE, *ROOT.joinpath("lexicon").glob("*.py")]:
        for node in ast.parse(path.read_text("utf-8")).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "frozenset":
                value = value.args[0] if value.args else None
            if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "split"
                    and isinstance(value.func.value, ast.Constant)):
                words = frozenset(str(value.func.value.value).split())
                if len(words) >= 4:
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    assert words not in seen, f"{where} repeats {seen[words]}"
                    seen[words] = where


def test_the_ranges_and_numbers_read_as_before() -> None:
    assert re.fullmatch(f"[{HAN}]+", "青石镇") and not re.search(f"[{HAN}]", "abc ひら")
    assert re.fullmatch(f"[{CJK}]+", "ひらがな한국中文")
    assert [number_value(w) for w in ("4", "four", "四", "Sixty", "两千", "x")] == [4, 4, 4, 60, 2000, None]
    assert written_number("Fifteen boats") and written_number("十三") and not written_number("many boats")
