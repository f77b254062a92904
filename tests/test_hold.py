"""The turn after a correction that names the tool to call is held to a call of it (``checks.hold``).

Issue 28: told "Call lookup_price", with "lookup_price is the tool for this question." opening its thought,
Qwen2.5-coder-0.5B wrote ``Action: calculator`` again. The loop now samples that turn under a grammar that
admits only a call of the named tool, as the shim's retry already was; ``held_call`` switches it off.
"""

from __future__ import annotations

import pytest

from react_text import tool_calls
from react_text.agent.decisions import Retry
from react_text.agent.loop import Agent
from react_text.backends.scripted import ScriptedBackend
from react_text.checks import DEFAULT_CHECKS
from react_text.checks.hold import held_grammar
from react_text.grammar.gbnf import grammar_matches
from react_text.prompting.templates import load_template
from react_text.protocol.dialects import format_action, format_final
from react_text.tools.spec import tool

QUESTION = "How much do 12 apples cost, in euros?"


@tool
def lookup_price(item: str) -> float:
    """The price of one item in the shop, in euros (item: a singular noun such as 'apple')."""
    return {"apple": 0.40, "pear": 0.55}[item]


def act(name: str, args: dict, thought: str = " This is arithmetic.") -> str:
    return f"{thought}\n{format_action('classic', name, args)}"


INVENTED = act("calculator", {"expression": "12 apples * 1 euro"})
LOOKUP = "\n" + format_action("classic", "lookup_price", {"item": "apple"})
PRODUCT = act("calculator", {"expression": "12 * 0.4"}, " The price is 0.4 euros.")
ANSWER = " The calculator gives 4.8.\n" + format_final("classic", "4.8 euros")


def _run(script: list[str], *, grammar: bool = True, checks: object = "default"):
    backend = ScriptedBackend(script, supports_grammar=grammar)
    agent = Agent(backend, [lookup_price, "calculator"], load_template("classic"), trace=False, checks=checks)
    return agent.run(QUESTION), backend


def _kinds(result) -> list[str]:
    return [s.decision.reason if isinstance(s.decision, Retry) else type(s.decision).__name__ for s in result.steps]


def test_after_the_tool_choice_correction_the_next_turn_can_only_call_the_named_tool():
    result, backend = _run([INVENTED, LOOKUP, PRODUCT, ANSWER])
    assert _kinds(result) == ["guard:tool_choice", "RunTool", "RunTool", "Finish"]
    assert result.answer == "4.8 euros" and result.steps[0].decision.hold == "lookup_price"
    first, held, after, last = (c.grammar for c in backend.calls)
    assert first is None and after is None and last is None  # one turn is held, no other
    assert backend.calls[1].prompt.endswith("lookup_price is the tool for this question.")
    assert grammar_matches(held, LOOKUP)
    assert grammar_matches(held, " I look it up." + LOOKUP)  # the lead's thought may go on first
    for other in (INVENTED, "\n" + format_final("classic", "12 euros"), " I know this.",
                  "\n" + format_action("classic", "price_list", {"item": "apple"})):
        assert not grammar_matches(held, other), other  # no other tool, no answer, no tool nobody offered
    assert backend.calls[1].max_tokens >= 256  # a held turn may run to the grammar's bound


def test_a_backend_without_grammars_is_asked_as_before():
    result, backend = _run([INVENTED, LOOKUP, PRODUCT, ANSWER], grammar=False)
    assert _kinds(result) == ["guard:tool_choice", "RunTool", "RunTool", "Finish"]
    assert all(c.grammar is None for c in backend.calls)


def test_held_call_off_leaves_the_turn_free_and_the_invented_operand_is_then_caught():
    """Without the hold the model may write its call again (as the 0.5B model did); the 1 it multiplies
    by is in neither the question nor any result, so ``ungrounded`` questions it before it runs."""
    assert "held_call" in DEFAULT_CHECKS
    result, backend = _run([INVENTED, INVENTED, LOOKUP, PRODUCT, ANSWER], checks="-held_call")
    assert all(c.grammar is None for c in backend.calls)
    assert _kinds(result) == ["guard:tool_choice", "guard:ungrounded", "RunTool", "RunTool", "Finish"]
    assert '"1"' in result.steps[1].observation_text and result.steps[0].decision.hold == ""
    assert result.answer == "4.8 euros"


def test_only_a_correction_that_names_a_tool_holds_the_next_turn():
    backend = ScriptedBackend([INVENTED, " I look it up." + LOOKUP, PRODUCT, ANSWER], supports_grammar=True)
    agent = Agent(backend, [lookup_price, "calculator"], load_template("classic"), trace=False,
                  checks="ungrounded")
    result = agent.run(QUESTION)
    assert _kinds(result) == ["guard:ungrounded", "RunTool", "RunTool", "Finish"]
    assert all(c.grammar is None for c in backend.calls)


@pytest.mark.parametrize("hold,supports", [("", True), ("weather", True), ("lookup_price", False)])
def test_nothing_is_held_without_a_named_offered_tool_and_a_grammar_backend(hold, supports):
    backend = ScriptedBackend([], supports_grammar=supports)
    assert held_grammar(hold, [lookup_price], "classic", backend, declines=False) is None


def test_the_shim_may_still_decline_under_the_hold_and_held_call_switches_it_off_there_too():
    tools = [{"type": "function", "function": {"name": "lookup_price", "description": lookup_price.description,
                                               "parameters": lookup_price.parameters}},
             {"type": "function", "function": {"name": "calculator", "description": "Work out arithmetic.",
                                               "parameters": {"type": "object",
                                                              "properties": {"expression": {"type": "string"}},
                                                              "required": ["expression"]}}}]
    messages = [{"role": "user", "content": QUESTION}]
    held = ScriptedBackend([INVENTED, LOOKUP], supports_grammar=True)
    out = tool_calls(messages, tools, backend=held, parallel_tool_calls=False)  # one call: no next step asked for
    assert out["format_errors"] == ["guard:tool_choice"] and out["finish_reason"] == "tool_calls"
    assert grammar_matches(held.calls[1].grammar, LOOKUP)
    assert grammar_matches(held.calls[1].grammar, "\n" + format_action("classic", "price_list", {"item": "apple"}))
    free = ScriptedBackend([INVENTED, LOOKUP], supports_grammar=True)
    tool_calls(messages, tools, backend=free, checks="-held_call", parallel_tool_calls=False)
    assert grammar_matches(free.calls[1].grammar, INVENTED)  # only what is offered, any of it


def test_the_readme_run_as_the_model_wrote_it_ends_on_the_calculation():
    """What Qwen2.5-coder-0.5B wrote once held to lookup_price: the price of one apple as the answer. The 12
    went into nothing, so ``unused_number`` asks for the calculation, its lead naming the calculator, and the
    next turn is held to a calculator call working the 12 with the result (as the model then wrote
    ``calculator("0.4 euros")`` three times)."""
    one = " The calculator gives 0.4 euros.\n" + format_final("classic", "0.4")
    product = "\n" + format_action("classic", "calculator", {"expression": "12 * 0.4"})
    result, backend = _run([INVENTED, LOOKUP, one, product, ANSWER], checks="+unused_number")
    assert _kinds(result) == ["guard:tool_choice", "RunTool", "guard:unused_number", "RunTool", "Finish"]
    assert backend.calls[3].prompt.endswith("The question also gives 12, so I work it out with the calculator.")
    held = backend.calls[3].grammar
    assert grammar_matches(held, product) and grammar_matches(held, product.replace("12 * 0.4", "0.4 / 12"))
    assert not grammar_matches(held, product.replace("12 * 0.4", "0.4 euros"))
    assert not grammar_matches(held, product.replace("12 * 0.4", "12 * 10"))  # no number from nowhere
    assert result.answer == "4.8 euros"
    free, backend = _run([INVENTED, LOOKUP, one, product, ANSWER], checks="+unused_number,-held_call")
    assert free.answer == "4.8 euros" and backend.calls[3].grammar is None  # held_call off: the turn is free


def test_a_held_schema_limits_the_named_arguments_to_their_values_and_keeps_the_rest():
    from react_text.checks.hold import held_schema
    schema = {"type": "object", "properties": {"expression": {"type": "string"}, "precision": {"type": "integer"}}}
    held = held_schema(schema, [("expression", ["1 + 2"]), ("absent", ["x"])])
    assert held["properties"]["expression"] == {"type": "string", "enum": ["1 + 2"]}
    assert held["properties"]["precision"] == {"type": "integer"} and "absent" not in held["properties"]
    assert held["required"] == ["expression"] and "required" not in schema  # the tool's own schema is untouched
