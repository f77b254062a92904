"""The ``own_options`` check: optional arguments a call left out, asked for again in the model's own tool format."""

from __future__ import annotations

import json

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.grammar.gbnf import grammar_matches

from test_native_protocol import HERMES
from test_shim import _user

CASES = {"type": "function", "function": {"name": "top_cases", "description": "The top cases in a field of law.",
         "parameters": {"type": "object", "required": ["field", "top"], "properties": {
             "field": {"type": "string"}, "top": {"type": "integer"},
             "country": {"type": "string", "description": "Country. Default: United States."},
             "since": {"type": "integer", "description": "The earliest year."}}}}}
ASKED = "Get me the top 10 landmark cases in constitutional law in China."
TURN = ' The top cases tool.\nAction: top_cases\nAction Input: {"field": "constitutional law", "top": 10}'
OWN = ('<tool_call>\n{"name": "top_cases", "arguments": {"field": "constitutional law", "top": 10, '
       '"country": "China", "since": 1999}}\n</tool_call>')


def _backend(turns: list[str], template: str | None = HERMES) -> ScriptedBackend:
    backend = ScriptedBackend(turns, supports_grammar=True)
    backend.chat_template = template  # type: ignore[attr-defined]  # as llama.cpp reads it from the GGUF
    return backend


def _calls(out: dict) -> list[tuple[str, dict]]:
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in out["message"]["tool_calls"]]


def test_an_optional_argument_the_request_states_is_added_and_a_value_from_nowhere_is_not() -> None:
    backend = _backend([TURN, "]", OWN])
    out = tool_calls(_user(ASKED), [CASES], backend=backend, template="classic")
    assert _calls(out) == [("top_cases", {"field": "constitutional law", "top": 10, "country": "China"})]
    assert out["step_checks"] == ["own_options"]
    own = backend.calls[-1]
    assert "<tools>" in own.prompt and ASKED in own.prompt  # the model's own template, with the tools
    assert grammar_matches(own.grammar, OWN)
    assert not grammar_matches(own.grammar, OWN.replace('"top": 10', '"top": 12'))  # the values passed are held
    alone = tool_calls(_user(ASKED), [CASES], backend=_backend([TURN, "]"]), template="classic", checks="-own_options")
    assert out["usage"]["completion_tokens"] > alone["usage"]["completion_tokens"]  # its tokens are counted


def test_off_without_a_tools_template_or_with_nothing_left_out_the_calls_stand() -> None:
    out = tool_calls(_user(ASKED), [CASES], backend=_backend([TURN, "]"]), checks="-own_options", template="classic")
    assert _calls(out) == [("top_cases", {"field": "constitutional law", "top": 10})] and "step_checks" not in out
    plain = _backend([TURN, "]"], template="{% for m in messages %}{{ m.content }}{% endfor %}")
    out = tool_calls(_user(ASKED), [CASES], backend=plain, template="classic")
    assert _calls(out) == [("top_cases", {"field": "constitutional law", "top": 10})] and plain.remaining == 0
    full = TURN.replace('"top": 10}', '"top": 10, "country": "China", "since": 10}')
    backend = _backend([full, "]"])
    out = tool_calls(_user(ASKED), [CASES], backend=backend, template="classic")
    assert len(_calls(out)[0][1]) == 4 and backend.remaining == 0  # nothing left out: nothing asked


def test_a_listed_variant_the_fill_makes_the_same_as_the_call_before_it_goes() -> None:
    """The list wrote the call again with ``country`` added; filled, the first call is that call: one stays.
    Calls the model itself wrote the same stay as they were."""
    variant = '    top_cases(field="constitutional law", top=10, country="China"),\n]'
    own = OWN.replace(', "since": 1999', "")
    out = tool_calls(_user(ASKED), [CASES], backend=_backend([TURN, variant, own, own]), template="classic")
    assert _calls(out) == [("top_cases", {"field": "constitutional law", "top": 10, "country": "China"})]
    assert out.get("more_calls", 0) == 0  # the listed call is gone, so it is not counted


HOTELS = {"type": "function", "function": {"name": "find_hotels", "description": "Find hotels in a city.",
          "parameters": {"type": "object", "required": ["city"], "properties": {
              "city": {"type": "string", "description": "The city."},
              "stars": {"type": "integer", "description": "Minimum star rating. Default 1."},
              "country": {"type": "string", "description": "The country. Default: United States."}}}}}


def test_the_default_model_adds_the_country_the_request_states_in_its_own_format(qwen_backend) -> None:
    """Real llama.cpp, Qwen's own chat template: under the text protocol the call is ``city="Porto"`` alone;
    written again in the model's own format, it passes the country the request names."""
    asked = [{"role": "user", "content": "Find hotels in Porto in Portugal."}]
    off = tool_calls(asked, [HOTELS], backend=qwen_backend, template="classic", constrain=True, checks="-own_options")
    on = tool_calls(asked, [HOTELS], backend=qwen_backend, template="classic", constrain=True)
    assert _calls(off) == [("find_hotels", {"city": "Porto"})]
    assert _calls(on) == [("find_hotels", {"city": "Porto", "country": "Portugal"})]
    assert "own_options" in on["step_checks"]



PROTEINS = {"type": "function", "function": {"name": "proteins", "description": "Proteins of a cell part.",
            "parameters": {"type": "object", "required": ["part"], "properties": {
                "part": {"type": "string"}, "describe": {"type": "boolean", "description": "Describe each."}}}}}


def test_a_value_the_fill_adds_goes_in_as_its_schema_s_type_and_one_that_fits_none_is_left_out() -> None:
    """The model's own format may write a flag as text ("true"): it goes in as a boolean, as in any call."""
    turn = ' The proteins tool.\nAction: proteins\nAction Input: {"part": "membrane"}'
    asked = _user("Which proteins are in the membrane?")
    for written, passed in (('"true"', {"describe": True}), ('"maybe"', {})):
        own = ('<tool_call>\n{"name": "proteins", "arguments": {"part": "membrane", "describe": ' + written
               + '}}\n</tool_call>')
        out = tool_calls(asked, [PROTEINS], backend=_backend([turn, "]", own]), template="classic")
        assert _calls(out) == [("proteins", {"part": "membrane", **passed})]
