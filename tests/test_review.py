"""``checks.review``: the one place the loop and the shim ask which correction a turn deserves.

The loop's and the shim's gates differ in a few named ``Situation`` fields; these tests pin each
difference, and that neither host calls a check of its own.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from react_text.checks import CHECKS
from react_text.checks.reading import Reading, Situation
from react_text.checks.review import _CHECKS, ONE_TURN, review
from react_text.types import FormatError, Step

ROOT = Path(__file__).resolve().parent.parent
HOSTED = {"continuation", "second_look", "facts", "evidence", "more_calls", "held_call", "other_values", "kept_values",
          "call_list", "new_value", "cut_thought", "stated_option", "stated_flag", "stated_list",
          "percent", "list_end", "own_options", "crossed", "list_rest", "unit_groups", "own_items", "swapped",
          "demo_copy", "ungrounded_hold", "unnamed_tool", "own_format", "added_options",
          "described_option", "zeros", "bare_name", "years"}
"""Checks that act with I/O or on a result, so the hosts run them (``review``'s docstring says which)."""

PICK = ("convert", "Convert an amount of money between currencies.")
LOOP = Situation(question="Convert 250 euros to dollars.", tool_names=("convert", "search"), pick=PICK,
                 grounds=("Convert 250 euros to dollars.",), schemas={"convert": {"type": "object"}})
SHIM = replace(LOOP, choice_covers_answers=True, leads_for=frozenset({"tool_choice"}), require_observation=False)


def test_every_check_of_a_turn_is_reviewed_at_each_of_its_stages() -> None:
    for check in CHECKS:
        if check.name in HOSTED:
            continue
        assert all(check.name in _CHECKS[stage] for stage in check.stages), check.name


def test_the_hosts_call_no_check_but_review() -> None:
    """``agent`` and ``fc`` import from ``checks`` only the review, its data and the registry (and the shim
    ``reaches_elsewhere``, which reads a decline, not a correction, and the values ``more_calls``' steps
    and listed calls are held to, ended at or left out for, and the fills of finished calls, which read the
    calls so far, not a turn): no second orchestrator."""
    allowed = {"review", "Reading", "Situation", "ONE_TURN", "reaches_elsewhere", "CheckName", "CheckSpec",
               "ALL_CHECKS", "DEFAULT_CHECKS", "in_order", "parse_checks", "describe", "CHECKS", "NO_CHECKS",
               "held_grammar", "held_schema", "held_values", "invented", "adds_nothing", "ungrounded_values",
               "in_request_order", "all_from_request", "stated_values", "crossed", "list_rest", "unit_groups",
               "own_items", "without_copies", "without_described", "is_bare_name",
               "Calls"}
    used = set()
    for package in ("agent", "fc"):
        for path in (ROOT / "react_text" / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("checks"):
                    used |= {alias.name for alias in node.names}
    assert used <= allowed, used - allowed


def test_a_call_passing_over_the_named_tool_gets_the_tool_as_its_lead_in_both_hosts() -> None:
    reading = Reading(calls=(("search", {"query": "euro dollar"}),))
    for situation in (LOOP, SHIM):
        found = review(reading, situation)
        assert found is not None and found.code == "tool_choice" and "convert" in found.lead


def test_only_the_shim_questions_a_first_answer_for_the_tool_it_passes_over() -> None:
    reading = Reading(answer="About 270 dollars.")
    assert review(reading, replace(LOOP, require_observation=False)) is None
    found = review(reading, SHIM)
    assert found is not None and found.code == "tool_choice"
    assert review(reading, replace(SHIM, nudged=frozenset({"no_observation"}))) is None  # a tool was asked for


def test_the_shim_writes_no_lead_but_the_tool_choices() -> None:
    question = 'What number does this note give: "The ferry carries 212 passengers today."?'
    reading = Reading(answer="I cannot find that.", refusal=True)
    loop = review(reading, replace(LOOP, question=question, pick=None))
    shim = review(reading, replace(SHIM, question=question, pick=None))
    assert loop is not None and shim is not None and loop.code == shim.code == "in_question"
    assert loop.message == shim.message and "212" in loop.lead and shim.lead == ""


def test_the_loops_own_tools_are_never_questioned_and_the_shim_leaves_out_one_turn_checks() -> None:
    listing = Reading(calls=(("list_tools", {"query": "money"}),))
    assert review(listing, replace(LOOP, exempt_tools=frozenset({"list_tools"}))) is None
    slip = Reading(text="250 * 2 = 480", answer="480")
    assert review(slip, replace(LOOP, pick=None)).code == "arithmetic"
    assert review(slip, replace(SHIM, pick=None, checks=SHIM.checks - ONE_TURN)) is None


def test_an_unusable_turn_reaching_for_an_unoffered_tool_is_told_none_fits() -> None:
    step = Step(text="Action: send_email", error=FormatError("unknown_tool", "no such tool", "send_email"))
    found = review(Reading(step=step), LOOP)
    assert found is not None and found.code == "no_fit" and found.lead
    assert review(Reading(step=step), replace(LOOP, exempt_tools=frozenset({"list_tools"}),
                                              tool_names=("convert", "list_tools"))) is None
