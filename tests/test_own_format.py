"""The ``own_format`` check: a reply every text-protocol try of which failed, asked once more in the model's own
tool format, its calls kept only when every value is spelled in the request."""

from __future__ import annotations

import json

from react_text import tool_calls

from test_own_options import _backend
from test_shim import _user

WEATHER = {"type": "function", "function": {"name": "weather", "description": "The weather forecast for a city.",
           "parameters": {"type": "object", "required": ["city", "days"], "properties": {
               "city": {"type": "string"}, "days": {"type": "integer"},
               "units": {"type": "string", "enum": ["metric", "imperial"]}}}}}
ASKED = "What is the weather in Oslo for the next 3 days?"
SHORT = ' The weather tool.\nAction: weather\nAction Input: {"city": "Oslo"}'  # "days" left out: bad arguments
FAILS = [SHORT, SHORT, SHORT]


def _own(arguments: dict) -> str:
    return '<tool_call>\n' + json.dumps({"name": "weather", "arguments": arguments}) + '\n</tool_call>'


def test_a_reply_no_try_could_use_gets_the_call_the_model_writes_in_its_own_format() -> None:
    backend = _backend([*FAILS, _own({"city": "Oslo", "days": 3, "units": "metric"})])
    out = tool_calls(_user(ASKED), [WEATHER], backend=backend, template="classic", checks="-own_options")
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in out["message"]["tool_calls"]]
    assert calls == [("weather", {"city": "Oslo", "days": 3, "units": "metric"})]  # an enum's member is the tool's
    assert "own_format" in out["step_checks"] and backend.remaining == 0
    own = backend.calls[-1]
    assert "<tools>" in own.prompt and ASKED in own.prompt and own.grammar is None  # read leniently, no grammar


def test_switched_off_or_with_a_value_the_request_does_not_spell_the_failure_stands() -> None:
    off = _backend([*FAILS, _own({"city": "Oslo", "days": 3})])
    out = tool_calls(_user(ASKED), [WEATHER], backend=off, template="classic", checks="-own_format,-own_options")
    assert "tool_calls" not in out["message"] and "usable reply" in out["message"]["content"]
    assert off.remaining == 1  # not asked
    for made_up in ({"city": "Oslo", "days": 7}, {"city": "The name of the city.", "days": 3}):
        backend = _backend([*FAILS, _own(made_up)])
        out = tool_calls(_user(ASKED), [WEATHER], backend=backend, template="classic", checks="-own_options")
        assert "tool_calls" not in out["message"] and "usable reply" in out["message"]["content"]
        assert backend.remaining == 0  # asked, and its call left out


def test_a_model_without_a_tools_block_is_not_asked() -> None:
    plain = _backend([*FAILS, _own({"city": "Oslo", "days": 3})], template="{% for m in messages %}{{ m.content }}{% endfor %}")
    out = tool_calls(_user(ASKED), [WEATHER], backend=plain, template="classic")
    assert "tool_calls" not in out["message"] and plain.remaining == 1


def test_an_empty_optional_value_the_model_writes_is_no_value_of_its_own() -> None:
    """``team=""`` for an optional string writes nothing the request could spell: the call is kept."""
    noted = json.loads(json.dumps(WEATHER))
    noted["function"]["parameters"]["properties"]["note"] = {"type": "string"}
    backend = _backend([*FAILS, _own({"city": "Oslo", "days": 3, "note": ""})])
    out = tool_calls(_user(ASKED), [noted], backend=backend, template="classic", checks="-own_options")
    calls = [json.loads(c["function"]["arguments"]) for c in out["message"]["tool_calls"]]
    assert calls == [{"city": "Oslo", "days": 3, "note": ""}] and "own_format" in out["step_checks"]


def test_an_answer_that_is_only_a_tools_name_gets_the_call_in_the_models_own_format() -> None:
    """``bare_name``: "Final Answer: weather" answers nobody; the model's own format writes the call."""
    named = ' The weather tool does this.\nFinal Answer: weather'
    backend = _backend([named, _own({"city": "Oslo", "days": 3})])
    out = tool_calls(_user(ASKED), [WEATHER], backend=backend, template="classic", checks="-own_options")
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in out["message"]["tool_calls"]]
    assert calls == [("weather", {"city": "Oslo", "days": 3})]
    assert "bare_name" in out["step_checks"] and backend.remaining == 0
    off = _backend([named, _own({"city": "Oslo", "days": 3})])
    out = tool_calls(_user(ASKED), [WEATHER], backend=off, template="classic", checks="-own_options,-bare_name")
    assert out["message"]["content"] == "weather" and off.remaining == 1  # the answer stands, nothing asked
