"""The parser's speed work changes no ``Step``: every frozen turn still parses to what it parsed to before.

``tests/data/parser_equivalence.jsonl.gz`` holds over 7,000 turns (every case file, every parse call
the parser tests make, the field notes' snippets, seeded noise) with the ``Step`` main gave for each
before the fast paths; ``bench/freeze_parser_outputs.py`` wrote it and says how to write it again
(only for a change of behaviour that is meant, never to hide a difference).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_text.protocol import jsonish

ROOT = Path(__file__).resolve().parent.parent
FROZEN = ROOT / "tests" / "data" / "parser_equivalence.jsonl.gz"


def _freezer():
    spec = importlib.util.spec_from_file_location("freeze_parser_outputs", ROOT / "bench" / "freeze_parser_outputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _frozen() -> list[dict]:
    with gzip.open(FROZEN, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


ITEMS = _frozen()
CHUNK = 500


@pytest.mark.parametrize("first", range(0, len(ITEMS), CHUNK))
def test_every_frozen_turn_parses_as_before(first: int) -> None:
    outcome = _freezer().outcome
    differ = []
    for item in ITEMS[first:first + CHUNK]:
        got = json.dumps(outcome(item))
        if got != json.dumps(item["step"]):
            differ.append((item["text"][:200], item["tools"], item["kw"], item["step"], json.loads(got)))
    assert not differ, f"{len(differ)} turns parse differently; the first: {differ[0]}"


def test_the_frozen_set_is_large_and_varied() -> None:
    kinds = {("error" if item["step"].get("error") else "action" if item["step"].get("actions")
              else "final" if item["step"].get("final_answer") is not None else "raises") for item in ITEMS}
    assert len(ITEMS) > 7000
    assert kinds == {"error", "action", "final", "raises"}


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                           max_leaves=8)


@given(st.dictionaries(st.text(), st.text(), max_size=6) | JSON_VALUES)
def test_dumps_writes_what_json_dumps_writes(value: object) -> None:
    """``jsonish.dumps`` writes small dicts of strings (a format error's example arguments) itself."""
    assert jsonish.dumps(value) == json.dumps(value, ensure_ascii=False)
