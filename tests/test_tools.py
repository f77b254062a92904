"""Tools: schemas from functions and JSON, argument coercion, and every way a call can go wrong."""

from __future__ import annotations  # string annotations: @tool must resolve them

import contextvars
import dataclasses
import datetime as dt
import json
import os
import signal
import threading
from typing import Annotated, Literal, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.tools.arguments import ArgumentError, bind_args, coerce_args
from react_text.tools.calling import _strip_fields, call_tool  # _strip_fields: the fail-closed rule, tested directly
from react_text.tools.results import COUNT_LIMIT, render_result
from react_text.tools.schemas import ToolDefinitionError
from react_text.tools.signature import parse_docstring
from react_text.tools.spec import Tool, tool, tool_from_schema



# --- schemas from functions ---------------------------------------------------------

def test_schema_from_type_hints_and_google_docstring() -> None:
    @tool
    def book(city: str, nights: int, budget: float = 100.0, pets: bool = False,
             rooms: list[int] | None = None, extras: dict = None,  # type: ignore[assignment]
             mode: Literal["fast", "cheap"] = "cheap", note: Optional[str] = None) -> str:
        """Book a hotel room.

        Longer text that is not part of the description.

        Args:
            city: where to stay
            nights (int): how many nights,
                at least one.
            budget: euros per night
        Returns:
            a confirmation
        """
        return city

    assert book.name == "book"
    assert book.description == "Book a hotel room."
    assert book.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "where to stay"},
            "nights": {"type": "integer", "description": "how many nights, at least one."},
            "budget": {"type": "number", "description": "euros per night", "default": 100.0},
            "pets": {"type": "boolean", "default": False},
            "rooms": {"type": ["array", "null"], "items": {"type": "integer"}, "default": None},
            "extras": {"type": "object", "default": None},
            "mode": {"type": "string", "enum": ["fast", "cheap"], "default": "cheap"},
            "note": {"type": ["string", "null"], "default": None},
        },
        "required": ["city", "nights"],
    }
    assert book("Paris", 2) == "Paris"  # still a function
    assert book.timeout == 10 and book.max_chars == 2000


def test_decorator_options_and_annotated_descriptions() -> None:
    @tool(name="lookup", description="Look a word up.", timeout=1.5, max_chars=50, examples={"word": "cat"})
    def _lookup(word: Annotated[str, "the word to find"], limit: int = 3) -> str:
        return word

    assert (_lookup.name, _lookup.description, _lookup.timeout, _lookup.max_chars) == \
        ("lookup", "Look a word up.", 1.5, 50)
    assert _lookup.properties["word"] == {"type": "string", "description": "the word to find", "examples": ["cat"]}
    assert _lookup.example == {"word": "cat"}
    assert _lookup.to_openai()["function"]["name"] == "lookup"


def test_numpy_and_sphinx_docstrings() -> None:
    numpy_doc = """Add two numbers.

    Parameters
    ----------
    a : int
        The first one.
    b : int
        The second
        one.

    Returns
    -------
    int
    """
    assert parse_docstring(numpy_doc) == ("Add two numbers.", {"a": "The first one.", "b": "The second one."})
    sphinx_doc = """Say hello
    to someone.

    :param name: who to greet
    :param int times: how often
    :returns: the greeting
    """
    assert parse_docstring(sphinx_doc) == ("Say hello to someone.", {"name": "who to greet", "times": "how often"})
    assert parse_docstring(None) == ("", {})


def test_unsupported_declarations_fail_at_definition() -> None:
    class Point:
        pass

    with pytest.raises(ToolDefinitionError, match=r"\*args"):
        tool(lambda *args: None)
    with pytest.raises(ToolDefinitionError, match="unsupported annotation"):
        @tool
        def where(p: Point) -> None:  # noqa: F821 - resolved through locals fallback
            pass
    with pytest.raises(ToolDefinitionError, match="tool name"):
        Tool(name="two words", description="", parameters={"type": "object"}, fn=print)
    with pytest.raises(ToolDefinitionError, match="callable"):
        Tool(name="x", description="", parameters={"type": "object"}, fn="nope")  # type: ignore[arg-type]
    with pytest.raises(ToolDefinitionError, match="examples"):
        tool(examples={"nope": 1})(lambda x: x)


# --- schemas from JSON -------------------------------------------------------------------

def test_tool_from_openai_schema_and_bare_schema_with_dict_type() -> None:
    wrapped = {"type": "function", "function": {
        "name": "get_weather", "description": "Weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    weather = tool_from_schema(wrapped, lambda city: f"sunny in {city}")
    assert weather.name == "get_weather" and weather.required == ("city",)
    assert call_tool(weather, "Oslo").text == "sunny in Oslo"

    bare = {"name": "math.area", "description": "Area.", "parameters": {
        "type": "dict",
        "properties": {"radius": {"type": "float"}, "sides": {"type": "tuple", "items": {"type": "int"}}},
        "required": ["radius"]}}
    area = tool_from_schema(bare, lambda radius, sides=(): radius)
    assert area.parameters["type"] == "object"
    assert area.properties["radius"] == {"type": "number"}
    assert area.properties["sides"] == {"type": "array", "items": {"type": "integer"}}
    assert bare["parameters"]["type"] == "dict"  # the caller's dict is not modified
    assert coerce_args(area, {"radius": "2.5", "sides": "[1, 2]"}) == {"radius": 2.5, "sides": [1, 2]}

    no_params = tool_from_schema({"name": "ping"}, lambda: "pong")
    assert no_params.parameters == {"type": "object", "properties": {}}


@pytest.mark.parametrize("schema, message", [
    ({"description": "no name"}, "name"),
    ({"type": "function", "function": "oops"}, "function"),
    ({"name": "t", "parameters": {"type": "object", "properties": {}, "required": ["x"]}}, "required"),
    ({"name": "t", "parameters": {"type": "object", "properties": ["x"]}}, "properties"),
    ({"name": "t", "parameters": {"type": "string"}}, "object"),
    ("not a dict", "dict"),
])
def test_malformed_schemas_are_named(schema: object, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        tool_from_schema(schema, print)  # type: ignore[arg-type]


# --- coercion ----------------------------------------------------------------------------

@tool(examples={"text": "hello"})
def repeat(text: str, count: int = 1, ratio: float = 1.0, loud: bool = False,
           style: Literal["plain", "fancy"] = "plain", tags: list[str] | None = None) -> str:
    """Repeat some text."""
    return " ".join([text.upper() if loud else text] * count)


@tool
def evaluate(expression: str) -> str:
    """Evaluate something."""
    return expression


@tool
def now() -> str:
    """What time it is."""
    return "noon"


@pytest.mark.parametrize("given_args, expected", [
    ({"text": "a", "count": "3"}, {"count": 3}),
    ({"text": "a", "count": 3.0}, {"count": 3}),
    ({"text": "a", "count": " 1,000 "}, {"count": 1000}),
    ({"text": "a", "ratio": "2.5"}, {"ratio": 2.5}),
    ({"text": "a", "ratio": 2}, {"ratio": 2}),
    ({"text": "a", "loud": "true"}, {"loud": True}),
    ({"text": "a", "loud": "Yes"}, {"loud": True}),
    ({"text": "a", "loud": "no"}, {"loud": False}),
    ({"text": "a", "loud": 1}, {"loud": True}),
    ({"text": "a", "style": "FANCY"}, {"style": "fancy"}),
    ({"text": 42}, {"text": "42"}),
    ({"text": "a", "tags": "x, y"}, {"tags": ["x", "y"]}),
    ({"text": "a", "tags": '["x", "y"]'}, {"tags": ["x", "y"]}),
    ({"text": "a", "tags": None}, {"tags": None}),
    ({"Text": "a", "COUNT": "2"}, {"text": "a", "count": 2}),
])
def test_values_are_coerced_to_their_schema(given_args: dict, expected: dict) -> None:
    values = coerce_args(repeat, given_args)
    for key, value in expected.items():
        assert values[key] == value and type(values[key]) is type(value)


def test_defaults_are_filled_and_repairs_recorded() -> None:
    bound = bind_args(repeat, {"text": "a", "count": "2"})
    assert bound.values == {"text": "a", "count": 2, "ratio": 1.0, "loud": False, "style": "plain", "tags": None}
    assert bound.repairs == ("coerced_type",)
    assert bind_args(repeat, {"text": "a"}).repairs == ()


def test_a_default_written_in_another_type_is_filled_as_its_type_and_one_that_fits_none_is_not() -> None:
    """BFCL-style schemas write ``"default": "false"`` for a boolean: a client must not get a string for it."""
    flags = Tool(name="proteins", description="", parameters={"type": "object", "required": ["part"], "properties": {
        "part": {"type": "string"}, "describe": {"type": "boolean", "default": "false"},
        "top": {"type": "integer", "default": "ten"}, "diet": {"type": "array", "default": "None"}}}, fn=print)
    assert bind_args(flags, {"part": "membrane"}).values == {"part": "membrane", "describe": False}


@pytest.mark.parametrize("given_args, argument, words", [
    ({"text": "a", "count": "many"}, "count", ["'count'", "an integer", '"many"']),
    ({"text": "a", "count": "2.5"}, "count", ["an integer"]),
    ({"text": "a", "ratio": "nan"}, "ratio", ["a number"]),
    ({"text": "a", "loud": "maybe"}, "loud", ["true or false"]),
    ({"text": "a", "style": "bold"}, "style", ['one of "plain", "fancy"']),
    ({"text": ["a"]}, "text", ["a string"]),
    ({"count": 2}, "text", ["missing required", "'text'"]),
    ({"text": "a", "colour": "red"}, "colour", ["unknown", "'colour'", "valid arguments are: text, count"]),
])
def test_argument_errors_are_written_for_the_model(given_args: dict, argument: str, words: list[str]) -> None:
    with pytest.raises(ArgumentError) as info:
        coerce_args(repeat, given_args)
    message = str(info.value)
    assert info.value.argument == argument and info.value.tool == "repeat"
    for word in words:
        assert word in message
    shown = json.loads(message.split("Write it like this: ", 1)[1])
    assert shown == info.value.example
    # the model's own call, repaired: its good values kept, the bad or missing one blanked, nothing invented
    assert shown.get("text") in ("a", "...") and shown.get(argument, "...") in ("...", "plain")
    assert all(v in (given_args.get(k), "...", "plain") for k, v in shown.items())


PARCEL_TOOL = tool_from_schema({"name": "ship", "description": "Ship a parcel.", "parameters": {
    "type": "object", "required": ["parcel"], "properties": {"parcel": {
        "type": "object", "required": ["weight_kg"], "properties": {
            "weight_kg": {"type": "number"},
            "size_cm": {"type": "object", "properties": {"length": {"type": "number"}}}}}}}},
    lambda parcel: str(parcel))


def test_nested_keys_match_like_arguments_and_unknown_ones_are_named() -> None:
    bound = bind_args(PARCEL_TOOL, {"parcel": {"Weight_KG": "3", "size_cm": {"LENGTH": 40}}})
    assert bound.values == {"parcel": {"weight_kg": 3.0, "size_cm": {"length": 40}}}
    assert "renamed_key" in bound.repairs
    with pytest.raises(ArgumentError) as info:  # a tool would ignore these and answer for a parcel of no size
        bind_args(PARCEL_TOOL, {"parcel": {"weight_kg": 3, "length_cm": 40}})
    message = str(info.value)
    assert "unknown key(s) 'length_cm'" in message and "its keys are: weight_kg, size_cm" in message
    assert info.value.example == {"parcel": {"weight_kg": "...", "size_cm": {"length": "..."}}}  # its shape
    with pytest.raises(ArgumentError, match="missing key\\(s\\) 'weight_kg'"):
        bind_args(PARCEL_TOOL, {"parcel": {"size_cm": {"length": 40}}})
    with pytest.raises(ArgumentError, match="key 'weight_kg' was given twice"):
        bind_args(PARCEL_TOOL, {"parcel": {"weight_kg": 3, "Weight-KG": 4}})


def test_an_object_open_to_more_keys_keeps_them() -> None:
    open_tool = tool_from_schema({"name": "tag", "description": "Tag.", "parameters": {
        "type": "object", "properties": {"labels": {
            "type": "object", "properties": {"colour": {"type": "string"}}, "additionalProperties": True}}}},
        lambda labels=None: str(labels))
    assert bind_args(open_tool, {"labels": {"colour": "red", "size": 2}}).values == {
        "labels": {"colour": "red", "size": 2}}


def test_bare_strings_and_one_argument_repairs() -> None:
    assert bind_args(evaluate, "2 + 2") == bind_args(evaluate, {"expression": "2 + 2"}).__class__(
        {"expression": "2 + 2"}, ("bare_string",))
    assert coerce_args(repeat, "hi") == coerce_args(repeat, {"text": "hi"})  # single *required* argument
    assert coerce_args(evaluate, '"quoted"') == {"expression": "quoted"}
    assert coerce_args(repeat, '{"text": "hi", "count": "2"}')["count"] == 2
    mapped = bind_args(evaluate, {"query": "3 * 4"})  # small models guess the argument name
    assert mapped.values == {"expression": "3 * 4"} and "renamed_argument" in mapped.repairs
    with pytest.raises(ArgumentError, match="unknown"):
        coerce_args(evaluate, {"query": "1", "other": "2"})
    # an empty value under an argument the tool does not take says nothing: dropped, not an error
    padded = bind_args(repeat, {"text": "hi", "attendees": 0, "notes": "", "extras": []})
    assert padded.values["text"] == "hi" and "dropped_empty_argument" in padded.repairs
    assert not {"attendees", "notes", "extras"} & set(padded.values)
    with pytest.raises(ArgumentError, match="unknown argument"):
        coerce_args(repeat, {"text": "hi", "attendees": 3})

    @tool
    def two(a: str, b: str) -> str:
        """Needs both."""
        return a + b

    with pytest.raises(ArgumentError, match="several arguments"):
        coerce_args(two, "just one")
    with pytest.raises(ArgumentError, match="JSON object"):
        coerce_args(two, ["a", "b"])  # type: ignore[arg-type]


def test_json_text_for_a_lone_text_argument_stays_text() -> None:
    @tool
    def parse_json(text: str) -> str:
        """Parse a JSON document."""
        return text

    assert coerce_args(parse_json, '{"a": 1}') == {"text": '{"a": 1}'}
    assert coerce_args(parse_json, '{"TEXT": "x"}') == {"text": "x"}  # those *are* its arguments


def test_tool_without_arguments_ignores_input() -> None:
    assert bind_args(now, "") == bind_args(now, None)
    bound = bind_args(now, {"query": "time"})
    assert bound.values == {} and bound.repairs == ("ignored_arguments",)
    assert call_tool(now, "now please").text == "noon"


_SIMPLE = {
    "string": st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20),
    "integer": st.integers(-10**12, 10**12),
    "number": st.floats(allow_nan=False, allow_infinity=False, width=64),
    "boolean": st.booleans(),
}


@st.composite
def schema_and_values(draw: st.DrawFn) -> tuple[dict, dict]:
    names = draw(st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), min_size=1, max_size=5,
                          unique_by=lambda n: n.replace("_", "")))
    properties, values = {}, {}
    for name in names:
        kind = draw(st.sampled_from(sorted(_SIMPLE)))
        properties[name] = {"type": kind}
        values[name] = draw(_SIMPLE[kind])
    return {"name": "random_tool", "parameters": {"type": "dict", "properties": properties,
                                                  "required": names}}, values


def _as_model_text(value: object) -> str:
    """How a model would spell a value in plain text."""
    return json.dumps(value) if isinstance(value, bool) or not isinstance(value, str) else value


@settings(max_examples=100, deadline=None)
@given(schema_and_values(), st.data())
def test_coercion_round_trips_random_schemas(case: tuple[dict, dict], data: st.DataObject) -> None:
    schema, values = case
    random_tool = tool_from_schema(schema, lambda **kw: kw)
    assert coerce_args(random_tool, values) == values
    as_text = {k: _as_model_text(v) if data.draw(st.booleans()) else v for k, v in values.items()}
    coerced = coerce_args(random_tool, as_text)
    assert coerced == values
    assert all(type(coerced[k]) is type(values[k]) or random_tool.properties[k]["type"] == "number"
               for k in values)


# --- calling: every failure becomes an observation -----------------------------------------

def test_ok_call_and_seconds() -> None:
    observation = call_tool(repeat, {"text": "ab", "count": "2"})
    assert (observation.ok, observation.text, observation.code, observation.truncated) == (True, "ab ab", "ok", False)
    assert observation.seconds >= 0


def test_bad_arguments_become_a_retryable_observation() -> None:
    observation = call_tool(repeat, {"count": "x"})
    assert (observation.ok, observation.code, observation.retryable) == (False, "bad_arguments", True)
    assert "Invalid input for tool repeat" in observation.text


class ReadTimeout(OSError):
    """Named like requests' timeout: retryable by its name."""


class Flaky(Exception):
    retryable = True


@pytest.mark.parametrize("error, retryable", [
    (ValueError("boom"), False),
    (KeyError("missing"), False),
    (TimeoutError("slow upstream"), True),
    (ConnectionError("refused"), True),
    (ReadTimeout("read timed out"), True),
    (Flaky("try again"), True),
    (SystemExit(3), False),
])
def test_a_raising_tool_becomes_tool_error(error: BaseException, retryable: bool) -> None:
    def fail() -> None:
        raise error

    observation = call_tool(tool(fail), {})
    assert (observation.ok, observation.code, observation.retryable) == (False, "tool_error", retryable)
    assert f"Tool fail failed: {type(error).__name__}" in observation.text
    assert "Traceback" not in observation.text and "File " not in observation.text


def test_huge_error_messages_are_cut() -> None:
    def fail() -> None:
        raise RuntimeError("x" * 100_000)

    observation = call_tool(tool(fail, max_chars=300), {})
    assert observation.truncated and len(observation.text) < 400 and "truncated" in observation.text


def test_a_hanging_tool_times_out_and_is_abandoned() -> None:
    release = threading.Event()

    @tool(timeout=0.2)
    def hang() -> str:
        """Never answers in time."""
        release.wait(60)
        return "late"

    try:
        observation = call_tool(hang, {})
        assert (observation.ok, observation.code, observation.retryable) == (False, "timeout", False)
        assert "did not finish within 0.2 seconds" in observation.text
        assert observation.seconds >= 0.2
        quick = call_tool(hang, {}, timeout=0.05)  # the per-call timeout overrides the tool's
        assert quick.code == "timeout" and "0.05" in quick.text
    finally:
        release.set()


def test_keyboard_interrupt_from_a_tool_propagates() -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call_tool(tool(interrupt), {})  # through the worker thread
    with pytest.raises(KeyboardInterrupt):
        call_tool(tool(interrupt, timeout=None), {})  # inline


def test_ctrl_c_while_waiting_for_a_tool_propagates() -> None:
    started, release = threading.Event(), threading.Event()

    @tool(timeout=30)
    def slow() -> str:
        """Waits until released."""
        started.set()
        release.wait(60)
        return "done"

    def press_ctrl_c() -> None:
        if started.wait(10):
            os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    presser = threading.Thread(target=press_ctrl_c)
    try:
        presser.start()
        with pytest.raises(KeyboardInterrupt):
            call_tool(slow, {})
    finally:
        presser.join()
        release.set()
        signal.signal(signal.SIGINT, previous)


def test_megabytes_of_text_are_truncated_with_a_marker() -> None:
    @tool(max_chars=1000)
    def flood() -> str:
        """A lot of text."""
        return "y" * 1_000_000

    observation = call_tool(flood, {})
    assert observation.ok and observation.truncated
    assert observation.text.startswith("y" * 1000)
    assert observation.text.endswith("…[truncated 999000 chars]")
    assert observation.text.count("y") == 1000
    assert call_tool(flood, {}, max_chars=10).text == "y" * 10 + "\n…[truncated 999990 chars]"


def test_large_structures_are_streamed_and_cut_with_an_exact_count() -> None:
    rows = [{"id": i, "name": f"row {i}", "tags": ["a", None]} for i in range(10_000)]
    text, truncated = render_result(rows, 500)
    assert truncated and text.startswith('[{"id": 0, "name": "row 0", "tags": ["a", null]}, {"id": 1')
    head, marker = text.split("\n…[truncated ", 1)
    assert len(head) == 500
    assert marker == f"{len(json.dumps(rows, ensure_ascii=False)) - 500} chars]"


def test_huge_structures_stop_being_counted() -> None:
    rows = [{"id": i, "name": f"row {i}"} for i in range(100_000)]  # about 3 MB of JSON
    text, truncated = render_result(rows, 200)
    assert truncated and len(text) < 300
    head, marker = text.split("\n…[truncated more than ", 1)
    assert len(head) == 200 and marker.endswith(" chars]")
    assert COUNT_LIMIT - 200 <= int(marker.split(" ")[0]) < COUNT_LIMIT


def test_non_text_results_are_rendered() -> None:
    class Opaque:
        pass

    class Broken:
        def __str__(self) -> str:
            raise RuntimeError("no")

    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    loop: list = [1]
    loop.append(loop)
    cases = [
        (b"\x00\x01" * 50, "<100 bytes of binary data>"),
        (bytearray(7), "<7 bytes of binary data>"),
        ({"城市": "北京", "n": 1.5, "ok": True, "none": None}, '{"城市": "北京", "n": 1.5, "ok": true, "none": null}'),
        ([1, (2, 3)], "[1, [2, 3]]"),
        ({(1, 2): "tuple key"}, '{"(1, 2)": "tuple key"}'),
        ({3, 1, 2}, "[1, 2, 3]"),
        (Point(1, 2), '{"x": 1, "y": 2}'),
        (42, "42"),
        (2.5, "2.5"),
        (True, "true"),
        (None, "(no result)"),
        ("", "(empty result)"),
        (Opaque(), "<Opaque object>"),
        (Broken(), "<Broken object (unprintable)>"),
        (dt.date(2024, 2, 29), "2024-02-29"),
        ({"when": dt.date(2024, 2, 29)}, '{"when": "2024-02-29"}'),
        (loop, '[1, "[circular]"]'),
        ({"blob": b"abc"}, '{"blob": "<3 bytes of binary data>"}'),
    ]
    for value, expected in cases:
        observation = call_tool(tool_from_schema({"name": "give"}, lambda v=value: v), {})
        assert (observation.ok, observation.text) == (True, expected), value
    assert "0x" not in call_tool(tool_from_schema({"name": "give"}, lambda: object), {}).text


def test_redaction_by_field_names_and_by_hook() -> None:
    secret = {"user": "ann", "API_KEY": "sk-123", "nested": [{"token": "t-9", "plan": "pro"}]}
    getter = tool_from_schema({"name": "account"}, lambda: secret)

    stripped = call_tool(getter, {}, redact={"api_key", "token"})
    assert json.loads(stripped.text) == {"user": "ann", "nested": [{"plan": "pro"}]}
    assert secret["API_KEY"] == "sk-123"  # the tool's own data is untouched
    assert "sk-123" not in call_tool(getter, {}, redact="api_key").text

    seen = []

    def hook(name: str, value: object) -> object:
        seen.append(name)
        return {k: "***" if k == "user" else v for k, v in value.items()}  # type: ignore[attr-defined]

    assert json.loads(call_tool(getter, {}, redact=hook).text)["user"] == "***"
    assert seen == ["account"]

    def broken_hook(name: str, value: object) -> object:
        raise ValueError("hook bug")

    failed = call_tool(getter, {}, redact=broken_hook)
    assert (failed.ok, failed.code) == (False, "redaction_error") and "sk-123" not in failed.text


def test_redaction_fails_closed_below_its_depth_limit() -> None:
    deep: dict = {"api_key": "sk-deep"}
    for _ in range(100):
        deep = {"inner": deep}
    text = call_tool(tool_from_schema({"name": "deep"}, lambda: deep), {}, redact={"api_key"}, max_chars=10**6).text
    assert "sk-deep" not in text
    stripped = _strip_fields(deep, {"api_key"})
    for _ in range(66):
        stripped = stripped["inner"] if isinstance(stripped, dict) else stripped
    assert stripped == "[too deep to check]"


def test_context_variables_reach_the_worker_thread() -> None:
    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="none")
    request_id.set("r-42")
    reader = tool_from_schema({"name": "who"}, lambda: request_id.get())
    assert call_tool(reader, {}).text == "r-42"
