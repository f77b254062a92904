"""The tool-call forms chat templates teach (Qwen/Hermes, Llama 3.x, Mistral), read by the one parser."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from react_text.protocol.parser import parse
from react_text.protocol.turn import MAX_ACTIONS

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOOLS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}},
    "add": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
}
WEATHER = {"name": "get_weather", "arguments": {"city": "Paris"}}
ADD = {"name": "add", "arguments": {"a": 1, "b": 2}}
BOTH = [("get_weather", {"city": "Paris"}), ("add", {"a": 1, "b": 2})]


def j(value: object) -> str:
    return json.dumps(value)


def llama(call: dict) -> dict:
    return {"name": call["name"], "parameters": call["arguments"]}


@pytest.mark.parametrize("text", [
    f"<tool_call>\n{j(WEATHER)}\n</tool_call>\n<tool_call>\n{j(ADD)}\n</tool_call>",  # Qwen/Hermes, one per block
    f"<tool_call>{j(WEATHER)}</tool_call><tool_call>{j(ADD)}</tool_call>",  # back to back on one line
    f"I'll call both.\n<tool_call>\n{j(WEATHER)}\n</tool_call>\n\n<tool_call>\n{j(ADD)}\n</tool_call><|im_end|>",
    f"```json\n{j(WEATHER)}\n```\n```json\n{j(ADD)}\n```",  # fenced, one block each
    f"```\n{j(WEATHER)}\n```\n\n```\n{j(ADD)}\n```",
    f"```json\n{j([WEATHER, ADD])}\n```",  # a fenced list
    f"{j([llama(WEATHER), llama(ADD)])}",  # a bare list, Llama's "parameters"
    f"{j(llama(WEATHER))}\n{j(llama(ADD))}",
    f"<|python_tag|>{j(llama(WEATHER))}; {j(llama(ADD))}<|eom_id|>",  # Llama 3.x
    f"<function=get_weather>{j(WEATHER['arguments'])}</function><function=add>{j(ADD['arguments'])}</function>",
    f"[TOOL_CALLS] {j([WEATHER, ADD])}",  # Mistral
    f"[TOOL_CALLS]{j([WEATHER, ADD])}</s>",
    f"[TOOL_CALLS]get_weather[ARGS]{j(WEATHER['arguments'])}[TOOL_CALLS]add[ARGS]{j(ADD['arguments'])}",  # v11
])
def test_several_native_calls_come_back_in_order(text: str) -> None:
    step = parse(text, TOOLS)
    assert step.error is None, step.error
    assert [(a.tool, a.args) for a in step.actions] == BOTH


@pytest.mark.parametrize("text", [
    f"<tool_call>\n{j(WEATHER)}\n</tool_call>",
    f"<|python_tag|>{j(llama(WEATHER))}",
    f"[TOOL_CALLS] [{j(WEATHER)}]",
    f"[TOOL_CALLS]get_weather[ARGS]{j(WEATHER['arguments'])}",
    f"<function=get_weather>{j(WEATHER['arguments'])}</function>",
    j({"type": "function", "function": {"name": "get_weather", "arguments": j({"city": "Paris"})}}),
])
def test_one_native_call(text: str) -> None:
    step = parse(text, TOOLS)
    assert [(a.tool, a.args) for a in step.actions] == BOTH[:1], step


def test_the_prose_before_a_marker_is_the_thought_and_a_made_up_tail_is_dropped() -> None:
    step = parse(f"Let me check.\n[TOOL_CALLS] [{j(WEATHER)}]\nThe weather is sunny.", TOOLS)
    assert step.thought == "Let me check."
    assert [a.tool for a in step.actions] == ["get_weather"]
    assert "dropped_tail" in step.repairs


def test_a_marker_holding_no_call_falls_back_to_the_walk() -> None:
    step = parse("[TOOL_CALLS] nothing here\nFinal Answer: 42", TOOLS)
    assert step.final_answer == "42" and not step.actions


def test_plain_text_is_the_answer_when_prose_is_final() -> None:
    assert parse("It is sunny in Paris.", TOOLS, prose="final").final_answer == "It is sunny in Paris."


def test_an_unknown_tool_in_a_native_call_is_the_usual_error() -> None:
    step = parse(f"[TOOL_CALLS] [{j({'name': 'get_wether', 'arguments': {}})}, {j(ADD)}]", TOOLS)
    assert step.error is not None and step.error.code == "unknown_tool" and step.error.detail == "get_wether"


def test_a_run_of_native_calls_is_capped() -> None:
    text = "<|python_tag|>" + "; ".join([j(llama(ADD))] * (MAX_ACTIONS + 5))
    step = parse(text, TOOLS)
    assert len(step.actions) == MAX_ACTIONS and "too_many_actions" in step.repairs


calls = st.lists(st.tuples(st.sampled_from(["get_weather", "add"]),
                           st.dictionaries(st.sampled_from(["city", "a", "b"]),
                                           st.one_of(st.integers(-99, 99), st.text("abc xyz", min_size=1, max_size=8)),
                                           max_size=3)),
                 min_size=1, max_size=5)
FAMILIES = {
    "hermes": lambda cs: "\n".join(f"<tool_call>\n{j({'name': n, 'arguments': a})}\n</tool_call>" for n, a in cs),
    "mistral": lambda cs: "[TOOL_CALLS] " + j([{"name": n, "arguments": a} for n, a in cs]),
    "llama": lambda cs: "<|python_tag|>" + "; ".join(j({"name": n, "parameters": a}) for n, a in cs),
    "function": lambda cs: "".join(f"<function={n}>{j(a)}</function>" for n, a in cs),
}


@FAST
@given(cs=calls, family=st.sampled_from(sorted(FAMILIES)), lead=st.sampled_from(["", "Sure.\n", "ok "]))
def test_every_family_reads_back_every_call_in_order(cs, family, lead) -> None:
    step = parse(lead + FAMILIES[family](cs), TOOLS)
    assert step.error is None, step.error
    assert [(a.tool, a.args) for a in step.actions] == cs


MARKER_TEXT = st.lists(st.sampled_from(["<tool_call>", "</tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "<function=",
                                        "[ARGS]", "{", "}", "[", "]", '"name"', ":", ",", ";", '"add"', "\n", " ", "x",
                                        '"arguments"', "```", "<|eom_id|>"]), max_size=60).map("".join)


@FAST
@given(text=MARKER_TEXT)
def test_never_raises_on_marker_soup(text: str) -> None:
    step = parse(text, TOOLS)
    assert (step.error is None) != (not step.actions and step.final_answer is None)
    assert 0 <= step.end <= len(text)
