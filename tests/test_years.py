"""The ``years`` check: a date passed with the request's month and day but another year gets the request's year."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.years import with_request_years

from test_shim import END, _user

ASK = "What was Albert Einstein's contribution to science on March 17, 1915?"


def _on(date: str) -> tuple[tuple[str, dict], ...]:
    return (("contrib", {"scientist": "Albert Einstein", "date": date}),)


def test_the_requests_year_goes_into_a_date_with_its_month_and_day_in_the_models_format() -> None:
    assert with_request_years(_on("2015-03-17"), {}, ASK) == _on("1915-03-17")
    assert with_request_years(_on("03/17/2015"), {}, ASK) == _on("03/17/1915")
    assert with_request_years(_on("17/03/2015"), {}, "on 17th March 1915") == _on("17/03/1915")
    assert with_request_years(_on("2015-03-17"), {}, "Einstein, Mar. 17 1915") == _on("1915-03-17")
    assert with_request_years(_on("2015-03-17"), {}, "爱因斯坦在1915年3月17日的贡献") == _on("1915-03-17")
    assert with_request_years(_on("2015-03-17"), {}, "as of 1915-03-17") == _on("1915-03-17")


def test_another_day_two_dates_no_date_or_a_right_year_stay() -> None:
    kept = [
        (_on("1915-03-17"), ASK),  # right
        (_on("2015-03-18"), ASK),  # another day: a reading (the day after), not a slip of the year
        (_on("2015-04-17"), ASK),
        (_on("2015-03-17"), "From March 17, 1915 to June 1, 1915"),  # two dates: which one?
        (_on("2015-03-17"), "Einstein's work in 1915"),  # no full date
        (_on("2015-03-17 10:30"), ASK),  # other numbers: not only a date
        ((("c", {"year": 2015, "note": "March 17"}),), ASK),  # numbers and partial dates are no date
    ]
    for calls, request in kept:
        assert with_request_years(calls, {}, request) == calls


@given(st.text(max_size=80), st.dictionaries(st.text(max_size=5), st.one_of(
    st.integers(), st.booleans(), st.text(max_size=12)), max_size=4))
def test_it_never_raises_and_changes_only_a_years_digits(request, args) -> None:
    out = with_request_years((("t", args),), {}, request)
    assert list(out[0][1]) == list(args)
    for key, value in out[0][1].items():
        if value != args[key]:
            assert isinstance(value, str) and len(value) == len(args[key])
            assert sum(a != b for a, b in zip(value, args[key])) <= 4


def test_the_shim_puts_the_year_back_and_says_so_and_not_with_the_check_off() -> None:
    params = {"type": "object", "required": ["scientist", "date"], "properties": {
        "scientist": {"type": "string"}, "date": {"type": "string", "description": "yyyy-mm-dd"}}}
    tools = [{"type": "function", "function": {"name": "contrib", "description": "A scientist's contribution.",
                                               "parameters": params}}]
    turn = ' I look it up.\nAction: contrib\nAction Input: {"scientist": "Albert Einstein", "date": "2015-03-17"}'

    def date(checks: str) -> tuple[str, list]:
        out = tool_calls(_user(ASK), tools, backend=ScriptedBackend([turn, turn, END], supports_grammar=True),
                         checks=checks)
        return json.loads(out["message"]["tool_calls"][0]["function"]["arguments"])["date"], out.get("step_checks", [])

    assert date("-ungrounded") == ("1915-03-17", ["years"])
    assert date("-ungrounded,-years")[0] == "2015-03-17"


def test_a_request_that_speaks_of_years_or_a_call_that_passes_its_date_keeps_another_year() -> None:
    remind = (("remind", {"date": "2024-03-17"}),)
    assert with_request_years(remind, {}, "Remind me a year before March 17, 2025.") == remind
    assert with_request_years(remind, {}, "2025年3月17日的前一年提醒我，明年也提醒") == remind
    both = (("plan", {"meeting": "2025-03-17", "reminder": "2024-03-17"}),)
    assert with_request_years(both, {}, "A meeting on March 17, 2025, reminder the same day before.") == both
