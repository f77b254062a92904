"""No fixture in the engine: no name or invented unit of the shipped suites appears in ``react_text/``
outside ``eval/`` (the judge and the suites' own tools). A rule that knows a suite's entity is fitted to
the suite, and its score there says nothing about questions nobody tuned on."""

from __future__ import annotations

import json
import re
import sysconfig
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITES = ROOT / "suites"
INVENTED_UNITS = frozenset({"crown", "crowns"})
"""The currency of the suites' invented world ("Round to the nearest crown")."""
REAL_WORLD = frozenset({
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "Oslo", "Shanghai", "Street",
    "Pride", "Prejudice", "北京", "星期二", "星期三", "周二", "周三",
})
"""Names of the real world the suites also use (weekdays, cities, a novel): anyone's examples may hold them."""
_HAN = re.compile(r"^[\u3400-\u9fff]{2,}$")


def _suite_texts() -> list[str]:
    texts = [line for path in sorted(SUITES.rglob("*.jsonl")) for line in path.read_text("utf-8").splitlines()]
    return texts + [path.read_text("utf-8") for path in sorted((SUITES / "corpus").rglob("*.txt"))]


def _common_words() -> set[str]:
    """Words written in lower case in the suites or in Python's standard library: English, not names."""
    texts = _suite_texts() + [p.read_text("utf-8", errors="ignore")
                              for p in Path(sysconfig.get_paths()["stdlib"]).glob("*.py")]
    return {w for text in texts for w in re.findall(r"\b[a-z]{3,}\b", text)}


@lru_cache(maxsize=1)
def fixture_names() -> frozenset[str]:
    """The suites' proper nouns: capitalised words that are no common word, the Chinese corpus's titles
    and their two-character stems (``青石`` of ``青石镇``), and the Chinese names tasks expect."""
    common = _common_words()
    words = {w for text in _suite_texts() for w in re.findall(r"\b[A-Z][a-z]{2,}\b", text) if w.lower() not in common}
    titles = {p.read_text("utf-8").splitlines()[0].strip() for p in (SUITES / "corpus" / "zh").glob("*.txt")}
    expected = set()
    for line in (line for path in SUITES.rglob("*.jsonl") for line in path.read_text("utf-8").splitlines()):
        value = json.loads(line).get("expected") if line.strip() else None
        expected |= {v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str) and _HAN.match(v)}
    return frozenset((words | titles | {t[:2] for t in titles} | expected | INVENTED_UNITS) - REAL_WORLD)


def _engine_files() -> list[Path]:
    return [p for p in (ROOT / "react_text").rglob("*.py") if "eval" not in p.relative_to(ROOT / "react_text").parts]


def test_the_fixture_names_are_found() -> None:
    names = fixture_names()
    assert {"Varnholt", "Quillfeather", "Brannoc", "青石镇", "青石", "白鹭湖", "crown"} <= names
    assert not names & {"What", "The", "How", "Python", "Monday"}


def test_no_suite_name_or_unit_in_the_engine() -> None:
    names = fixture_names()
    ascii_names = sorted(n for n in names if n.isascii())
    word = re.compile(r"\b(?:" + "|".join(map(re.escape, ascii_names)) + r")\b")
    han = re.compile("|".join(map(re.escape, sorted((n for n in names if not n.isascii()), key=len, reverse=True))))
    found = [f"{path.relative_to(ROOT)}:{n}: {m.group(0)}"
             for path in _engine_files() for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             for m in (*word.finditer(line), *han.finditer(line))]
    assert found == []
