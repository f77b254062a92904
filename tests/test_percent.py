"""The ``percent`` check: a value the request writes only as a percentage goes to a share parameter as a fraction."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.percents import as_fractions, takes_fraction
from react_text.lexicon.numbers import percentages

from test_shim import END, _user

GROW = {"type": "object", "required": ["amount", "rate", "years"], "properties": {
    "amount": {"type": "number", "description": "The amount invested."},
    "rate": {"type": "number", "description": "The annual interest rate."},
    "years": {"type": "integer", "description": "How many years."}}}


def test_percentages_are_read_with_the_sign_the_words_and_in_chinese_and_told_from_bare_numbers() -> None:
    assert percentages("a rate of 5% for 10 years") == ((5.0,), (10.0,))
    assert percentages("12.5 percent of 1,000, or 3 per cent, or 4％") == ((12.5, 3.0, 4.0), (1000.0,))
    assert percentages("年利率为百分之五，存3年") == ((5.0,), (3.0,))
    assert percentages("5% for 5 years") == ((5.0,), (5.0,))
    assert percentages("no share here: 20 apples") == ((), (20.0,))


@given(st.text())
def test_reading_percentages_never_raises(text: str) -> None:
    """``\\d`` takes every Unicode digit and ``float`` only some: a Kawi digit before a percent sign
    (U+11F50) raised out of the shim before ``digits_value`` was the one reading of digits."""
    shares, bare = percentages(text)
    assert all(isinstance(v, float) for v in shares + bare)
    assert percentages("\U00011F50% of 20, and 5%") == ((5.0,), (20.0,))


def test_a_number_parameter_takes_a_fraction_unless_it_says_percent_without_asking_for_a_decimal() -> None:
    assert takes_fraction("rate", {"type": "number", "description": "The annual interest rate."})
    assert takes_fraction("rate", {"type": "number", "description": "The rate in decimal form. Example, 5% is 0.05."})
    assert takes_fraction("rate", {"type": "number", "description": "The rate, e.g. 0.05 for five in a hundred."})
    assert not takes_fraction("rate", {"type": "number", "description": "The interest rate as a percentage."})
    assert not takes_fraction("growth_percent", {"type": "number"})
    assert not takes_fraction("rate", {"type": "integer", "description": "The annual interest rate."})
    assert not takes_fraction("rate", None)


def test_as_fractions_converts_only_a_value_the_request_writes_only_as_a_percentage() -> None:
    ask = "Grow $1000 at an annual interest rate of 5% for 10 years."
    assert as_fractions((("grow", {"amount": 1000, "rate": 5, "years": 10}),), {"grow": GROW}, ask) == (
        ("grow", {"amount": 1000, "rate": 0.05, "years": 10}),)
    given = (("grow", {"amount": 1000, "rate": 0.05, "years": 10}),)
    assert as_fractions(given, {"grow": GROW}, ask) == given  # already a fraction
    ambiguous = (("grow", {"amount": 1000, "rate": 5, "years": 5}),)
    assert as_fractions(ambiguous, {"grow": GROW}, "Grow $1000 at 5% for 5 years.") == ambiguous
    whole = (("grow", {"amount": 1000, "rate": 5, "years": 10}),)
    assert as_fractions(whole, {"grow": GROW}, "Grow $1000 at a rate of 5 for 10 years.") == whole
    flags = (("grow", {"amount": 1000, "rate": True, "years": 10}),)
    assert as_fractions(flags, {"grow": GROW}, "1 at 1% for 10 years") == flags  # a flag is no number


def test_the_shim_passes_the_fraction_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "grow", "description": "Future value.", "parameters": GROW}}]
    turn = ' I work it out.\nAction: grow\nAction Input: {"amount": 1000, "rate": 5, "years": 10}'
    ask = _user("What will $1000 be worth at an annual interest rate of 5% after 10 years?")

    def arguments(out: dict) -> dict:
        return json.loads(out["message"]["tool_calls"][0]["function"]["arguments"])

    out = tool_calls(ask, tools, backend=ScriptedBackend([turn, END], supports_grammar=True))
    assert arguments(out) == {"amount": 1000, "rate": 0.05, "years": 10} and "percent" in out["step_checks"]
    off = tool_calls(ask, tools, backend=ScriptedBackend([turn, END], supports_grammar=True), checks="-percent")
    assert arguments(off)["rate"] == 5 and "percent" not in off.get("step_checks", [])


@pytest.mark.model
def test_the_default_model_writes_the_percentage_whole_and_the_shim_passes_the_fraction(qwen_backend) -> None:
    """Qwen2.5-coder-0.5B under the grammar writes "3%" as ``3``; the check is what makes it 0.03."""
    schema = {"type": "object", "required": ["deposit", "annual_rate", "years"], "properties": {
        "deposit": {"type": "integer", "description": "The amount deposited."},
        "annual_rate": {"type": "number", "description": "The annual interest rate the bank pays."},
        "years": {"type": "integer", "description": "How many years the money stays."}}}
    tools = [{"type": "function", "function": {"name": "savings_interest", "parameters": schema,
                                               "description": "The interest a savings deposit earns."}}]
    ask = _user("How much interest does a deposit of $1000 earn over 2 years at an annual interest rate of 3%?")

    def rate(checks: str) -> float:
        out = tool_calls(ask, tools, backend=qwen_backend, template="classic", checks=checks)
        return json.loads(out["message"]["tool_calls"][0]["function"]["arguments"])["annual_rate"]

    assert rate("-percent") == 3 and rate("default") == 0.03
