"""The ``stated_flag`` check: a boolean parameter the request names is passed as true."""

from __future__ import annotations

import json

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.stated_flags import named_flags, stated_flags

from test_shim import END, _user

ROUTE = {"type": "object", "required": ["start", "end"], "properties": {
    "start": {"type": "string"}, "end": {"type": "string"},
    "shortest_route": {"type": "boolean", "description": "Whether to take the shortest route."},
    "include_tolls": {"type": "boolean"}, "is_detailed": {"type": "boolean"},
    "route_name": {"type": "string"}}}


def test_a_flag_is_named_by_every_telling_word_of_its_name_and_never_under_a_negation() -> None:
    assert named_flags(ROUTE, "Distance from Oslo to Bergen by the shortest route.") == ("shortest_route",)
    assert named_flags(ROUTE, "Oslo to Bergen, tolls included, shortest route.") == ("shortest_route",
                                                                                      "include_tolls")
    assert named_flags(ROUTE, "Oslo to Bergen, the short way.") == ()  # "route" alone: not every word
    assert named_flags(ROUTE, "Oslo to Bergen in detail.") == ("is_detailed",)  # "is" says only "a switch"
    assert named_flags(ROUTE, "Oslo to Bergen, but not the shortest route.") == ()
    assert named_flags(ROUTE, "Oslo to Bergen; I don't want the shortest route.") == ()
    assert named_flags(ROUTE, "Oslo to Bergen; it isn't the shortest route I want.") == ()
    assert named_flags(ROUTE, "奥斯陆到卑尔根的 shortest route") == ("shortest_route",)
    assert named_flags(ROUTE, "奥斯陆到卑尔根，不要 shortest route") == ()
    assert named_flags({"properties": {"route_name": {"type": "string"}}}, "the route name") == ()  # not boolean
    assert named_flags(None, "shortest route") == ()


def test_stated_flags_sets_a_named_flag_true_over_a_false_or_a_left_out_one_and_leaves_the_rest() -> None:
    calls = (("route", {"start": "Oslo", "end": "Bergen", "shortest_route": False}),
             ("route", {"start": "Oslo", "end": "Bergen"}), ("other", {"a": 1}))
    out = stated_flags(calls, {"route": ROUTE}, "Oslo to Bergen with the shortest route, twice.")
    assert out == (("route", {"start": "Oslo", "end": "Bergen", "shortest_route": True}),
                   ("route", {"start": "Oslo", "end": "Bergen", "shortest_route": True}), ("other", {"a": 1}))


def test_the_shim_passes_the_named_flag_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "route", "description": "Driving distance between two places.",
                                               "parameters": ROUTE}}]
    turn = ' I find the distance.\nAction: route\nAction Input: {"start": "Oslo", "end": "Bergen", "shortest_route": false}'
    ask = _user("What is the driving distance from Oslo to Bergen with the shortest route?")

    def arguments(out: dict) -> dict:
        return json.loads(out["message"]["tool_calls"][0]["function"]["arguments"])

    out = tool_calls(ask, tools, backend=ScriptedBackend([turn, END], supports_grammar=True))
    assert arguments(out)["shortest_route"] is True and out["step_checks"] == ["stated_flag"]
    off = tool_calls(ask, tools, backend=ScriptedBackend([turn, END], supports_grammar=True), checks="-stated_flag")
    assert arguments(off)["shortest_route"] is False and "stated_flag" not in off.get("step_checks", [])
