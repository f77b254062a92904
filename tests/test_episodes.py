"""Choosing few-shot episodes and writing call demos for tools no episode was written for."""

from __future__ import annotations

import pytest

from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.prompting.episodes import (
    Episode,
    ExampleStep,
    choose_episodes,
    demo_episode,
    question_language,
)
from react_text.prompting.demo_values import sample_arguments
from react_text.prompting.tool_views import describe_tools


@dataclass(frozen=True)
class Spec:
    name: str
    description: str = ""
    parameters: tuple = ()
    schema: dict[str, Any] = field(default_factory=dict)


def _ep(kind: str, tools: tuple[str, ...], question: str = "q") -> Episode:
    steps = tuple(ExampleStep("t", tool, {"x": 1}, "obs") for tool in tools)
    return Episode(question, steps, "done", "ans", kind)


LIBRARY = (
    _ep("lookup", ("search",), "Who designed the lighthouse?"),
    _ep("multihop", ("search", "calculator"), "How many more seats does the theatre have?"),
    _ep("refusal", ("search",), "What is the shoe size of the harbour master?"),
    _ep("in_question", ()),
    _ep("arithmetic", ("calculator",), "How many jars are on the trucks?"),
)


def test_only_episodes_whose_tools_are_all_offered_are_shown() -> None:
    shown = choose_episodes(LIBRARY, [Spec("calculator")], "How many jars?")
    assert {ep.kind for ep in shown} == {"arithmetic"}
    quoted = choose_episodes(LIBRARY, [Spec("calculator")], "A note says: 'the jars cost 3 each'. How many jars?")
    assert {ep.kind for ep in quoted} == {"in_question", "arithmetic"}  # no tool needed: only when the question quotes it
    assert [ep.kind for ep in choose_episodes(LIBRARY, [], "Hi")] == ["in_question"]


def test_one_per_kind_a_refusal_when_it_fits_and_at_most_four() -> None:
    tools = [Spec("search"), Spec("calculator")]
    shown = choose_episodes(LIBRARY + (_ep("lookup", ("search",), "another lookup"),), tools, "Who designed it?")
    kinds = [ep.kind for ep in shown]
    assert len(kinds) == len(set(kinds)) <= 4 and "refusal" in kinds and "lookup" in kinds


def test_tools_no_episode_uses_get_demos_closest_to_the_question_first() -> None:
    tools = [Spec("get_stock_price", "Latest price of a stock."), Spec("get_weather", "Current weather for a city."),
             Spec("translate", "Translate a text.")]
    shown = choose_episodes(LIBRARY, tools, "What is the weather in Oslo?")
    demos = [ep for ep in shown if ep.is_demo]
    assert [ep.steps[0].tool for ep in demos] == ["get_weather", "get_stock_price"]
    assert all(not ep.steps or ep.steps[0].tool in {t.name for t in tools} for ep in shown)


def test_sample_arguments_follow_the_schema() -> None:
    schema = {"type": "object", "required": ["city", "unit", "days", "parcel", "tags", "when"], "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "days": {"type": "integer"},
        "parcel": {"type": "object", "required": ["weight"], "properties": {"weight": {"type": "number"}}},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["red", "blue"]}},
        "when": {"type": "string", "examples": ["tomorrow"]},
        "optional": {"type": "string"},
    }}
    args = sample_arguments(schema)
    assert args["city"] == "Lisbon" and args["unit"] in ("c", "f") and isinstance(args["days"], int)
    assert args["parcel"] == {"weight": 2.5} and args["tags"][0] in ("red", "blue") and args["when"] == "tomorrow"
    assert "optional" not in args
    assert sample_arguments({"type": "object", "properties": {"q": {"type": "string"}}}) == {"q": "sample q"}
    hinted = {"type": "object", "properties": {"item": {"type": "string", "description": "item name, e.g. notebook"}}}
    assert sample_arguments(hinted) == {"item": "notebook"}


@pytest.mark.parametrize(("description", "value"), [
    ("The city and state, e.g. Berkeley, CA", "Berkeley, CA"),  # one value in two parts: kept whole
    ("e.g., San Francisco, CA. Required.", "San Francisco, CA"),
    ('The key, such as "C#", "D"', "C#"),  # quoted: as quoted
    ("A colour, like red, green or blue", "red"),  # alternatives: the first
    ("A speed unit, e.g. km/h", "km/h"),
])
def test_a_described_example_is_shown_whole_in_the_call_demo(description: str, value: str) -> None:
    """Cut at its comma, "e.g. Berkeley, CA" taught the model to pass "Los Angeles" for a city-and-state."""
    schema = {"type": "object", "properties": {"location": {"type": "string", "description": description}},
              "required": ["location"]}
    assert sample_arguments(schema) == {"location": value}


def test_an_optional_argument_is_shown_only_with_its_default() -> None:
    schema = {"type": "object", "required": ["flavour"], "properties": {
        "flavour": {"type": "string"},
        "size": {"type": "string", "enum": ["small", "medium", "large"], "default": "medium"},
        "extra_cheese": {"type": "boolean", "default": False},
        "note": {"type": "string"},  # no default: a stand-in would be a value to copy
    }}
    assert sample_arguments(schema) == {"flavour": "sample flavour", "size": "medium", "extra_cheese": False}


def test_a_demo_is_a_call_with_no_observation_and_no_answer() -> None:
    (spec,) = describe_tools([{"name": "get_weather", "description": "Current weather for a city.",
                               "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                              "required": ["city"]}}])
    demo = demo_episode(spec)
    assert demo.is_demo and demo.answer == "" and demo.steps[0].observation == ""
    assert demo.steps[0].args == {"city": "Lisbon"} and "Lisbon" in demo.question
    zh = demo_episode(spec, "zh")
    assert zh.steps[0].args == {"city": "杭州"} and question_language(zh.question) == "en" or "杭州" in zh.question


def test_question_language() -> None:
    assert question_language("青石镇的人口是多少？") == "zh"
    assert question_language("What is the population of 青石镇?") == "en"
    assert question_language("2031-10-01 是星期几？") == "zh"


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(
    st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
    st.sampled_from([{"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"},
                     {"type": "array", "items": {"type": "integer"}}, {"enum": ["a", "b"]},
                     {"type": "object", "properties": {"k": {"type": "string"}}}, {}]),
    max_size=6,
), st.text(max_size=60))
def test_demos_never_fail_and_call_only_the_tool(props: dict, question: str) -> None:
    schema = {"type": "object", "properties": props, "required": list(props)}
    (spec,) = describe_tools([{"name": "tool_x", "description": "Does x.", "parameters": schema}])
    shown = choose_episodes(LIBRARY, [spec], question)
    demos = [ep for ep in shown if ep.is_demo]
    assert len(demos) == 1 and demos[0].steps[0].tool == "tool_x"
    assert set(demos[0].steps[0].args) == set(props)
