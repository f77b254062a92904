"""The ``described_option`` check: an optional argument whose value only the parameter's description gives is
left out."""

from __future__ import annotations

import json

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.described_options import without_described

from test_shim import END, _user

MOVIES = {"type": "object", "required": ["actor_name", "year"], "properties": {
    "actor_name": {"type": "string", "description": "The name of the actor."},
    "year": {"type": "integer", "description": "The year to search in."},
    "category": {"type": "string", "description": "The category of the film (e.g. Drama, Comedy, etc). Default is "
                                                  "'all'.", "default": "all"},
    "rating": {"type": "string", "enum": ["G", "PG", "R"], "description": "Rating, e.g. PG."},
    "notes": {"type": "string", "description": "Anything else."}}}
SCHEMAS = {"find_movies": MOVIES}
ASK = "Find all movies starring Leonardo DiCaprio in the year 2010."


def _call(**args) -> tuple[tuple[str, dict], ...]:
    return (("find_movies", {"actor_name": "Leonardo DiCaprio", "year": 2010, **args}),)


def test_an_optional_value_only_the_description_gives_is_left_out() -> None:
    assert without_described(_call(category="Drama"), SCHEMAS, [ASK]) == _call()
    assert without_described(_call(category="drama"), SCHEMAS, [ASK]) == _call()  # letter case aside


def test_a_value_the_request_or_a_result_holds_the_default_an_enum_or_the_model_s_own_words_stay() -> None:
    kept = [
        (_call(category="Drama"), [ASK + " Only dramas, please."]),  # the request says it
        (_call(category="Drama"), [ASK, "Result: genres on file: Drama, Comedy"]),  # a result holds it
        (_call(category="all"), [ASK]),  # the default
        (_call(rating="PG"), [ASK]),  # an enum: the model maps the request onto its labels
        (_call(notes="Oscar winners"), [ASK]),  # the description does not spell it
        (_call(category="Dram"), [ASK]),  # not a word of the description's own
    ]
    for calls, grounds in kept:
        assert without_described(calls, SCHEMAS, grounds) == calls
    required = {"find_movies": {**MOVIES, "required": ["actor_name", "year", "category"]}}
    assert without_described(_call(category="Drama"), required, [ASK]) == _call(category="Drama")
    assert without_described((("unknown", {"category": "Drama"}),), SCHEMAS, [ASK]) == (("unknown", {"category": "Drama"}),)


def test_the_shim_leaves_the_described_value_out_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "find_movies", "description": "Movies by an actor in a year.",
                                               "parameters": MOVIES}}]
    turn = (' I search.\nAction: find_movies\nAction Input: {"actor_name": "Leonardo DiCaprio", "year": 2010, '
            '"category": "Drama"}')
    on = tool_calls(_user(ASK), tools, backend=ScriptedBackend([turn, END], supports_grammar=True))
    assert json.loads(on["message"]["tool_calls"][0]["function"]["arguments"]) == {"actor_name": "Leonardo DiCaprio",
                                                                                   "year": 2010}
    assert on["step_checks"] == ["described_option"]
    off = tool_calls(_user(ASK), tools, backend=ScriptedBackend([turn, END], supports_grammar=True),
                     checks="-described_option")
    assert json.loads(off["message"]["tool_calls"][0]["function"]["arguments"])["category"] == "Drama"
