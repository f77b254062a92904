"""The ``demo_copy`` check: a call that passes the values the demo call made up is not made."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.demo_copies import demo_copies, without_copies
from react_text.prompting.demo_values import sample_arguments

from test_shim import END, _user

FIELD = {"type": "object", "required": ["current", "distance"], "properties": {
    "current": {"type": "number", "description": "The current in amperes."},
    "distance": {"type": "number", "description": "The distance from the wire in metres."},
    "medium": {"type": "string", "description": "The medium, e.g. vacuum.", "default": "vacuum"}}}
SHOWN = (json.dumps(sample_arguments(FIELD)),)
"""What the shim's demo call of the tool passes: made-up numbers, and the default."""


def test_the_demo_makes_up_the_numbers_and_takes_the_default_from_the_schema() -> None:
    assert sample_arguments(FIELD) == {"current": 2.5, "distance": 2.5, "medium": "vacuum"}


def test_a_value_only_the_demo_holds_is_a_copy_and_one_the_request_or_schema_holds_is_not() -> None:
    def copies(args: dict, ground: str) -> tuple:
        return demo_copies("magnetic_field", args, SHOWN, {"magnetic_field": FIELD}, [ground])

    assert copies({"current": 2.5, "distance": 2.5}, "What's the mass of an electron?") == (
        ("current", 2.5), ("distance", 2.5))
    assert copies({"current": 2.5, "distance": 2.5}, "The field of a wire carrying 2.5 A, at 2.5 m?") == ()
    assert copies({"current": 4, "distance": 1, "medium": "vacuum"}, "4 A at 1 m?") == ()  # the default
    assert copies({"current": 4, "distance": 2.5}, "4 A, somewhere") == (("distance", 2.5),)
    assert copies({"current": 4, "medium": 2.5}, "4 A") == ()  # the demo's value under another name


def test_a_list_the_demo_filled_with_its_made_up_items_is_a_copy() -> None:
    survey = {"type": "object", "required": ["answers"], "properties": {
        "answers": {"type": "array", "items": {"type": "integer"}, "description": "The answers, 1 to 5."}}}
    shown = (json.dumps(sample_arguments(survey)),)
    made_up = sample_arguments(survey)["answers"]
    assert demo_copies("traits", {"answers": made_up}, shown, {"traits": survey}, ["What type of person am I?"]) == (
        ("answers", made_up),)
    assert demo_copies("traits", {"answers": [4, 2]}, shown, {"traits": survey}, ["I answered 4 and 2."]) == ()


def test_calls_of_copies_are_left_out_and_with_none_left_the_problem_is_told() -> None:
    copy, fine = ("magnetic_field", {"current": 2.5, "distance": 2.5}), ("magnetic_field", {"current": 4, "distance": 1})
    schemas, ground = {"magnetic_field": FIELD}, ["4 A at 1 m, and what is the mass of an electron?"]
    assert without_copies((copy, fine), SHOWN, schemas, ground, "en") == ((fine,), None)
    calls, problem = without_copies((copy,), SHOWN, schemas, ground, "en")
    assert calls == () and problem is not None and "2.5" in problem and "magnetic_field" in problem
    assert "magnetic_field" in (without_copies((copy,), SHOWN, schemas, ground, "zh")[1] or "")
    assert without_copies((fine,), SHOWN, schemas, ground, "en") == ((fine,), None)


def test_the_shim_makes_no_call_of_the_demos_values_and_does_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "magnetic_field", "description": "The field of a wire.",
                                               "parameters": FIELD}}]
    turn = ' I use it.\nAction: magnetic_field\nAction Input: {"current": 2.5, "distance": 2.5}'
    ask = _user("What's the mass of an electron?")

    def reply(checks: str) -> dict:
        return tool_calls(ask, tools, backend=ScriptedBackend([turn, turn, turn, END], supports_grammar=True),
                          checks=checks)["message"]

    made = reply("default")
    assert not made.get("tool_calls") and "2.5" in made["content"] and "example" in made["content"]
    kept = reply("-demo_copy")
    passed = json.loads(kept["tool_calls"][0]["function"]["arguments"])
    assert (passed["current"], passed["distance"]) == (2.5, 2.5)


@given(st.dictionaries(st.sampled_from(["current", "distance", "medium", "x"]),
                       st.one_of(st.integers(-3, 30), st.floats(allow_nan=False), st.text(max_size=6),
                                 st.booleans(), st.none(), st.lists(st.integers(), max_size=2)), max_size=4),
       st.lists(st.text(max_size=30), max_size=3), st.text(max_size=40))
def test_demo_copies_never_raises_and_names_only_values_the_call_passes(args: dict, examples: list, ground: str) -> None:
    found = demo_copies("magnetic_field", args, (*examples, *SHOWN), {"magnetic_field": FIELD}, [ground])
    assert all(args[key] == value for key, value in found)


@pytest.mark.model
def test_the_default_model_calls_with_the_demos_values_and_the_shim_makes_no_such_call(qwen_backend) -> None:
    """Qwen2.5-coder-0.5B, asked something a BMI tool cannot serve, calls it with the demo's 2.5 and 2.5 (after the
    ``ungrounded`` correction too); with the check the reply makes no call and says why."""
    schema = {"type": "object", "required": ["weight", "height"], "properties": {
        "weight": {"type": "number", "description": "Weight in kg."},
        "height": {"type": "number", "description": "Height in metres."}}}
    tools = [{"type": "function", "function": {"name": "calculate_bmi", "parameters": schema,
                                               "description": "Calculate the body mass index of a person."}}]
    ask = [{"role": "user", "content": "What's the average temperature in Lyon in March?"}]

    def reply(checks: str) -> dict:
        return tool_calls(ask, tools, backend=qwen_backend, template="classic", checks=checks)

    off = reply("-demo_copy")["message"]
    assert [json.loads(c["function"]["arguments"]) for c in off["tool_calls"]] == [{"weight": 2.5, "height": 2.5}]
    on = reply("default")
    assert not on["message"].get("tool_calls") and "demo_copy" in on["step_checks"]
