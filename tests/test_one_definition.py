"""No word list nor pattern about natural-language text is defined twice in the engine.

Why a test: the copies drifted apart before (one list of number words lacked the teens), and each fix
then reached one reader only. Word lists and patterns live in ``react_text/lexicon``; this fails when
the same list (the same members, in any order or form) or the same pattern is written in two places of
``react_text`` (the judge in ``eval/`` keeps frozen rules of its own on purpose, so it is left out).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "react_text"
_WORDY = re.compile(r"(?<!\\)[A-Za-z]{3,}|[\u3400-\u9fff]")
"""A pattern about text has a word of three letters (not an escape like ``\\s``) or a Chinese character."""


def _members(node: ast.AST) -> frozenset[str] | None:
    """The strings a literal collection holds: ``"a b c".split()``, ``frozenset("abc")``, ``{"a", "b", "c"}``,
    ``("a", "b", "c")``; None for anything else or fewer than three."""
    found: frozenset[str] | None = None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
            and not node.args and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
        found = frozenset(node.func.value.value.split())
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple")
          and len(node.args) == 1):
        inner = node.args[0]
        found = (frozenset(inner.value) if isinstance(inner, ast.Constant) and isinstance(inner.value, str)
                 else _members(inner))
    elif isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        if node.elts and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            found = frozenset(e.value for e in node.elts)  # type: ignore[union-attr]
    return found if found is not None and len(found) >= 3 else None


def _pattern(node: ast.AST) -> str | None:
    """The literal pattern of ``re.compile("...")`` / ``regex.compile("...")``, when it reads text."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compile"
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return node.args[0].value if _WORDY.search(node.args[0].value) else None
    return None


def _definitions() -> tuple[dict[frozenset[str], list[str]], dict[str, list[str]]]:
    lists: dict[frozenset[str], list[str]] = defaultdict(list)
    patterns: dict[str, list[str]] = defaultdict(list)

    def visit(node: ast.AST, where: str) -> None:
        members = _members(node)
        if members is not None:
            lists[members].append(f"{where}:{node.lineno}")  # type: ignore[attr-defined]
            return  # its inner literal is the same list
        pattern = _pattern(node)
        if pattern is not None:
            patterns[pattern].append(f"{where}:{node.lineno}")  # type: ignore[attr-defined]
        for child in ast.iter_child_nodes(node):
            visit(child, where)

    for path in sorted(ROOT.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if not where.startswith("eval/"):
            visit(ast.parse(path.read_text(encoding="utf-8")), where)
    return lists, patterns


def test_no_word_list_is_defined_twice() -> None:
    lists, _ = _definitions()
    twice = {", ".join(sorted(m)[:6]): places for m, places in lists.items() if len(places) > 1}
    assert not twice, twice


def test_no_pattern_about_text_is_defined_twice() -> None:
    _, patterns = _definitions()
    twice = {p: places for p, places in patterns.items() if len(places) > 1}
    assert not twice, twice


def test_the_scan_finds_the_lexicons_lists_and_a_copy_of_one() -> None:
    """The scan itself: it sees the lexicon's lists, and a copy written elsewhere would be caught."""
    lists, _ = _definitions()
    where = {place.split(":")[0] for places in lists.values() for place in places}
    assert {"lexicon/en.py", "lexicon/zh.py"} <= where
    stopwords = next(m for m, places in lists.items() if any(p.startswith("lexicon/en.py") for p in places)
                     and "the" in m and "find" in m)
    copy = ast.parse(f"X = frozenset({' '.join(sorted(stopwords))!r}.split())")
    assert _members(copy.body[0].value) == stopwords  # type: ignore[attr-defined]


# --- what merging two copies changed (a commit of its own) ----------------------------------------------

def test_a_chinese_count_is_one_pattern_with_ji_as_with_duoshao() -> None:
    """The measure check read 多少座 as a count but not 几座; both are ``zh.COUNT`` now."""
    from react_text.checks.reading import Situation
    from react_text.checks.review import check_answer

    for question in ("湖上一共有几座桥？", "湖上一共有多少座桥？"):
        found = check_answer("58.3平方公里", Situation(question=question, lang="zh", observations=("湖的面积为58.3平方公里。",)))
        assert found is not None and found.code == "measure", question


def test_every_reader_takes_a_chinese_language_code_alike() -> None:
    """Leads and demos tested ``lang == "zh"``, corrections ``startswith("zh")``: "zh-CN" got Chinese corrections
    and English leads. One test now (``zh.is_chinese``)."""
    from react_text.lexicon.zh import is_chinese
    from react_text.prompting.demo_values import sample_arguments
    from react_text.prompting.evidence import quote

    assert is_chinese("zh") and is_chinese("zh-CN") and is_chinese("ZH") and not is_chinese("en")
    assert quote(1, "松林镇有26,480人。", "zh-CN").startswith(" 第一条结果写的是")
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    assert sample_arguments(schema, "zh-CN", 0) == sample_arguments(schema, "zh", 0)
