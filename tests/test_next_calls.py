"""After a constrained turn's calls the shim asks for the request's next call or its end (``fc.next_calls``)."""

from __future__ import annotations

import json

from react_text import tool_calls as shim_tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.grammar.gbnf import grammar_matches
from react_text.lexicon.messages import message

from test_shim import END, TOOLS, WEATHER_TURN, _user

OSLO = ' Now Oslo.\nAction: get_weather\nAction Input: {"city": "Oslo"}'
MONEY = '\nAction: convert_currency\nAction Input: {"amount": 20, "source": "EUR", "target": "USD"}'


def tool_calls(*args: object, checks: str = "default", **options: object) -> dict:
    """The shim with the next calls asked one ReAct step at a time: ``call_list`` off (``test_call_list``)."""
    spec = "-call_list" if checks == "default" else f"{checks},-call_list" if checks[0] in "+-" else checks
    return shim_tool_calls(*args, checks=spec, **options)  # type: ignore[arg-type]


def _cities(out: dict) -> list[str]:
    return [json.loads(c["function"]["arguments"]).get("city", c["function"]["name"])
            for c in out["message"]["tool_calls"]]


def test_each_next_call_is_asked_for_until_the_model_ends_and_the_calls_keep_their_order() -> None:
    backend = ScriptedBackend([WEATHER_TURN, OSLO, " And the money." + MONEY, END], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris and Oslo, and 20 EUR in USD?"), TOOLS, backend=backend)
    assert _cities(out) == ["Paris", "Oslo", "convert_currency"] and out["finish_reason"] == "tool_calls"
    assert out["more_calls"] == 2  # the trace tells the turn's own calls from those asked for after it
    first, *steps = backend.calls
    note = message("en", "more_calls")
    assert steps[0].prompt == first.prompt + WEATHER_TURN + f"\nObservation: {note}\nThought:"
    for before, after in zip(backend.calls, steps):
        assert after.prompt.startswith(before.prompt)  # only appends: llama.cpp keeps its prefix cache
    assert steps[-1].prompt.count(f"Observation: {note}\nThought:") == 3
    step = steps[0].grammar
    assert grammar_matches(step, OSLO) and grammar_matches(step, END) and grammar_matches(step, " Nothing more.")
    assert not grammar_matches(step, OSLO + "\nAction: get_weather\nAction Input: {\"city\": \"Rome\"}")  # one a step
    assert not grammar_matches(step, ' Also.\nAction: forecast\nAction Input: {"days": 3}')  # only offered tools
    assert out["usage"]["prompt_tokens"] == sum(backend.count_tokens(c.prompt) for c in backend.calls)


def test_a_request_for_one_thing_stays_one_call_when_the_model_ends() -> None:
    backend = ScriptedBackend([WEATHER_TURN, END], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend)
    assert _cities(out) == ["Paris"] and "more_calls" not in out


def test_a_call_written_again_or_an_unusable_step_ends_the_turn_with_the_calls_before_it() -> None:
    again = ScriptedBackend([WEATHER_TURN, OSLO, WEATHER_TURN, OSLO], supports_grammar=True)
    assert _cities(tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=again)) == ["Paris", "Oslo"]
    assert again.remaining == 1
    bad = ScriptedBackend([WEATHER_TURN, ' x\nAction: get_weather\nAction Input: {}'], supports_grammar=True)
    assert _cities(tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=bad,
                              checks="-list_rest")) == ["Paris"]  # list_rest would call Oslo from the list


def test_a_turn_holds_at_most_the_parallel_limit_and_a_declined_turn_is_never_followed() -> None:
    cities = [f"City{i}" for i in range(10)]
    turns = [f' {c}.\nAction: get_weather\nAction Input: {{"city": "{c}"}}' for c in cities]
    backend = ScriptedBackend(turns, supports_grammar=True)
    question = f"Weather in {', '.join(cities)}?"
    assert _cities(tool_calls(_user(question), TOOLS, backend=backend)) == cities[:8] and backend.remaining == 2
    declined = ScriptedBackend([" No tool fits; I know this.", " Paris"], supports_grammar=True)
    out = tool_calls(_user("Capital of France?"), TOOLS, backend=declined)
    assert out["message"]["content"] == "Paris" and declined.remaining == 0


def test_the_switch_and_what_it_needs_a_grammar_several_calls_and_a_call() -> None:
    """Off with ``checks=-more_calls``, with ``parallel_tool_calls=False``, without a grammar; a forced call
    (required, named) may still end after its calls."""
    # list_rest off where it would call Oslo from the request's list after the turn's one call
    for options in ({"checks": "-more_calls,-list_rest"}, {"parallel_tool_calls": False},
                    {"constrain": False, "checks": "-list_rest"}):
        backend = ScriptedBackend([WEATHER_TURN, OSLO], supports_grammar=True)
        assert _cities(tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=backend, **options)) == ["Paris"]
        assert backend.remaining == 1, options
    named = {"type": "function", "function": {"name": "get_weather"}}
    for choice in ("required", named):
        backend = ScriptedBackend([WEATHER_TURN, OSLO, END], supports_grammar=True)
        out = tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=backend, tool_choice=choice)
        assert _cities(out) == ["Paris", "Oslo"] and grammar_matches(backend.calls[1].grammar, END)
    backend = ScriptedBackend([WEATHER_TURN, " Money." + MONEY], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend, tool_choice=named)
    assert _cities(out) == ["Paris"] and not grammar_matches(backend.calls[1].grammar, " Money." + MONEY)


def test_a_call_written_again_is_asked_once_more_held_to_the_request_values_no_call_used() -> None:
    """``other_values`` (off by default): the model copies its first call; asked again under a grammar that
    holds the city to the request's names no call used, it writes the next one; once none is left, a repeat
    ends the turn."""
    backend = ScriptedBackend([WEATHER_TURN, WEATHER_TURN, OSLO, WEATHER_TURN], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=backend, checks="+other_values")
    assert _cities(out) == ["Paris", "Oslo"] and backend.remaining == 0 and out["step_checks"] == ["other_values"]
    repeat, held, last = backend.calls[1:]
    assert held.prompt == repeat.prompt and held.grammar != repeat.grammar  # the same step, asked again
    assert grammar_matches(held.grammar, OSLO) and grammar_matches(held.grammar, END)
    assert not grammar_matches(held.grammar, WEATHER_TURN) and grammar_matches(held.grammar, " Money." + MONEY)
    assert last.grammar == repeat.grammar
    off = ScriptedBackend([WEATHER_TURN, WEATHER_TURN, OSLO], supports_grammar=True)
    assert _cities(tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=off,
                              checks="-list_rest")) == ["Paris"]  # off by default
    assert off.remaining == 1


def test_a_step_call_with_a_value_from_nowhere_where_the_request_gave_one_ends_the_turn() -> None:
    """``kept_values``: Paris came from the request, Lisbon from nowhere: the model went past the request."""
    lisbon = ' Lisbon.\nAction: get_weather\nAction Input: {"city": "Lisbon"}'
    for checks, cities, acted in (("default", ["Paris", "Oslo"], ["kept_values"]),
                                  ("-kept_values,-demo_copy", ["Paris", "Oslo", "Lisbon"], None)):
        backend = ScriptedBackend([WEATHER_TURN, OSLO, lisbon, END], supports_grammar=True)
        out = tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=backend, checks=checks)
        assert _cities(out) == cities and out.get("step_checks") == acted
