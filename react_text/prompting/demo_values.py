"""Concrete argument values for a call demo written from a tool's JSON schema.

Why: a tool no written episode uses still gets one demonstration call in the prompt
(``episodes.demo_episode``), and a small model copies what that call passes. So each
value is concrete (a placeholder is copied as readily as a value), plainly not the
answer to anyone's question, and taken from the schema itself where it offers one
(an example, a default, an enum).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from ..lexicon.zh import is_chinese

__all__ = ["sample_arguments"]

# Example values by what a parameter is called: concrete (a model copies a placeholder as
# readily as a value) and plainly not the answer to anyone's question.
_NAMED_SAMPLES: tuple[tuple[str, str, str], ...] = (
    ("email", "ada@example.org", "ada@example.org"),
    ("url", "https://example.org/notes", "https://example.org/notes"),
    ("timezone", "Europe/Lisbon", "Asia/Shanghai"),
    ("city", "Lisbon", "杭州"),
    ("location", "Lisbon", "杭州"),
    ("country", "Portugal", "中国"),
    ("address", "12 Harbour Street", "西湖路 12 号"),
    ("currency", "EUR", "CNY"),
    ("language", "French", "法语"),
    ("lang", "fr", "fr"),
    ("date", "2031-05-17", "2031-05-17"),
    ("time", "14:30", "14:30"),
    ("phone", "+351 210 000 000", "+86 571 0000 0000"),
    ("symbol", "ACME", "ACME"),
    ("ticker", "ACME", "ACME"),
    ("first_name", "Ada", "Ada"),
    ("last_name", "Lovelace", "Lovelace"),
    ("name", "Ada Lovelace", "李华"),
    ("title", "Quarterly notes", "季度笔记"),
    ("path", "notes/plan.txt", "notes/plan.txt"),
    ("file", "notes/plan.txt", "notes/plan.txt"),
    ("query", "tide tables", "潮汐表"),
    ("keyword", "tide tables", "潮汐表"),
    ("search", "tide tables", "潮汐表"),
    ("topic", "tide tables", "潮汐表"),
    ("text", "see you at noon", "中午见"),
    ("message", "see you at noon", "中午见"),
    ("content", "see you at noon", "中午见"),
    ("color", "teal", "青色"),
    ("unit", "kg", "kg"),
    ("id", "A-1042", "A-1042"),
    ("code", "A-1042", "A-1042"),
    ("expression", "(17 + 5) * 3", "(17 + 5) * 3"),
)
_INTS = (7, 3, 12, 5, 9)
_EXAMPLE_IN_TEXT = re.compile(r"(?:e\.g\.|for example|such as|like)\s*[:,]?\s*([^;()\n]{1,60})", re.IGNORECASE)
_QUOTED = re.compile(r"""\s*(["'`])([^"'`]{1,40})\1""")
_LIST_WORDS = re.compile(r"\b(?:or|and)\b", re.IGNORECASE)


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, (list, tuple)) and value else value


def _described_example(description: str) -> str | None:
    """The example a description gives (``e.g. Berkeley, CA``), whole: a value in two comma-joined parts
    ("city and state") cut at its comma teaches the model to drop the state. A quoted example is taken
    as quoted; a list of alternatives (more parts, or joined by "or"/"and") gives its first."""
    found = _EXAMPLE_IN_TEXT.search(description)
    if not found:
        return None
    text = re.split(r"\.(?:\s|$)", found.group(1), maxsplit=1)[0]
    quoted = _QUOTED.match(text)
    if quoted:
        return quoted.group(2).strip() or None
    parts = [part.strip() for part in text.split(",")]
    whole = len(parts) == 2 and all(parts) and not _LIST_WORDS.search(text)
    value = text if whole else _LIST_WORDS.split(parts[0])[0]
    return value.strip(" .,;\"'") or None


def _sample(name: str, prop: Mapping[str, Any], lang: str, salt: int, depth: int = 0) -> Any:
    """One concrete value for a parameter: the schema's own example, default or
    first enum value when it has one, else a value by its name and type."""
    if "examples" in prop and _first(prop["examples"]) is not None:
        return _first(prop["examples"])
    if "example" in prop:
        return prop["example"]
    if "default" in prop and prop["default"] is not None:
        return prop["default"]
    if isinstance(prop.get("enum"), (list, tuple)) and prop["enum"]:
        return prop["enum"][salt % len(prop["enum"])]
    hinted = _described_example(str(prop.get("description") or ""))
    if hinted and prop.get("type") in (None, "string"):
        return hinted
    kind = prop.get("type")
    if isinstance(kind, (list, tuple)):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer":
        return _INTS[salt % len(_INTS)]
    if kind == "number":
        return 2.5
    if kind == "boolean":
        return True
    if kind == "array":
        items = prop.get("items") if isinstance(prop.get("items"), Mapping) else {}
        singular = name[:-1] if name.endswith("s") else name
        return [_sample(singular, items, lang, salt, depth + 1)] if depth < 3 else []
    if kind == "object":
        return sample_arguments(prop, lang, salt, depth + 1) if depth < 3 else {}
    key = name.lower()
    for part, en, zh in _NAMED_SAMPLES:
        if part in key:
            return zh if is_chinese(lang) else en
    return f"示例{name}" if is_chinese(lang) else f"sample {name.replace('_', ' ')}"


def sample_arguments(schema: Mapping[str, Any] | None, lang: str = "en", salt: int = 0, depth: int = 0) -> dict[str, Any]:
    """Arguments for a call demo: every required parameter (or the first one, when none is required),
    nested objects and arrays filled the same way, then each optional one that has a default, at it.

    Why the optional ones: a demo that passes only the required arguments teaches a small model to
    leave out the optional ones the request does give ("12 mugs", "the south warehouse"). Why at the
    default: other values are copied into calls whose request says nothing of them (measured on
    held-out tools: ``extra_cheese: true`` on a plain pizza order)."""
    if not isinstance(schema, Mapping):
        return {}
    props = schema.get("properties")
    if not isinstance(props, Mapping) or not props:
        return {}
    required = [p for p in schema.get("required") or () if p in props] or list(props)[:1]
    args = {
        str(p): _sample(str(p), props[p] if isinstance(props[p], Mapping) else {}, lang, salt + i, depth)
        for i, p in enumerate(required)
    }
    for p, prop in props.items():
        if p not in required and isinstance(prop, Mapping) and prop.get("default") is not None:
            args[str(p)] = prop["default"]
    return args
