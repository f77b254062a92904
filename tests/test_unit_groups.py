"""The ``unit_groups`` check: a further group of numbers in a call's units, in its order, asks for one more call.

Seen on BFCL (Qwen2.5-Coder-0.5B, the shim's default): "the time required for a car moving at 50 m/s to travel a
distance of 600 m. Also … a bullet moving at 400 m/s to cover a distance of 1000 m" came back as the car's call only.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.unit_groups import MAX_GROUPS, unit_groups

from test_shim import END, _user

TIME = {"type": "object", "required": ["velocity", "distance"], "properties": {
    "velocity": {"type": "integer"}, "distance": {"type": "number"}, "label": {"type": "string"}}}
ROI = {"type": "object", "required": ["invested", "gain"], "properties": {
    "invested": {"type": "number"}, "gain": {"type": "number"}}}
SCHEMAS = {"time": TIME, "roi": ROI}
CAR = "The time a car at 50 m/s takes to travel 600 m. Also the time a bullet at 400 m/s takes to cover 1000 m."


def _time(*pairs: tuple[float, float], **shared: Any) -> tuple[tuple[str, dict], ...]:
    return tuple(("time", {"velocity": v, "distance": d, **shared}) for v, d in pairs)


def test_each_further_group_in_the_same_units_gets_a_call() -> None:
    assert unit_groups(_time((50, 600), label="car"), SCHEMAS, CAR) == _time((50, 600), (400, 1000), label="car")
    roi = (("roi", {"invested": 2000, "gain": 500}),)
    ask = "Return on $2000 with a gain of $500, then on $5000 with a gain of $1000, and $8000 with $1500."
    assert unit_groups(roi, SCHEMAS, ask) == roi + (("roi", {"invested": 5000, "gain": 1000}),
                                                    ("roi", {"invested": 8000, "gain": 1500}))
    zh = "汽车以50米/秒的速度行驶600米要多久？子弹以400米/秒的速度飞行1000米呢？"
    assert unit_groups(_time((50, 600)), SCHEMAS, zh) == _time((50, 600), (400, 1000))


@pytest.mark.parametrize("calls, request_text", [
    (_time((50, 600), (400, 1000)), CAR),  # every group is called
    ((("time", {"velocity": 50, "label": "car"}),), CAR),  # one number: no group to tell by
    (_time((50, 600)), "A car at 50 going 600, and a bullet at 400 going 1000."),  # no units
    (_time((50, 600)), "A car at 50 m/s over 600 m; a bullet over 1000 m at 400 m/s."),  # another order
    (_time((50, 600)), "A car at 50 m/s over 600 m, and a bullet at 50 m/s over 1000 m."),  # 50 is a call's
])
def test_nothing_changes_where_the_rule_does_not_hold(calls: Any, request_text: str) -> None:
    assert unit_groups(calls, SCHEMAS, request_text) == calls


def test_more_groups_than_the_limit_add_none() -> None:
    ask = "At 1 m/s over 2 m" + "".join(f", at {n} m/s over {n + 1} m" for n in range(3, 3 + 2 * (MAX_GROUPS + 1), 2))
    assert unit_groups(_time((1, 2)), SCHEMAS, ask) == _time((1, 2))


def test_the_shim_calls_each_group_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "time", "description": "Time to travel a distance.",
                                               "parameters": TIME}}]
    turn = ' One call.\nAction: time\nAction Input: {"velocity": 50, "distance": 600}'

    def made(**kw: Any) -> tuple[list, list]:
        out = tool_calls(_user(CAR), tools, backend=ScriptedBackend([turn, END]), **kw)
        args = [json.loads(c["function"]["arguments"]) for c in out["message"]["tool_calls"]]
        return [(a["velocity"], a["distance"]) for a in args], out.get("step_checks", [])

    on, acted = made()
    assert on == [(50, 600), (400, 1000)] and "unit_groups" in acted
    off, acted = made(checks="-unit_groups")
    assert off == [(50, 600)] and "unit_groups" not in acted


VALUES = st.one_of(st.integers(-3, 1200), st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
                   st.sampled_from(["car", "", "m/s"]), st.lists(st.integers(0, 3), max_size=2))


@given(st.text(alphabet=st.sampled_from(list("0123456789 m/s$米秒,. and")), max_size=80),
       st.lists(st.dictionaries(st.sampled_from(["velocity", "distance", "label"]), VALUES, max_size=3), max_size=3))
def test_unit_groups_never_raises_and_acting_twice_is_acting_once(text: str, args: list[dict]) -> None:
    calls = tuple(("time", a) for a in args)
    once = unit_groups(calls, SCHEMAS, text)
    assert unit_groups(once, SCHEMAS, text) == once
    assert len(once) <= len(calls) + MAX_GROUPS
