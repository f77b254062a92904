"""The ``swapped`` check: a pair of number arguments the request labels the other way round is put back."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.swapped import nearest_name, swapped

from test_shim import END, _user

PUMP = {"type": "object", "required": ["flow", "head"], "properties": {
    "flow": {"type": "integer", "description": "Flow in litres per second."},
    "efficiency": {"type": "number", "description": "Efficiency, 0 to 1."},
    "head": {"type": "number", "description": "Head in metres."}}}
ASK = "Find the pump power based on a flow of 20 and efficiency 0.7 and head of 0.3."


def test_the_name_nearest_a_value_on_either_side_within_its_clause() -> None:
    names = ["flow", "efficiency", "head"]
    assert [nearest_name(ASK, v, names) for v in (20, 0.7, 0.3)] == ["flow", "efficiency", "head"]
    assert nearest_name("3 bedrooms, 2 bathrooms", 2, ["bedrooms", "bathrooms"]) == "bathrooms"
    assert nearest_name("a head of 0.3, then 0.3 again", 0.3, names) is None  # written twice: no telling
    assert nearest_name("Pump 20. Flow unknown.", 20, names) is None  # another clause
    assert nearest_name("the pump moves 20 litres a second", 20, names) is None  # no name within reach


def test_a_pair_labelled_the_other_way_round_is_put_back_and_nothing_else_moves() -> None:
    calls = (("pump", {"flow": 20, "head": 0.7, "efficiency": 0.3}),)
    assert swapped(calls, {"pump": PUMP}, ASK) == (("pump", {"flow": 20, "head": 0.3, "efficiency": 0.7}),)
    right = (("pump", {"flow": 20, "head": 0.3, "efficiency": 0.7}),)
    assert swapped(right, {"pump": PUMP}, ASK) == right
    # only one of the pair stands nearest the other's name: "3 bedrooms, 2 bathrooms" stays as passed
    rooms = (("house", {"bedrooms": 3, "bathrooms": 2}),)
    assert swapped(rooms, {}, "A house with 3 bedrooms, 2 bathrooms and a garden.") == rooms
    flags = (("pump", {"flow": True, "head": 0.7, "efficiency": 0.3}),)
    assert swapped(flags, {"pump": PUMP}, ASK)[0][1]["flow"] is True


def test_the_shim_puts_the_values_back_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "pump", "description": "Power a pump needs.",
                                               "parameters": PUMP}}]
    turn = ' I work it out.\nAction: pump\nAction Input: {"flow": 20, "head": 0.7, "efficiency": 0.3}'

    def made(**kw: str) -> tuple[dict, list]:
        out = tool_calls(_user(ASK), tools, backend=ScriptedBackend([turn, END], supports_grammar=True), **kw)
        return json.loads(out["message"]["tool_calls"][0]["function"]["arguments"]), out.get("step_checks", [])

    on, acted = made()
    assert (on["head"], on["efficiency"]) == (0.3, 0.7) and "swapped" in acted
    off, acted = made(checks="-swapped")
    assert (off["head"], off["efficiency"]) == (0.7, 0.3) and "swapped" not in acted


@given(st.text(max_size=80), st.dictionaries(st.sampled_from(["flow", "head", "efficiency", "head_2"]),
                                             st.one_of(st.integers(-5, 50), st.floats(0, 1), st.booleans(),
                                                       st.text(max_size=5)), max_size=4))
def test_swapped_never_raises_and_keeps_every_value(text: str, args: dict) -> None:
    out = swapped((("pump", args),), {"pump": PUMP}, text)
    assert sorted(map(repr, out[0][1].values())) == sorted(map(repr, args.values())) and set(out[0][1]) == set(args)
