"""An ungrounded call beside a grounded call of the same tool is asked again as calls of that tool, their numbers
held to the request's (``ungrounded_hold``); numbers written with a scale word ground their whole value; the shim's
grounding still checks defaults and enum members, which its demo call shows.

Seen on BFCL (Qwen2.5-Coder-0.5B, the shim's default): "Find the factorial of 5,10 and 15." got
``math.factorial(number=510)`` and ``math.factorial(number=15)``; told the 510 came from nowhere and that it may
answer instead, the model answered "126788000".
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks import DEFAULT_CHECKS
from react_text.checks.grounding import grounded_numbers, ungrounded_values
from react_text.checks.reading import Reading, Situation
from react_text.checks.review import review
from react_text.grammar.gbnf import grammar_matches
from react_text.lexicon.numbers import scaled_numbers

FACTORIAL = {"type": "object", "properties": {"number": {"type": "integer"}}, "required": ["number"]}
QUESTION = "Find the factorial of 5,10 and 15."
SHIM = Situation(question=QUESTION, tool_names=("factorial", "other"), grounds=(QUESTION,),
                 schemas={"factorial": FACTORIAL}, choice_covers_answers=True, leads_for=frozenset({"tool_choice"}),
                 require_observation=False, defaults_checked=True)
SLIPPED = (("factorial", {"number": 510}), ("factorial", {"number": 15}))


def test_grounded_numbers_are_those_the_texts_write_of_each_required_number_arguments_type() -> None:
    schema = {"type": "object", "required": ["rate", "count", "name", "size"],
              "properties": {"rate": {"type": "float"}, "count": {"type": "integer"}, "name": {"type": "string"},
                             "size": {"type": "integer", "enum": [1, 2]}, "rounding": {"type": "integer"}}}
    held = dict(grounded_numbers(schema, ["A rate of 0.7 for 12 items, five of them red."]))
    assert held == {"rate": (0.7, 5, 12), "count": (5, 12)}  # optional, enum and string arguments are free
    assert grounded_numbers(schema, ["No figure here."]) == ()
    many = " ".join(str(n) for n in range(100, 140))
    assert grounded_numbers(schema, [many]) == ()  # a result full of figures holds nothing


def test_an_ungrounded_call_beside_a_grounded_one_of_its_tool_is_held_to_it_with_the_requests_numbers() -> None:
    nudge = review(Reading(calls=SLIPPED), SHIM)
    assert nudge is not None and nudge.code == "ungrounded"
    assert nudge.hold == "factorial" and nudge.hold_values == (("number", (5, 10, 15)),)
    alone = review(Reading(calls=SLIPPED[:1]), SHIM)
    assert alone is not None and alone.hold == ""  # nothing says the tool fits: it may still answer
    other = review(Reading(calls=(SLIPPED[0], ("other", {}))), SHIM)
    assert other is not None and other.hold == ""  # another tool's call says nothing of this one
    for off in ("ungrounded_hold", "held_call"):
        nudge = review(Reading(calls=SLIPPED), replace(SHIM, checks=DEFAULT_CHECKS - {off}))
        assert nudge is not None and nudge.hold == "" and nudge.hold_values == ()


TOOL = {"type": "function", "function": {"name": "factorial", "description": "The factorial of a whole number.",
                                         "parameters": FACTORIAL}}
TURN = (' This asks for factorials.\nAction: factorial\nAction Input: {"number": 510}\n'
        'Action: factorial\nAction Input: {"number": 15}')
ANSWERED = " The factorial of 510 is 126788000.\nFinal Answer: 126788000"
CALLED = ' I call it with the numbers.\nAction: factorial\nAction Input: {"number": 5}'
MERGED = ' I call it.\nAction: factorial\nAction Input: {"number": 510}'


def test_the_shim_asks_the_calls_again_under_a_grammar_that_admits_only_the_requests_numbers() -> None:
    backend = ScriptedBackend([TURN, CALLED], supports_grammar=True)
    out = tool_calls([{"role": "user", "content": QUESTION}], [TOOL], backend=backend, parallel_tool_calls=False)
    assert out["format_errors"] == ["guard:ungrounded"] and out["finish_reason"] == "tool_calls"
    held = backend.calls[1].grammar
    assert grammar_matches(held, CALLED) and not grammar_matches(held, ANSWERED)
    assert not grammar_matches(held, MERGED)  # nor as a decline spelling the held tool, free arguments and all
    backend = ScriptedBackend([TURN, ANSWERED], supports_grammar=True)
    out = tool_calls([{"role": "user", "content": QUESTION}], [TOOL], backend=backend, parallel_tool_calls=False,
                     checks="-ungrounded_hold")
    assert out["message"]["content"] == "126788000"  # as before: told it may answer, it did


def test_a_number_written_with_a_scale_word_grounds_its_whole_value() -> None:
    assert scaled_numbers("1.267 billion people, 50 Million USD, 3.5万人, 2亿") == [1267000000.0, 50000000.0, 35000.0,
                                                                                 200000000.0]
    request = "What is the dividend per share with 100 million shares and a payout of 50 million USD?"
    assert ungrounded_values({"payout": 50000000, "shares": 100000000}, None, [request]) == ()
    assert ungrounded_values({"payout": 500000000}, None, [request]) == ("500000000",)
    schema = {"type": "object", "required": ["payout"], "properties": {"payout": {"type": "integer"}}}
    assert dict(grounded_numbers(schema, [request]))["payout"][-2:] == (50000000, 100000000)


def test_the_shim_checks_defaults_and_enum_members_as_its_demo_shows_them_while_the_loop_does_not() -> None:
    schema = {"type": "object", "required": ["value", "unit"], "properties": {
        "value": {"type": "number"}, "unit": {"type": "string", "enum": ["celsius", "kelvin"]},
        "judge": {"type": "string", "default": "Andrew"}}}
    loop = Situation(question="Convert 30 degrees.", tool_names=("convert",), grounds=("Convert 30 degrees.",),
                     schemas={"convert": schema}, example_arguments=('{"judge": "Andrew"}',))
    call = Reading(calls=(("convert", {"value": 30, "unit": "kelvin", "judge": "Andrew"}),))
    assert review(call, loop) is None
    shim = review(call, replace(loop, defaults_checked=True))
    assert shim is not None and shim.code == "ungrounded" and '"Andrew"' in shim.message


@pytest.mark.model
def test_the_default_model_told_of_a_merged_number_calls_with_the_requests_numbers_instead_of_inventing(
        qwen_backend) -> None:
    """Qwen2.5-coder-0.5B reads "4,8" as 48: with the check off it then answers "The factorial of 48 is …" from
    its own head; with it on, the reply is a call of the tool with the request's numbers only."""
    fact = {"type": "function", "function": {
        "name": "math.factorial", "description": "Calculate the factorial of a given positive integer.",
        "parameters": {"type": "object", "required": ["number"],
                       "properties": {"number": {"type": "integer", "description": "The number."}}}}}
    ask = [{"role": "user", "content": "Find the factorial of 4,8 and 12."}]

    def reply(checks: str) -> dict:
        return tool_calls(ask, [fact], backend=qwen_backend, template="classic", checks=checks)

    off = reply("-ungrounded_hold")
    assert off["format_errors"] == ["guard:ungrounded"] and not off["message"].get("tool_calls")
    on = reply("default")
    numbers = [json.loads(c["function"]["arguments"])["number"] for c in on["message"]["tool_calls"]]
    assert on["format_errors"] == ["guard:ungrounded"] and numbers and set(numbers) <= {4, 8, 12}
