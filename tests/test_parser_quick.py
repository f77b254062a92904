"""The fast path (``react_text.protocol.quick``) gives the ``Step`` the general walk gives, on every turn.

Each turn is parsed twice, with the fast path and with it switched off (``quick.ENABLED``): every case
of the case files, every frozen turn of ``tests/data/parser_equivalence.jsonl.gz``, and generated turns
built around the shape the fast path reads (with the near misses it must hand to the walk).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.protocol import feedback, quick
from react_text.protocol.names import toolset
from react_text.protocol.parser import parse
from react_text.protocol.turn import Turn

DATA = Path(__file__).resolve().parent / "data"
CASE_FILES = ("parser_cases.jsonl", "parser_class_cases.jsonl", "peer_cases.jsonl")
STYLE = ("classic", 1, None)


def _cases() -> list[dict[str, Any]]:
    items = []
    for name in CASE_FILES:
        with (DATA / name).open(encoding="utf-8") as fh:
            items += [{"text": c["text"], "tools": c.get("tools"), "kw": {}} for c in map(json.loads, fh) if c]
    return items


def _frozen() -> list[dict[str, Any]]:
    with gzip.open(DATA / "parser_equivalence.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def both(text: str, tools: Any = None, **kw: Any) -> tuple[Any, Any]:
    """The Step with the fast path, and the Step of the walk alone."""
    fast = parse(text, tools, **kw)
    quick.ENABLED = False
    try:
        general = parse(text, tools, **kw)
    finally:
        quick.ENABLED = True
    return fast, general


def taken(text: str, tools: Any = None) -> bool:
    return quick.quick(Turn(text, toolset(tools), STYLE)) is not None


def _differences(items: list[dict[str, Any]]) -> list[tuple]:
    out = []
    for item in items:
        try:
            fast, general = both(item["text"], item["tools"], **item["kw"])
        except (TypeError, ValueError):
            continue  # a bad argument: raised before either path runs
        if fast != general:
            out.append((item["text"][:200], item["tools"], fast, general))
    return out


def test_every_case_gives_the_same_step_and_many_take_the_fast_path() -> None:
    items = _cases()
    assert not _differences(items)
    hits = sum(taken(item["text"], item["tools"]) for item in items)
    assert hits >= 90, hits  # the common shapes are common in the case files too (100 of 431)


FROZEN = _frozen()
CHUNK = 1000


@pytest.mark.parametrize("first", range(0, len(FROZEN), CHUNK))
def test_every_frozen_turn_gives_the_same_step(first: int) -> None:
    differ = _differences(FROZEN[first:first + CHUNK])
    assert not differ, f"{len(differ)} turns differ; the first: {differ[0]}"


@pytest.mark.parametrize("text", [
    "Thought: I need the weather.\nAction: get_weather\nAction Input: Paris",
    'Action: search\nAction Input: {"query": "x"}',
    "Thought: done\nFinal Answer: 42",
    "思考：查一下\n行动：search\n行动输入：长城有多长",
    "Action: search\nAction Input: a\nAction: calculator\nAction Input: 2+2\nObservation: 4",
    '{"action": "search", "action_input": {"query": "x"}}',
    '```json\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n```\n',
    '```\n{"action": "Final Answer", "action_input": "42"}\n```\nObservation: made up',
])
def test_the_common_shapes_take_the_fast_path(text: str) -> None:
    assert taken(text, ["search", "calculator", "get_weather"])


@pytest.mark.parametrize("text", [
    'Action: search\nAction Input: {"query": "cut',  # truncated: the walk words the error
    "Action: search\nAction Input: the input to the action",  # an echoed instruction
    'Action: search\nAction Input: {"query": "x"} {"action": "calculator", "action_input": "1"}',
    'Action: search\nAction Input: {"query": "x"}\n{"action": "calculator", "action_input": "1"}',
    "Action: search\nAction Input: {'query': 'x'}\nAction: search(query='y')",
    "Action: nope\nAction Input: x",
    '{"action": "search", "action_input": "x"}\nObservation: made up',  # the walk cuts the tail
    '{"name": "John", "age": 30}',  # data, not a call
    '{"action": "search", "action_input": "a"} {"action": "calculator", "action_input": "1"}',  # more calls on its line
    '{"action": "search", "action_input": "cut',
    '{"action": "tool_name", "action_input": "x"}\n{"action": "search", "action_input": "y"}',  # an echo, then a call
    '```json {"action": "search"}\n{"action": "search", "action_input": "x"}\n```',  # "{" on the fence line
])
def test_a_turn_handed_to_the_walk_is_left_as_it_was(text: str) -> None:
    turn = Turn(text, toolset(["search", "calculator"]), STYLE)
    assert quick.quick(turn) is None
    fresh = Turn(text, toolset(["search", "calculator"]), STYLE)
    assert [getattr(turn, s) for s in Turn.__slots__] == [getattr(fresh, s) for s in Turn.__slots__]


# Each choice: mostly a form the fast path reads, else one it must hand to the walk, or a read form
# with random text after it.
PREAMBLES = (("", "Thought: I should look.\n", "思考：查一下\n", "thought: hm\n", "THOUGHT: X\n", "Thoughts: a\n", "想法：嗯\n"),
             ("Thought: a {b}\n", "Sure!\n\nThought: x\n", "Question: what?\n", "Thought:\n", "**Thought:** hm\n",
              "Action 1: hm\n", "Final Answer: 1\n", "- note\nmore prose\n", "<|im_end|>\n", '{"action": "search"}\n'))
ACTION_LABELS = (("Action: ", "Action:", "行动：", "action: ", "ACTION: ", "Action : ", "行动: "),
                 ("Actions:", "**Action:**", "Act:", "Tool:", "Action:  ", "Action 1:", "Action:_ ", "Action:** "))
BREAKS = (("\n",), ("\n\n", " ", "  \n"))
INPUT_LABELS = (("Action Input: ", "Action Input:", "行动输入：", "action input: ", "ACTION INPUT: ", "Action_Input: ",
                 "Action Input ：", "行动输入: "),
                ("Action input:", "Input:", "", "Action Input:\n", "Action Input:\t", "Action Input:  "))
NAMES = (("search", "calculator", "get_weather"),
         ("Search", "unknown", "JSON_BLOB", "final_answer", "None", "_", "search.", "`search`", "tool_name",
          "functions.search", "search(query='x')", "Search[x]"))
VALUES = (("Paris", "2+2", "population of Canada", '"quoted"', "'single'", "“smart”", '{"query": "x"}', "中文输入",
           "{'query': 'x'}", '{"query": "x"}}', '{"query": "x"', "x\ncontinued", "f(x)"),
          ('"unclosed', '{"query": "...", "n": 1}', "{x}", '{"query": "x",', "[1, 2]", "```json\n{\"a\": 1}\n```",
           "**bold**", "`code`", "the input to the action", "...", 'Wrapper({"a": 1})', "x Observation: y",
           "$JSON_BLOB", "x Action Input: y", "", " x", "x\r"))
TAILS = (("", "\n", "\nObservation: x", "\nObservation: x\nThought: y\nFinal Answer: z", "\nFinal Answer: y"),
         ("\n\n", "\nQuestion: next?", " junk", '\n{"action": "search", "action_input": "x"}', "\n```json\n{}\n```",
          "\nResult: 3", "\nmore text", "\n\nAction: search\nAction Input: y", "<|im_end|>tail",
          '\n<tool_call>{"name": "search", "arguments": {}}</tool_call>', "\nObs", "\n观察：x"))
FINALS = (("Final Answer: ", "最终答案：", "final answer: ", "FINAL ANSWER: ", "Final Answer : ", "最终答案 ："),
          ("Final Answer:**", "Final Answer:_ ", "Answer: ", "Final_Answer: ", "Final Answer 1: ", "**Final Answer:** "))
TOOLS = (["search", "calculator"], None, ["get_weather", "search", "calculator"],
         {"calculator": {"type": "object", "properties": {"expression": {"type": "string"}}}})


def _pick(draw: Any, forms: tuple[tuple[str, ...], tuple[str, ...]]) -> str:
    read, handed = forms
    return draw(st.one_of(st.sampled_from(read), st.sampled_from(read), st.sampled_from(read), st.sampled_from(handed),
                          st.text(max_size=6).map(lambda s: read[0] + s)))


def _action(draw: Any) -> str:
    return "".join(_pick(draw, forms) for forms in (ACTION_LABELS, NAMES, BREAKS, INPUT_LABELS, VALUES))


@st.composite
def turns(draw: Any) -> str:
    text = _pick(draw, PREAMBLES)
    if draw(st.booleans()):
        text += _action(draw)
        for _ in range(draw(st.integers(0, 2))):
            text += draw(st.sampled_from(("\n", "\n\n", " "))) + _action(draw)
    else:
        text += _pick(draw, FINALS) + _pick(draw, VALUES)
    return text + _pick(draw, TAILS)


@settings(max_examples=600, deadline=None)
@given(turns(), st.sampled_from(TOOLS), st.sampled_from(({}, {"prose": "final"}, {"dialect": "zh", "n": 2})))
def test_generated_turns_give_the_same_step(text: str, tools: Any, kw: dict) -> None:
    fast, general = both(text, tools, **kw)
    assert fast == general
    assert fast.error is None or fast.error.code != "internal"


def test_a_remembered_message_is_the_message() -> None:
    voice = feedback.Voice(toolset(["search"]), "classic", 2, None, tried="search")
    first = feedback.missing_input(voice, "search")
    assert feedback.missing_input(voice, "search") is first
    assert first == feedback.missing_input.__wrapped__(voice, "search")
    assert feedback.missing_input(feedback.Voice(toolset(["calculator"]), "classic", 2), "calculator") != first


def test_a_message_under_schemas_follows_the_schema() -> None:
    """A schema is the caller's dict: a message under it is worded anew each time, never remembered."""
    schema = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    tools = {"search": schema}
    before = parse("Action: search", tools).error.message
    schema["properties"] = {"q": {"type": "string"}}
    schema["required"] = ["q"]
    after = parse("Action: search", tools).error.message
    assert '"query"' in before and '"q"' in after
