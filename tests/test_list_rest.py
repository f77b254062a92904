"""The ``list_rest`` check: a list the request writes for an argument that takes one value asks for a call per item.

Seen on BFCL (Qwen2.5-Coder-0.5B, the shim's default): "Find the factorial of 5,10 and 15." came back as one call,
``math.factorial(number=15)``, after the grounding left out a merged 510.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.crossed import MAX_COMBINATIONS
from react_text.checks.list_rest import list_rest

from test_shim import END, _user

FACTORIAL = {"type": "object", "required": ["number"], "properties": {"number": {"type": "integer"}}}
WEATHER = {"type": "object", "required": ["city"], "properties": {
    "city": {"type": "string"}, "unit": {"type": "string"}, "days": {"type": "array", "items": {"type": "string"}}}}
SCHEMAS = {"factorial": FACTORIAL, "weather": WEATHER, "primes": FACTORIAL}


def _fact(*numbers: int) -> tuple[tuple[str, dict], ...]:
    return tuple(("factorial", {"number": n}) for n in numbers)


def test_each_item_of_the_list_gets_a_call_in_the_order_the_request_writes_them() -> None:
    assert list_rest(_fact(15), SCHEMAS, "Find the factorial of 5,10 and 15.") == _fact(5, 10, 15)
    assert list_rest(_fact(10, 5), SCHEMAS, "Find the factorial of 5, 10 or 15.") == _fact(5, 10, 15)
    assert list_rest(_fact(10), SCHEMAS, "求5、10和15的阶乘。") == _fact(5, 10, 15)
    city = (("weather", {"city": "Oslo", "unit": "celsius"}),)
    assert list_rest(city, SCHEMAS, "Weather in Oslo and Bergen, in celsius?") == tuple(
        ("weather", {"city": c, "unit": "celsius"}) for c in ("Oslo", "Bergen"))
    # a name over the words in it, and without the possessive the request writes on it
    berlin = (("weather", {"city": "Berlin"}),)
    assert list_rest(berlin, SCHEMAS, "Rain in Berlin and New York's parks?") == (
        ("weather", {"city": "Berlin"}), ("weather", {"city": "New York"}))
    assert list_rest(berlin, SCHEMAS, "Rain in Berlin and Madrid's parks?")[1] == ("weather", {"city": "Madrid"})


def test_other_tools_calls_stay_where_they_were() -> None:
    calls = (("primes", {"number": 7}), ("factorial", {"number": 3}), ("weather", {"city": "Oslo"}))
    assert list_rest(calls, SCHEMAS, "Primes below 7, and the factorial of 3 and 4; weather in Oslo.") == (
        ("primes", {"number": 7}), ("factorial", {"number": 3}), ("factorial", {"number": 4}),
        ("weather", {"city": "Oslo"}))


@pytest.mark.parametrize("calls, request_text", [
    (_fact(1), "Sum the factorials between 1 and 1000."),  # a range's two ends
    (_fact(1), "求在1和1000之间的阶乘之和。"),
    ((("weather", {"city": "Museum of Modern Art"}),), "Exhibits at the Museum of Modern Art, New York."),  # a place
    ((("weather", {"city": "Manchester United"}),), "Scores of Manchester United, and I'd like them soon."),
    (_fact(5), "Factorials of 5 and 10 respectively."),
    ((("factorial", {"number": 3}), ("factorial", {"number": 5})), "Factorials of 3 and 4, 5 and 12."),
    ((("factorial", {"number": 4}), ("primes", {"number": 5})), "The factorial of 4 and the primes up to 4 and 5."),
    ((("weather", {"city": "Oslo", "days": ["Monday"]}),), "Weather in Oslo on Monday and Friday?"),  # a list param
    ((("weather", {"city": "Oslo", "unit": "mm"}), ("weather", {"city": "Bergen", "unit": "inches"})),
     "Rain in Oslo, Bergen and Tromsø in mm?"),  # two arguments vary: crossed's case, or none
    (_fact(5, 10, 15), "Find the factorial of 5,10 and 15."),  # nothing left to add
    (_fact(8), "The factorial of 8."),
])
def test_nothing_changes_where_the_rule_does_not_hold(calls: Any, request_text: str) -> None:
    assert list_rest(calls, SCHEMAS, request_text) == calls


def test_the_shim_calls_each_item_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "factorial", "description": "The factorial of a number.",
                                               "parameters": FACTORIAL}}]
    turn = ' One call.\nAction: factorial\nAction Input: {"number": 15}'

    def made(**kw: Any) -> tuple[list, list]:
        out = tool_calls(_user("Find the factorial of 5,10 and 15."), tools,
                         backend=ScriptedBackend([turn, END]), **kw)
        numbers = [json.loads(c["function"]["arguments"])["number"] for c in out["message"]["tool_calls"]]
        return numbers, out.get("step_checks", [])

    on, acted = made()
    assert on == [5, 10, 15] and "list_rest" in acted
    off, acted = made(checks="-list_rest")
    assert off == [15] and "list_rest" not in acted


VALUES = st.one_of(st.integers(-3, 30), st.sampled_from(["Oslo", "Bergen", "", "and", "5", "奥斯陆"]),
                   st.booleans(), st.lists(st.integers(0, 3), max_size=2))


@given(st.text(alphabet=st.sampled_from(list("Oslo Bergen and, 5 10 15 between 和、之间'")), max_size=60),
       st.lists(st.tuples(st.sampled_from(["factorial", "weather"]),
                          st.dictionaries(st.sampled_from(["number", "city", "unit"]), VALUES, max_size=2)),
                max_size=3))
def test_list_rest_never_raises_and_acting_twice_is_acting_once(text: str, calls: list) -> None:
    once = list_rest(calls, SCHEMAS, text)
    assert list_rest(once, SCHEMAS, text) == once
    assert len(once) <= len(calls) + MAX_COMBINATIONS


@pytest.mark.model
def test_the_default_model_asked_for_three_factorials_gets_three_calls(qwen_backend) -> None:
    """Qwen2.5-coder-0.5B reads "4,8" as 48 and, told so, writes one call (12): with the check on the reply holds a
    call for each number the request lists, in its order."""
    fact = {"type": "function", "function": {
        "name": "math.factorial", "description": "Calculate the factorial of a given positive integer.",
        "parameters": {"type": "object", "required": ["number"],
                       "properties": {"number": {"type": "integer", "description": "The number."}}}}}
    ask = [{"role": "user", "content": "Find the factorial of 4,8 and 12."}]

    def numbers(checks: str) -> list[int]:
        out = tool_calls(ask, [fact], backend=qwen_backend, template="classic", checks=checks)
        return [json.loads(c["function"]["arguments"])["number"] for c in out["message"].get("tool_calls") or []]

    assert numbers("-list_rest") == [12]
    assert numbers("default") == [4, 8, 12]
