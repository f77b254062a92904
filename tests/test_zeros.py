"""The ``zeros`` check: a large number the request writes, passed with zeros too many or too few, is put back."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.zeros import with_request_zeros

from test_shim import END, _user

ROE = {"type": "object", "required": ["net_income", "shareholder_equity"], "properties": {
    "net_income": {"type": "integer", "description": "Net income."},
    "shareholder_equity": {"type": "integer", "description": "Shareholders' equity."}}}
ASK = "Calculate the return on equity given a net income of $2,000,000 and shareholder's equity of $10,000,000."


def _roe(income: float, equity: float) -> tuple[tuple[str, dict], ...]:
    return (("roe", {"net_income": income, "shareholder_equity": equity}),)


def test_a_large_request_number_with_zeros_dropped_or_added_is_put_back_in_its_type() -> None:
    assert with_request_zeros(_roe(2000000, 1000000), {}, ASK) == _roe(2000000, 10000000)
    assert with_request_zeros(_roe(2000000, 100000000), {}, ASK) == _roe(2000000, 10000000)
    fixed = with_request_zeros((("pay", {"total": 500000000.0}),), {}, "a payout of 50 million USD")
    assert fixed == (("pay", {"total": 50000000.0}),)
    assert isinstance(with_request_zeros(_roe(2000000, 1000000), {}, ASK)[0][1]["shareholder_equity"], int)


def test_numbers_the_request_writes_small_ones_and_values_already_passed_stay() -> None:
    kept = [
        (_roe(2000000, 10000000), ASK),  # right
        (_roe(2000000, 2000000), ASK),  # a request number, though in the wrong place
        ((("roe", {"net_income": 2000000, "shareholder_equity": 200000}),), ASK),  # 2,000,000 is passed already
        ((("roe", {"net_income": 3000000, "shareholder_equity": 10000000}),), ASK),  # not a power of ten off
        ((("lc", {"inductance": 0.05}),), "an inductance of 50mH"),  # small: a conversion
        ((("walk", {"metres": 5000}),), "a walk of 5 km"),
        ((("weigh", {"kg": 5000}),), "5,000,000 g of sand"),  # a factor of 1,000: a conversion
        ((("weigh", {"kg": 50}),), "5,000 g of sand"),  # small
        ((("r", {"a": 100000}),), "revenues of 1,000 and 10,000"),  # which one is meant?
        ((("flag", {"on": True, "n": "500000000"}),), "a payout of 50 million"),  # numbers only
        ((("big", {"n": 10 ** 400, "m": float("inf")}),), "a payout of 50 million"),  # no float holds them
    ]
    for calls, request in kept:
        assert with_request_zeros(calls, {}, request) == calls


@given(st.text(max_size=60), st.dictionaries(st.text(max_size=5), st.one_of(
    st.integers(), st.floats(allow_nan=True), st.booleans(), st.text(max_size=5)), max_size=4))
def test_it_never_raises_and_changes_only_numbers_to_numbers(request, args) -> None:
    out = with_request_zeros((("t", args),), {}, request)
    assert list(out[0][1]) == list(args)
    for key, value in out[0][1].items():
        if value is not args[key]:
            assert type(args[key]) in (int, float) and type(value) in (int, float)
            assert abs(value) >= 1000 and abs(args[key]) >= 1000


def test_the_shim_puts_the_zeros_back_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "roe", "description": "Return on equity of a company.",
                                               "parameters": ROE}}]
    turn = (' I compute it.\nAction: roe\nAction Input: {"net_income": 2000000, "shareholder_equity": 1000000}')
    on = tool_calls(_user(ASK), tools, backend=ScriptedBackend([turn, turn, END], supports_grammar=True),
                    checks="-ungrounded")
    assert json.loads(on["message"]["tool_calls"][0]["function"]["arguments"]) == {"net_income": 2000000,
                                                                                   "shareholder_equity": 10000000}
    assert on["step_checks"] == ["zeros"]
    off = tool_calls(_user(ASK), tools, backend=ScriptedBackend([turn, turn, END], supports_grammar=True),
                     checks="-ungrounded,-zeros")
    assert json.loads(off["message"]["tool_calls"][0]["function"]["arguments"])["shareholder_equity"] == 1000000
