"""The ``stated_list`` check: an optional list whose items the request names is passed when a call leaves it out."""

from __future__ import annotations

import json

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.stated_lists import named_items, stated_lists

from test_shim import END, _user

CUISINES = {"type": "array", "items": {"type": "string", "enum": ["Seafood", "Italian", "Thai", "A"]},
            "description": "Preferred cuisines."}
FIND = {"type": "object", "required": ["city"], "properties": {
    "city": {"type": "string"}, "cuisine": CUISINES, "size": {"type": "integer"}}}


def test_named_items_are_the_enum_items_the_request_names_as_words_in_the_enum_order() -> None:
    assert named_items(CUISINES, "Thai or seafood places in Oslo") == ("Seafood", "Thai")
    assert named_items(CUISINES, "Seafoods in Oslo") == ()  # not a word of its own
    assert named_items(CUISINES, "A table in Oslo") == ()  # a lone letter is also an article
    assert named_items({"type": "string", "enum": ["Thai"]}, "Thai food") == ()  # not a list
    assert named_items(None, "Thai food") == ()


def test_stated_lists_fills_a_left_out_list_only_where_no_guard_holds() -> None:
    ask = "A seafood restaurant in Oslo."
    assert stated_lists((("find", {"city": "Oslo"}),), {"find": FIND}, ask) == (
        ("find", {"city": "Oslo", "cuisine": ["Seafood"]}),)
    given = (("find", {"city": "Oslo", "cuisine": ["Thai"]}),)
    assert stated_lists(given, {"find": FIND}, ask) == given  # the model's own list stands
    twice = (("find", {"city": "Oslo"}), ("find", {"city": "Bergen"}))
    assert stated_lists(twice, {"find": FIND}, ask) == twice  # the items may be shared out among the calls
    negated = "A restaurant in Oslo that is not seafood."
    assert stated_lists((("find", {"city": "Oslo"}),), {"find": FIND}, negated) == (("find", {"city": "Oslo"}),)
    style = {"type": "string", "enum": ["Seafood", "Grill"]}
    both = {"type": "object", "properties": {"cuisine": CUISINES, "style": style}}
    assert stated_lists((("find", {}),), {"find": both}, ask) == (("find", {}),)  # "seafood" may be the style's
    required = {**FIND, "required": ["city", "cuisine"]}
    assert stated_lists((("find", {"city": "Oslo"}),), {"find": required}, ask) == (("find", {"city": "Oslo"}),)


def test_the_shim_passes_the_named_items_and_says_so_and_not_with_the_check_off() -> None:
    tools = [{"type": "function",
              "function": {"name": "find", "description": "Find a restaurant.", "parameters": FIND}}]
    turn = ' I look for one.\nAction: find\nAction Input: {"city": "Oslo"}'
    ask = _user("Find me a seafood restaurant in Oslo.")

    def arguments(out: dict) -> dict:
        return json.loads(out["message"]["tool_calls"][0]["function"]["arguments"])

    out = tool_calls(ask, tools, backend=ScriptedBackend([turn, END], supports_grammar=True))
    assert arguments(out) == {"city": "Oslo", "cuisine": ["Seafood"]} and "stated_list" in out["step_checks"]
    off = tool_calls(ask, tools, backend=ScriptedBackend([turn, END], supports_grammar=True), checks="-stated_list")
    assert arguments(off) == {"city": "Oslo"} and "stated_list" not in off.get("step_checks", [])
