"""The ``crossed`` check: two lists the request writes apart ask for every combination of their items."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.crossed import MAX_COMBINATIONS, crossed

from test_shim import END, _user

RAIN = {"type": "object", "required": ["city", "year"], "properties": {
    "city": {"type": "string", "description": "The city."},
    "year": {"type": "integer", "description": "The year."},
    "unit": {"type": "string", "description": "mm or inches."}}}
SCHEMAS = {"rainfall": RAIN}
ASK = "What was the rainfall in Oslo and Bergen in 2019 and 2021?"


def _calls(*pairs: tuple[str, int], **shared: Any) -> tuple[tuple[str, dict], ...]:
    return tuple(("rainfall", {"city": city, "year": year, **shared}) for city, year in pairs)


FOUR = _calls(("Oslo", 2019), ("Oslo", 2021), ("Bergen", 2019), ("Bergen", 2021))


def test_lists_paired_off_become_their_product_in_the_order_the_request_writes() -> None:
    assert crossed(_calls(("Oslo", 2019), ("Bergen", 2021)), SCHEMAS, ASK) == FOUR
    assert crossed(_calls(("Bergen", 2021), ("Oslo", 2019)), SCHEMAS, ASK) == FOUR
    # an argument every call shares goes with each combination
    assert crossed(_calls(("Oslo", 2019), ("Bergen", 2021), unit="mm"), SCHEMAS, ASK + " In mm.") == _calls(
        ("Oslo", 2019), ("Oslo", 2021), ("Bergen", 2019), ("Bergen", 2021), unit="mm")


def test_a_list_item_no_call_passed_joins_from_beside_a_used_one() -> None:
    """Both calls passed 2021: the request's "2019 and 2021" is still the list the year takes."""
    assert crossed(_calls(("Oslo", 2021), ("Bergen", 2021)), SCHEMAS, ASK) == FOUR
    assert crossed(_calls(("Oslo", 2021), ("Bergen", 2021)), SCHEMAS,
                   "Rainfall in 'Oslo', 'Bergen' for the years 2019, 2020, and 2021?") == _calls(
        *[(c, y) for c in ("Oslo", "Bergen") for y in (2019, 2020, 2021)])


def test_chinese_lists_and_a_unit_after_each_item_are_lists_too() -> None:
    ask = "奥斯陆和卑尔根在2019年和2021年的降雨量是多少？"
    calls = (("rainfall", {"city": "奥斯陆", "year": 2019}), ("rainfall", {"city": "卑尔根", "year": 2021}))
    assert [(a["city"], a["year"]) for _, a in crossed(calls, SCHEMAS, ask)] == [
        ("奥斯陆", 2019), ("奥斯陆", 2021), ("卑尔根", 2019), ("卑尔根", 2021)]


def test_pairs_the_request_writes_in_turns_or_says_are_respective_stay_pairs() -> None:
    pairs = _calls(("Oslo", 2019), ("Bergen", 2021))
    assert crossed(pairs, SCHEMAS, "What was the rainfall in Oslo in 2019, and in Bergen in 2021?") == pairs
    assert crossed(pairs, SCHEMAS, ASK.replace("?", " respectively?")) == pairs
    assert crossed(pairs, SCHEMAS, "奥斯陆和卑尔根的降雨量依次是2019年和2021年的吗？") == pairs


def test_nothing_changes_where_the_rule_does_not_hold() -> None:
    one = _calls(("Oslo", 2019))
    assert crossed(one, SCHEMAS, ASK) == one  # one call: nothing says the request wants more
    assert crossed(FOUR, SCHEMAS, ASK) == FOUR  # already the product
    units = _calls(("Oslo", 2019), unit="mm") + _calls(("Bergen", 2021), unit="inches")
    assert crossed(units, SCHEMAS, ASK) == units  # the unit varies and the request writes no list of units
    from_nowhere = _calls(("Oslo", 2019), ("Tromsø", 2021))
    assert crossed(from_nowhere, SCHEMAS, ASK) == from_nowhere  # Tromsø is in no list of the request
    # a year the calls pass to another argument is no item to add ("between 2019 and 2021")
    span = {"rainfall": {"type": "object", "properties": {"city": {"type": "string"}, "start": {"type": "integer"},
                                                          "end": {"type": "integer"}}}}
    ranged = (("rainfall", {"city": "Oslo", "start": 2019, "end": 2021}),
              ("rainfall", {"city": "Bergen", "start": 2019, "end": 2021}))
    assert crossed(ranged, span, "Rainfall in Oslo and Bergen between 2019 and 2021?") == ranged
    many = "Rainfall in Oslo, Bergen, Tromsø and Bodø in 2016, 2017, 2018 and 2019?"
    diagonal = _calls(("Oslo", 2016), ("Bergen", 2017), ("Tromsø", 2018), ("Bodø", 2019))
    assert 16 > MAX_COMBINATIONS and crossed(diagonal, SCHEMAS, many) == diagonal


def test_the_shim_calls_every_combination_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "rainfall", "description": "Yearly rainfall.",
                                               "parameters": RAIN}}]
    turn = (' Two lookups.\nAction: rainfall\nAction Input: {"city": "Oslo", "year": 2019}\n'
            'Action: rainfall\nAction Input: {"city": "Bergen", "year": 2021}')

    def made(**kw: Any) -> tuple[list, list]:
        out = tool_calls(_user(ASK), tools, backend=ScriptedBackend([turn, END]), **kw)
        args = [json.loads(c["function"]["arguments"]) for c in out["message"]["tool_calls"]]
        return [(a["city"], a["year"]) for a in args], out.get("step_checks", [])

    on, acted = made()
    assert on == [(c, y) for c in ("Oslo", "Bergen") for y in (2019, 2021)] and "crossed" in acted
    off, acted = made(checks="-crossed")
    assert off == [("Oslo", 2019), ("Bergen", 2021)] and "crossed" not in acted


VALUES = st.one_of(st.integers(-3, 3000), st.sampled_from(["Oslo", "Bergen", "", "and", "2019", "奥斯陆"]),
                   st.booleans(), st.lists(st.integers(0, 3), max_size=2))


@given(st.text(max_size=80), st.lists(st.dictionaries(st.sampled_from(["city", "year", "unit"]), VALUES, max_size=3),
                                      max_size=4))
def test_crossed_never_raises_and_acting_twice_is_acting_once(text: str, args: list[dict]) -> None:
    calls = tuple(("rainfall", a) for a in args)
    once = crossed(calls, SCHEMAS, text)
    assert crossed(once, SCHEMAS, text) == once
    assert len(once) <= max(len(calls), MAX_COMBINATIONS)


@pytest.mark.model
def test_the_default_model_pairs_the_lists_off_and_the_shim_calls_every_combination(qwen_backend) -> None:
    """Qwen2.5-coder-0.5B under the grammar writes Madrid 2010 and Seville 2012; the check makes it four calls."""
    tools = [{"type": "function", "function": {"name": "rainfall", "description": "Yearly rainfall of a city.",
                                               "parameters": RAIN}}]
    ask = [{"role": "user", "content": "Compare the rainfall of Madrid and Seville in the years 2010 and 2012."}]

    def made(checks: str) -> list[tuple[str, int]]:
        out = tool_calls(ask, tools, backend=qwen_backend, template="classic", checks=checks)
        return [(a["city"], a["year"]) for a in (json.loads(c["function"]["arguments"])
                                                 for c in out["message"]["tool_calls"])]

    assert made("-crossed") == [("Madrid", 2010), ("Seville", 2012)]
    assert made("default") == [(c, y) for c in ("Madrid", "Seville") for y in (2010, 2012)]
