"""The ``several_named`` check: a first answer with no call, where the request names several tools alike.

Seen on BFCL (Qwen2.5-Coder-0.5B, the shim's default): "the greatest common divisor of 96 and 128, and the least
common multiple of 15 and 25" answered "32, 75" from the model's own head. No one tool is the clear pick there,
so ``tool_choice`` said nothing; every such answer in the recorded replies came where two tools or more were
named alike, and none where no tool fits.
"""

from __future__ import annotations

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.prompting.retrieval import named_tools
from react_text.checks.request_values import holds_values
from react_text.fc.request import read_tools

from test_shim import _user

PAIR = {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
TOOLS = [{"type": "function", "function": {"name": name, "description": about, "parameters": PAIR}}
         for name, about in (("gcd", "Greatest common divisor of two integers."),
                             ("lcm", "Least common multiple of two integers."),
                             ("power", "An integer raised to the power of another."))]
ASK = "The greatest common divisor of 96 and 128, and the least common multiple of 15 and 25?"
HEAD = " I know these.\nFinal Answer: 32 and 75."
GCD = ' The gcd first.\nAction: gcd\nAction Input: {"a": 96, "b": 128}'


def test_the_tools_a_request_in_parts_names_alike_are_read_best_first() -> None:
    assert set(named_tools(read_tools(TOOLS), ASK)) == {"gcd", "lcm"}
    assert named_tools(read_tools(TOOLS), "The greatest common divisor of 96 and 128?") == ()  # one: a clear pick
    assert named_tools(read_tools(TOOLS), "What is the capital of Peru?") == ()


def test_an_answer_from_the_models_head_is_asked_for_a_call_of_a_named_tool_and_not_with_the_check_off() -> None:
    def run(checks: str, replies: list[str]) -> tuple[dict, ScriptedBackend]:
        backend = ScriptedBackend(replies, supports_grammar=True)
        return tool_calls(_user(ASK), TOOLS, backend=backend, checks=checks, parallel_tool_calls=False), backend

    out, backend = run("default", [HEAD, GCD])
    assert out["format_errors"] == ["guard:several_named"] and out["finish_reason"] == "tool_calls"
    correction = backend.prompts[1][len(backend.prompts[0]):]
    named = out["message"]["tool_calls"][0]["function"]["name"]
    assert named in correction and "96" not in correction  # a tool and what it does, never a value
    assert backend.calls[1].grammar is not None  # the next turn is held to a call of it (held_call)
    out, _ = run("-several_named", [HEAD])
    assert out["message"]["content"] == "32 and 75." and not out.get("format_errors")


def test_an_answer_where_no_tool_is_named_stands() -> None:
    backend = ScriptedBackend([" No tool does that.\nFinal Answer: Lima."])
    out = tool_calls(_user("What is the capital of Peru?"), TOOLS, backend=backend)
    assert out["message"]["content"] == "Lima." and len(backend.calls) == 1


def test_a_request_that_writes_no_value_a_call_could_take_asks_for_judgement() -> None:
    assert not holds_values("Should I convert money or check the weather first?")
    assert holds_values("Weather in Oslo and 20 EUR in USD?") and holds_values("Rates on 'Dark' and Lupin?")
