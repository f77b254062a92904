"""A pytest plugin that records every ``parse`` call the tests make (JSON-able arguments only), one JSON
line each, to the file named by $PARSE_RECORD: turns for ``bench/freeze_parser_outputs.py`` to freeze.

    PYTHONPATH=bench PARSE_RECORD=/tmp/calls.jsonl HYPOTHESIS_PROFILE=ci \\
        python -m pytest -q -p parse_recorder tests -k "pars or dialect or hostile or native" -m 'not model'
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import react_text
import react_text.protocol.parser as parser_module

_ORIGINAL = parser_module.parse
_OUT = open(os.environ["PARSE_RECORD"], "a", encoding="utf-8")  # noqa: SIM115 (open for the whole run)
_SEEN: set[str] = set()
MAX_TEXT = 20_000  # the hostile megabytes are the bench's business, not a frozen file's


def _record(text: Any, tools: Any, kw: dict) -> None:
    if not isinstance(text, str) or len(text) > MAX_TEXT or not set(kw) <= {"prose", "dialect", "lang", "n"}:
        return
    if isinstance(tools, tuple):
        tools = list(tools)
    try:
        line = json.dumps({"text": text, "tools": tools, "kw": kw}, sort_keys=True)
    except (TypeError, ValueError):  # Tool objects or functions: not JSON
        return
    if line not in _SEEN:
        _SEEN.add(line)
        _OUT.write(line + "\n")
        _OUT.flush()


def parse(text: Any, tools: Any = None, **kw: Any) -> Any:
    _record(text, tools, kw)
    return _ORIGINAL(text, tools, **kw)


def _patch() -> None:
    """Point every already imported ``parse`` name of the project and its tests at the recorder."""
    for name, module in list(sys.modules.items()):
        if name.startswith(("react_text", "test")) and getattr(module, "parse", None) is _ORIGINAL:
            module.parse = parse


parser_module.parse = parse
react_text.parse = parse
_patch()


def pytest_collection_finish(session: Any) -> None:
    _patch()


def pytest_runtest_setup(item: Any) -> None:
    _patch()
