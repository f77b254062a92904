"""The registry of checks: every intervention by name, switchable as a group and one by one, the
same in the loop, the shim and the CLI; and the plain engine (``checks=none``) with no correction."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import get_args

import pytest

from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.backends.scripted import ScriptedBackend
from react_text.checks import (ALL_CHECKS, CHECKS, DEFAULT_CHECKS, NO_CHECKS, OFF_BY_DEFAULT, CheckName, describe, in_order,
                                parse_checks)
from react_text.cli.compare import cell_labels
from react_text.cli.main import build_parser
from react_text.eval import compare
from react_text.eval.planning import CompareSpec, template_checks
from react_text.fc.endpoint import ServerConfig
from react_text.fc.shim import tool_calls
from react_text.prompting.templates import load_template
from react_text.protocol.dialects import format_action, format_final
from react_text.tools.calculator import calculator

ROOT = Path(__file__).resolve().parents[1]


def final(answer: str, thought: str = "I know the answer now.") -> str:
    return f" {thought}\n{format_final('classic', answer)}"


def act(tool: str, args) -> str:
    return f" I use a tool.\n{format_action('classic', tool, args)}"


@pytest.mark.parametrize(("spec", "expected"), [
    ("all", ALL_CHECKS), (None, DEFAULT_CHECKS), ("default", DEFAULT_CHECKS), ("none", NO_CHECKS),
    ("-arithmetic,-facts", DEFAULT_CHECKS - {"arithmetic", "facts"}),
    ("-facts,+rounding", DEFAULT_CHECKS - {"facts"} | {"rounding"}),
    ("rounding, facts", frozenset({"rounding", "facts"})),
    (["echo"], frozenset({"echo"})),
])
def test_parse_checks_reads_all_none_minus_and_names(spec, expected) -> None:
    assert parse_checks(spec) == expected


@pytest.mark.parametrize("spec", ["roundin", "-rounding,facts", "all,-x"])
def test_parse_checks_refuses_unknown_names_and_mixed_specs(spec) -> None:
    with pytest.raises(ValueError):
        parse_checks(spec)


def test_the_registry_holds_every_name_once_and_describe_reads_back() -> None:
    names = [c.name for c in CHECKS]
    assert sorted(names) == sorted(get_args(CheckName)) and len(set(names)) == len(names) == 51
    for enabled in (ALL_CHECKS, DEFAULT_CHECKS, NO_CHECKS, ALL_CHECKS - {"rounding"}, DEFAULT_CHECKS - {"facts"},
                    DEFAULT_CHECKS | {"rounding"}, frozenset({"facts", "echo"})):
        assert parse_checks(describe(enabled)) == enabled
    assert describe(DEFAULT_CHECKS) == "default" and describe(DEFAULT_CHECKS | {"echo"}) == "+echo"


def test_a_check_is_off_by_default_only_as_measured() -> None:
    """Off by default: the ten that lost no task when switched off, on the test split and the held-out set
    (docs/checks.md), and other_values, which lost BFCL items it acted on beyond the tuning ones
    (results/bfcl/parallel2). The checks the shim also uses stay on until the shim's own ablation."""
    assert OFF_BY_DEFAULT == {"tool_error", "question_back", "expression", "echo", "off_quote", "rounding",
                              "after_failure", "copied_example", "example_value", "second_look", "other_values",
                              "list_end"}
    assert {"tool_choice", "ungrounded", "no_fit", "no_observation"} <= DEFAULT_CHECKS
    assert DEFAULT_CHECKS | OFF_BY_DEFAULT == ALL_CHECKS
    # The shim's in the order it runs them: the call list's, then ``fc.finished.settle``'s.
    assert in_order("call") == ("arithmetic", "tool_choice", "held_call", "ungrounded", "ungrounded_hold", "no_fit",
                                "more_calls", "other_values", "kept_values", "call_list", "new_value", "unnamed_tool",
                                "added_options", "list_end", "demo_copy", "own_format", "stated_option", "stated_flag",
                                "stated_list", "swapped", "percent", "zeros", "years", "own_options", "crossed",
                                "list_rest", "unit_groups", "own_items", "described_option")
    assert in_order("answer")[-2:] == ("several_named", "bare_name")  # in a try; then on the settled reply


def test_every_correction_code_the_engine_writes_is_a_registry_name() -> None:
    """``Nudge("code", ...)`` anywhere in the package names a check of the registry."""
    codes = set()
    for path in (ROOT / "react_text").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Nudge"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                codes.add(node.args[0].value)
    assert codes and codes <= ALL_CHECKS


def test_cli_library_compare_and_serve_share_one_default() -> None:
    parser = build_parser()
    for argv in (["run", "q"], ["compare"], ["serve"]):
        assert parser.parse_args(argv).checks == DEFAULT_CHECKS
    assert parser.parse_args(["run", "q", "--checks", "none"]).checks == NO_CHECKS
    assert parser.parse_args(["run", "q", "--checks=-facts"]).checks == DEFAULT_CHECKS - {"facts"}
    assert Agent(ScriptedBackend([]), []).checks == DEFAULT_CHECKS and ServerConfig("m").checks == DEFAULT_CHECKS
    assert not any(hasattr(Limits(), flag) for flag in ("require_observation", "require_grounded_calls", "second_look"))
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "q", "--checks", "roundin"])


# --- the plain engine ------------------------------------------------------------------------------

ROUNDING_Q = "What is 7 divided by 3, to two decimal places?"


def _run(turns, checks, question=ROUNDING_Q):
    events: list[dict] = []
    backend = ScriptedBackend(turns)
    agent = Agent(backend, [calculator], load_template("classic"), checks=checks, on_event=events.append)
    return agent.run(question), events, backend


def test_with_every_check_an_answer_before_any_tool_is_questioned() -> None:
    result, _, _ = _run([final("2.333333"), act("calculator", "7 / 3"), final("2.333333"), final("2.33")], "all")
    assert result.steps[0].decision.kind == "retry" and result.steps[0].decision.check == "no_observation"


PLAIN_CASES = [
    [final("2.333333")],  # no tool used, too many decimals
    [act("calculator", "7 / 3"), final("2.333333")],  # too many decimals after a result
    [act("calculator", "7 / 3"), final("2.50", thought="So 7 / 3 = 2.50.")],  # a sum worked out wrong in words
    [" I think it is 2.33.", final("2.33")],  # a bare thought: not asked to go on
    [act("calculator", "7 / 3"), final("7 * 3")],  # an expression for an answer
]


@pytest.mark.parametrize("turns", PLAIN_CASES)
def test_with_every_check_each_case_is_corrected(turns) -> None:
    result, events, _ = _run([*turns, *[final("2.33")] * 4], "all")
    corrected = [s.decision.check for s in result.steps if getattr(s.decision, "check", None)]
    continued = [e for e in events if e["event"] == "prompt" and e.get("reason") == "label_left_out"]
    assert corrected or continued


@pytest.mark.parametrize("turns", PLAIN_CASES)
def test_the_plain_engine_makes_no_correction_of_any_kind(turns) -> None:
    result, events, backend = _run(turns, "none")
    decisions = [s.decision for s in result.steps]
    assert not any(getattr(d, "check", None) for d in decisions)
    assert not [e for e in events if e["event"] in ("evidence", "second_look")]
    assert not [e for e in events if e["event"] == "prompt" and e.get("reason") == "label_left_out"]
    # what the model is shown is a tool's result or the parser's word on an unusable turn, nothing else
    retries = [d.reason for d in decisions if d.kind == "retry"]
    assert all(r.startswith("format_error:") or r == "no_progress" for r in retries), retries
    assert all(s.observation is not None for s in result.steps if s.decision.kind in ("run_tool", "run_tools"))
    assert result.status == "answered" and len(backend.prompts) == len(result.steps)
    start = next(e for e in events if e["event"] == "run_start")
    assert start["checks"] == "none"


def test_one_check_off_leaves_the_others_on() -> None:
    result, _, _ = _run([act("calculator", "7 / 3"), final("2.333333"), final("2.33")], "-rounding")
    assert [s.decision.kind for s in result.steps] == ["run_tool", "finish"] and result.answer == "2.333333"
    result, _, _ = _run([act("calculator", "7 / 3"), final("2.333333"), final("2.33")], "all")
    assert result.steps[1].decision.check == "rounding" and result.answer == "2.33"


def test_the_shim_honours_the_same_set() -> None:
    messages = [{"role": "user", "content": ROUNDING_Q},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": '{"expression": "7/3"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "2.3333333333"}]
    tools = [{"type": "function", "function": {"name": "calculator", "description": "Evaluate arithmetic.",
                                               "parameters": {"type": "object", "properties": {
                                                   "expression": {"type": "string"}}, "required": ["expression"]}}}]
    answer = final("2.333333")
    plain = tool_calls(messages, tools, backend=ScriptedBackend([answer, answer]), checks="none", constrain=False)
    assert plain["message"]["content"] == "2.333333" and plain["format_errors"] == []
    checked = tool_calls(messages, tools, backend=ScriptedBackend([answer, final("2.33")]), constrain=False,
                         checks="+rounding")
    assert checked["message"]["content"] == "2.33" and checked["format_errors"] == ["guard:rounding"]


# --- compare: a configuration of checks is just another cell -----------------------------------------

def test_ablate_makes_a_cell_per_configuration() -> None:
    labels = cell_labels(["classic"], DEFAULT_CHECKS, ablate=True)
    assert labels[:3] == ("classic", "classic checks=none", "classic checks=-continuation")
    assert len(labels) == 2 + len(DEFAULT_CHECKS) and "classic checks=-facts" in labels
    assert cell_labels(["classic"], ALL_CHECKS, ablate=True)[:2] == ("classic checks=all", "classic checks=none")
    assert cell_labels(["classic", "json"], DEFAULT_CHECKS - {"facts"}) == ("classic checks=-facts", "json checks=-facts")
    assert template_checks("classic checks=-rounding") == ("classic", "-rounding")
    assert template_checks("classic") == ("classic", "default")


def test_compare_runs_each_checks_cell_with_its_own_set(tmp_path) -> None:
    suite = tmp_path / "mini.jsonl"
    suite.write_text(json.dumps({"id": "t1", "question": ROUNDING_Q, "expected": 2.33, "match": "number",
                                 "tools": ["calculator"], "lang": "en", "category": "arithmetic"}) + "\n")
    spec = CompareSpec(templates=("classic checks=+rounding", "classic checks=none"), models=("fake",), suite=str(suite),
                       out_dir=tmp_path / "out", backend="http", urls=("http://127.0.0.1:9",))
    turns = [act("calculator", "7 / 3"), final("2.333333"), final("2.33")]
    records = compare.run_compare(spec, backend_factory=lambda m, w: ScriptedBackend(list(turns)),
                                  progress_stream=open("/dev/null", "w"))
    by_cell = {r["template"]: r for r in records}
    assert by_cell["classic checks=+rounding"]["answer"] == "2.33"
    assert by_cell["classic checks=none"]["answer"] == "2.333333"


def test_the_shims_call_checks_follow_the_same_switches() -> None:
    tools = [{"type": "function", "function": {"name": "convert", "description": "Convert an amount of money.",
                                               "parameters": {"type": "object", "properties": {
                                                   "amount": {"type": "number"}}, "required": ["amount"]}}}]
    messages = [{"role": "user", "content": "Convert my savings to dollars."}]
    call = act("convert", {"amount": 250})
    checked = tool_calls(messages, tools, backend=ScriptedBackend([call, call]), constrain=False)
    assert checked["format_errors"] == ["guard:ungrounded"]
    plain = tool_calls(messages, tools, backend=ScriptedBackend([call, call]), constrain=False, checks="-ungrounded")
    assert plain["format_errors"] == [] and plain["message"]["tool_calls"][0]["function"]["name"] == "convert"
