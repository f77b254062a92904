"""The ``stated_option`` check: an optional argument the request states is passed when the call leaves it out."""

from __future__ import annotations

import json

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.stated_options import offered_values, stated_options

from test_shim import END, _user

FACTOR = {"type": "object", "required": ["number"], "properties": {
    "number": {"type": "integer", "description": "The number to factorize."},
    "return_type": {"type": "string", "description": "Can be 'list' for the factors or 'dictionary' for a count of "
                                                     "each. Default is 'list'."}}}
UNITS = {"type": "object", "required": ["city"], "properties": {
    "city": {"type": "string", "description": "The city, e.g. 'Paris'."},
    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    "system": {"type": "string", "enum": ["metric", "imperial"]}}}


def test_the_values_a_parameter_offers_come_from_its_enum_or_from_two_or_more_quoted_in_its_description() -> None:
    assert offered_values(FACTOR["properties"]["return_type"]) == ("list", "dictionary")
    assert offered_values(UNITS["properties"]["unit"]) == ("celsius", "fahrenheit")
    assert offered_values(UNITS["properties"]["city"]) == ()  # one quoted value is an example
    assert offered_values(FACTOR["properties"]["number"]) == ()


def test_a_left_out_option_the_request_names_once_is_passed_and_nothing_else_is() -> None:
    calls = (("factor", {"number": 60}),)
    schemas = {"factor": FACTOR, "weather": UNITS}
    assert stated_options(calls, schemas, "Factor 60. Return them in the form of dictionary.") == \
        (("factor", {"number": 60, "return_type": "dictionary"}),)
    assert stated_options(calls, schemas, "Factor 60 into a list or a dictionary.") == calls  # two named: no choice
    assert stated_options(calls, schemas, "Factor 60, dictionaryless.") == calls  # a word of its own only
    given = (("factor", {"number": 60, "return_type": "list"}),)
    assert stated_options(given, schemas, "Factor 60 as a dictionary.") == given  # the model's own value stands
    weather = (("weather", {"city": "Oslo"}),)
    assert stated_options(weather, schemas, "Weather in Oslo in Celsius, metric please.") == \
        (("weather", {"city": "Oslo", "unit": "celsius", "system": "metric"}),)
    assert stated_options((("unknown", {"a": 1}),), schemas, "dictionary") == (("unknown", {"a": 1}),)


def test_the_shim_passes_the_stated_option_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "prime_factorize", "description": "Prime factors of a number.",
                                               "parameters": FACTOR}}]
    turn = ' I factorize it.\nAction: prime_factorize\nAction Input: {"number": 60}'
    ask = _user("What is the prime factorization of 60? Return them in the form of dictionary")
    out = tool_calls(ask, tools, backend=ScriptedBackend([turn, END], supports_grammar=True))
    assert json.loads(out["message"]["tool_calls"][0]["function"]["arguments"]) == {"number": 60,
                                                                                    "return_type": "dictionary"}
    assert out["step_checks"] == ["stated_option"]
    off = tool_calls(ask, tools, backend=ScriptedBackend([turn, END], supports_grammar=True),
                     checks="-stated_option")
    assert json.loads(off["message"]["tool_calls"][0]["function"]["arguments"]) == {"number": 60}
