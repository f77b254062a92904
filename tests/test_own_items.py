"""The ``own_items`` check: calls of a tool each pass the list items the request writes in their own part.

Seen on BFCL (Qwen2.5-Coder-0.5B, the shim's default): "the ratings on Netflix for 'Friends', and Hulu for 'The
Office' and 'Stranger Things'" came back with all three shows in Netflix's call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.own_items import own_items

from test_shim import END, _user

SHOWS = {"type": "object", "required": ["service", "shows"], "properties": {
    "service": {"type": "string"}, "shows": {"type": "array", "items": {"type": "string"}},
    "sorted": {"type": "boolean"}}}
SCHEMAS = {"ratings": SHOWS}
ASK = "Ratings on Netflix for 'Friends', and on Hulu for 'The Office' and 'Stranger Things', sorted."


def _calls(*pairs: tuple[str, list[str]]) -> tuple[tuple[str, dict], ...]:
    return tuple(("ratings", {"service": service, "shows": shows, "sorted": True}) for service, shows in pairs)


def test_each_call_passes_the_items_of_its_own_part() -> None:
    slipped = _calls(("Netflix", ["Friends", "The Office", "Stranger Things"]), ("Hulu", ["The Office", "Stranger Things"]))
    assert own_items(slipped, SCHEMAS, ASK) == _calls(("Netflix", ["Friends"]), ("Hulu", ["The Office", "Stranger Things"]))
    parks = "Parks in Oslo with a pool and a track, then in Rome with a playground, then in Lyon with a pool and a zoo."
    slipped = _calls(("Oslo", ["playground", "track"]), ("Rome", ["playground"]), ("Lyon", ["pool", "zoo"]))
    assert own_items(slipped, SCHEMAS, parks) == _calls(  # "pool", written in two parts, goes to both calls
        ("Oslo", ["pool", "track"]), ("Rome", ["playground"]), ("Lyon", ["pool", "zoo"]))
    zh = "请查Netflix上的《老友记》，以及Hulu上的《办公室》和《怪奇物语》的评分。"
    slipped = _calls(("Netflix", ["老友记", "办公室"]), ("Hulu", ["办公室", "怪奇物语"]))
    assert own_items(slipped, SCHEMAS, zh) == _calls(("Netflix", ["老友记"]), ("Hulu", ["办公室", "怪奇物语"]))


@pytest.mark.parametrize("calls, request_text", [
    (_calls(("Netflix", ["Friends"]), ("Hulu", ["The Office", "Stranger Things"])), ASK),  # already its own
    (_calls(("Netflix", ["Friends", "Dark"]), ("Hulu", ["Friends", "Dark"])),  # the items before every part
     "'Friends' and 'Dark' on Netflix and on Hulu, sorted."),
    (_calls(("Paris", ["gym", "pool"]), ("Rome", ["gym", "pool"])),  # Paris's part writes no item: shared
     "Hotels in Paris and in Rome. I would like a gym and a pool."),
    (_calls(("Netflix", ["Friends", "Dark"]), ("Hulu", ["Dark"])),  # respectively
     "Netflix and Hulu for 'Friends' and 'Dark' respectively."),
    (_calls(("Netflix", ["Friends", "Dark"]), ("Netflix", ["Dark"])),  # no value of its own
     "Netflix for 'Friends', then Netflix for 'Dark'."),
    (_calls(("Netflix", ["Friends", "Lupin"]), ("Hulu", ["Dark"])),  # an item the request does not write
     "Netflix for 'Friends', and Hulu for 'Dark'."),
])
def test_nothing_changes_where_the_parts_are_not_read(calls: Any, request_text: str) -> None:
    assert own_items(calls, SCHEMAS, request_text) == calls


def test_the_shim_keeps_each_calls_items_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function", "function": {"name": "ratings", "description": "Ratings of shows on a service.",
                                               "parameters": SHOWS}}]
    turn = (' Two calls.\nAction: ratings\nAction Input: {"service": "Netflix", "shows": ["Friends", "The Office"]}'
            '\nAction: ratings\nAction Input: {"service": "Hulu", "shows": ["The Office", "Stranger Things"]}')

    def made(**kw: Any) -> tuple[list, list]:
        out = tool_calls(_user(ASK), tools, backend=ScriptedBackend([turn, END]), **kw)
        args = [json.loads(c["function"]["arguments"]) for c in out["message"]["tool_calls"]]
        return [a["shows"] for a in args], out.get("step_checks", [])

    on, acted = made()
    assert on == [["Friends"], ["The Office", "Stranger Things"]] and "own_items" in acted
    off, acted = made(checks="-own_items")
    assert off == [["Friends", "The Office"], ["The Office", "Stranger Things"]] and "own_items" not in acted


VALUES = st.one_of(st.sampled_from(["Netflix", "Hulu", "", "a"]), st.integers(0, 3), st.booleans(),
                   st.lists(st.sampled_from(["Friends", "Dark", "a", "", "老友记"]), max_size=3))


@given(st.lists(st.sampled_from(["Netflix", "Hulu", "Friends", "Dark", " and ", ", ", "a", "老友记", "1"]),
                max_size=12).map("".join),
       st.lists(st.dictionaries(st.sampled_from(["service", "shows", "sorted"]), VALUES, max_size=3), max_size=3))
def test_own_items_never_raises_and_acting_twice_is_acting_once(text: str, args: list[dict]) -> None:
    calls = tuple(("ratings", a) for a in args)
    once = own_items(calls, SCHEMAS, text)
    assert own_items(once, SCHEMAS, text) == once
    assert [name for name, _ in once] == [name for name, _ in calls]


def test_the_default_model_keeps_each_services_shows_to_its_own_call(qwen_backend) -> None:
    """Qwen2.5-coder-0.5B passes all three shows to both services' calls: with the check on, each call passes the
    shows its part of the request names."""
    params = {"type": "object", "required": ["service", "shows"], "properties": {
        "service": {"type": "string", "description": "Name of the streaming service."},
        "shows": {"type": "array", "items": {"type": "string"}, "description": "Names of the shows to look up."}}}
    tools = [{"type": "function", "function": {"name": "show_ratings", "parameters": params,
                                               "description": "Ratings of shows on a streaming service."}}]
    ask = [{"role": "user", "content": "Show ratings on Netflix for 'Friends', and Hulu for 'The Office' and "
                                       "'Stranger Things'."}]

    def shows(checks: str) -> list[list[str]]:
        out = tool_calls(ask, tools, backend=qwen_backend, checks=checks)
        return [json.loads(c["function"]["arguments"])["shows"] for c in out["message"].get("tool_calls") or []]

    everything = ["Friends", "The Office", "Stranger Things"]
    assert shows("-own_items") == [everything, everything]
    assert shows("default") == [["Friends"], ["The Office", "Stranger Things"]]
