"""The words of every correction and format error, per language, read from ``prompts/corrections/<lang>.json``.

Why data: they were English and Chinese pairs written into each check, the loop and the parser's
feedback, so a third language meant editing all of them. Now each language is one file of ``key:
template`` (a check's name or ``feedback``/``format``, then a variant: ``tool_error.no_results``), with
``{placeholders}`` filled by ``str.format``; a language without a file is worded in English. Here, at the
bottom, so the parser, the checks and the loop word messages alike. Files are read once.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import Any, Iterable, Mapping

__all__ = ["joined", "languages", "message", "table"]

_FALLBACK = "en"


def _folder() -> Any:
    return importlib.resources.files("react_text.prompts") / "corrections"


@functools.cache
def languages() -> tuple[str, ...]:
    """The languages with a file, longest code first (``zh_hant`` before ``zh``)."""
    names = (p.name[:-len(".json")] for p in _folder().iterdir() if p.name.endswith(".json"))
    return tuple(sorted(names, key=lambda n: (-len(n), n)))


@functools.cache
def table(lang: str) -> Mapping[str, str]:
    """Every template of the language whose file ``lang`` names (``zh-CN`` reads ``zh``), else English's."""
    code = next((n for n in languages() if lang.lower().startswith(n)), _FALLBACK)
    return json.loads((_folder() / f"{code}.json").read_text(encoding="utf-8"))


def message(lang: str, key: str, **values: Any) -> str:
    """The template ``key`` in ``lang``, its placeholders filled with ``values``."""
    return table(lang)[key].format(**values)


def joined(lang: str, items: Iterable[Any], separator: str = "list.separator") -> str:
    """``items`` written as a list in ``lang`` ("a, b" / "a、b")."""
    return table(lang)[separator].join(str(item) for item in items)
