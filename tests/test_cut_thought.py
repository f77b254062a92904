"""The ``cut_thought`` check: a first thought the grammar's length bound ended goes on to the model's own choice."""

from __future__ import annotations

import json

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.grammar.gbnf import DEFAULT_MAX_THOUGHT_CHARS, grammar_matches

from test_shim import TOOLS, _user

THOUGHT = " " + ("This asks for the weather in the city of Paris today " * 4)[:DEFAULT_MAX_THOUGHT_CHARS - 3] + "get"
REST = '_weather does that.\nAction: get_weather\nAction Input: {"city": "Paris"}'


def test_a_thought_the_bound_cut_goes_on_under_the_grammar_to_a_call() -> None:
    assert len(THOUGHT.strip()) == DEFAULT_MAX_THOUGHT_CHARS
    backend = ScriptedBackend([THOUGHT, REST, "]"], supports_grammar=True)
    out = tool_calls(_user("What is the weather in Paris?"), TOOLS, backend=backend)
    call = out["message"]["tool_calls"][0]["function"]
    assert (call["name"], json.loads(call["arguments"])) == ("get_weather", {"city": "Paris"})
    assert out["step_checks"] == ["cut_thought"]
    going_on = backend.calls[1]
    assert going_on.prompt.endswith(THOUGHT)
    assert grammar_matches(going_on.grammar, REST)
    assert grammar_matches(going_on.grammar, "\nFinal Answer: I cannot tell.")  # the answer stays the model's to pick
    assert not grammar_matches(going_on.grammar, " and more thought")  # a call or an answer must follow


def test_off_or_for_a_thought_that_ended_by_itself_the_answer_is_asked_for() -> None:
    off = ScriptedBackend([THOUGHT, "France."], supports_grammar=True)
    out = tool_calls(_user("Which country is Paris in?"), TOOLS, backend=off, checks="-cut_thought")
    assert out["message"]["content"] == "France." and "step_checks" not in out
    assert off.calls[1].prompt.endswith("Final Answer:")
    short = ScriptedBackend([" I know this one.", "Paris is in France."], supports_grammar=True)
    out = tool_calls(_user("Which country is Paris in?"), TOOLS, backend=short)
    assert out["message"]["content"] == "Paris is in France." and "step_checks" not in out
