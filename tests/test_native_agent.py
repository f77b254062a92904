"""The agent loop and compare with the model's own tool format (``template="native"``)."""

from __future__ import annotations

import json

from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.backends.scripted import ScriptedBackend
from react_text.eval import compare
from react_text.eval.planning import CompareSpec
from react_text.tools.spec import tool

from test_native_protocol import HERMES, PLAIN

CALL = '<tool_call>\n{"name": "add", "arguments": {"a": 17, "b": 25}}\n</tool_call>'


@tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def chat_backend(turns, template=HERMES) -> ScriptedBackend:
    backend = ScriptedBackend(turns)
    backend.chat_template = template
    return backend


def test_the_agent_feeds_tool_results_back_as_the_template_s_tool_messages() -> None:
    backend = chat_backend([CALL, "The sum is 42."])
    result = Agent(backend, tools=[add], template="native", instructions="Be brief.").run("What is 17 + 25?")
    assert result.status == "answered" and result.answer == "The sum is 42."
    first, second = backend.prompts
    assert first.startswith("<|im_start|>system\n# Tools") and "Be brief." in first
    assert second == first + CALL + "<|im_end|>\n<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n" \
                                     "<|im_start|>assistant\n"  # only appended to: the prefix cache stays warm
    assert "<|im_end|>" in backend.calls[0].stop


def test_parallel_calls_in_one_turn_all_run_in_order() -> None:
    backend = chat_backend([CALL + "\n" + CALL.replace("17", "1").replace("25", "2"), "42 and 3."])
    result = Agent(backend, tools=[add], template="native", limits=Limits(max_parallel_tools=2)).run("17 + 25, and 1 + 2?")
    assert result.answer == "42 and 3."
    assert [a.args for a in result.steps[0].step.actions] == [{"a": 17, "b": 25}, {"a": 1, "b": 2}]
    assert backend.prompts[1].count("<tool_response>") == 1 and "42" in backend.prompts[1].split("<tool_response>")[1]


def test_a_model_without_a_tools_block_ends_with_a_template_error() -> None:
    result = Agent(chat_backend([CALL], PLAIN), tools=[add], template="native").run("What is 17 + 25?")
    assert result.status == "template_error" and "no tools block" in result.reason


def test_compare_runs_native_beside_a_text_template(tmp_path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text(json.dumps({"id": "t1", "question": "What is 17 + 25?", "expected": 42, "match": "number",
                                 "tools": ["calculator"], "lang": "en", "category": "arithmetic"}) + "\n")
    spec = CompareSpec(templates=("native", "classic"), models=("fake",), suite=str(suite), out_dir=tmp_path / "out",
                       backend="http", urls=("http://127.0.0.1:9",))

    def answers(prompt: str) -> str:
        if "<tool_response>" in prompt:
            return "42"
        if "<tools>" in prompt:
            return '<tool_call>\n{"name": "calculator", "arguments": {"expression": "17 + 25"}}\n</tool_call>'
        return " Easy.\nFinal Answer: 42"

    records = compare.run_compare(spec, backend_factory=lambda model, worker: chat_backend([answers] * 4),
                                  progress_stream=open("/dev/null", "w"))
    assert sorted((r["template"], r["correct"]) for r in records) == [("classic", True), ("native", True)]
