"""BFCL's data reader (on the committed sample, tests/data/bfcl) and reading calls out of replies."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import (CATEGORIES, DATA_ENV, INSTALL, BfclDataMissing, data_dir, held_out, item_range,
                                       load_items, parse_categories)
from react_text.eval.bfcl.decode import openai_tools, python_calls, shim_calls
from react_text.fc.request import read_tools

SAMPLE = Path(__file__).parent / "data" / "bfcl"


def test_the_sample_reads_with_answers_aligned_to_their_questions():
    items = load_items(["simple_python", "parallel", "irrelevance", "live_relevance"], SAMPLE)
    by_id = {i.id: i for i in items}
    first = by_id["simple_python_0"]
    assert first.category == "simple_python" and first.question.startswith("Find the area of a triangle")
    assert first.functions[0]["name"] == "calculate_triangle_area"
    assert first.answers == ({"calculate_triangle_area": {"base": [10], "height": [5], "unit": ["units", ""]}},)
    assert len(by_id["parallel_0"].answers) > 1
    assert by_id["irrelevance_0"].answers == () and by_id["live_relevance_0-0-0"].answers == ()


def test_every_sample_answer_built_from_its_first_allowed_values_is_judged_right():
    judged = [c for c in CATEGORIES if (SAMPLE / "possible_answer" / f"BFCL_v4_{c}.json").exists()]
    assert len(judged) >= 5
    for item in load_items(judged, SAMPLE):
        calls = [Call(name, {k: v[0] for k, v in params.items() if v[0] != "" and not isinstance(v[0], dict)})
                 for answer in item.answers for name, params in answer.items()]
        if any(isinstance(v[0], dict) for a in item.answers for p in a.values() for v in p.values()):
            continue  # a dict parameter's answer nests options: checked in test_bfcl_checker
        assert check(item.category, item.functions, calls, item.answers).valid, item.id


def test_the_folder_comes_from_the_environment_or_the_installed_package(monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(SAMPLE))
    assert data_dir() == SAMPLE
    monkeypatch.delenv(DATA_ENV)
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)  # not installed
    with pytest.raises(BfclDataMissing) as caught:
        data_dir()
    assert INSTALL in str(caught.value) and "\n" not in str(caught.value)


def test_a_missing_category_file_names_the_install_command(tmp_path):
    with pytest.raises(BfclDataMissing, match="pip install --no-deps bfcl-eval=="):
        load_items(["simple_python"], tmp_path)


def test_categories_are_checked_and_live_ones_are_held_out():
    assert parse_categories("simple_python, multiple") == ("simple_python", "multiple")
    assert parse_categories("all") == CATEGORIES
    with pytest.raises(ValueError, match="unknown BFCL category simple_java"):
        parse_categories("simple_java")
    assert held_out("live_simple") and not held_out("simple_python")


def test_functions_become_tools_the_shim_accepts():
    for item in load_items(["simple_python", "multiple", "live_multiple"], SAMPLE):
        tools = openai_tools(item.functions)
        assert len(read_tools(tools)) == len(item.functions)
        assert all(t["function"]["parameters"]["type"] == "object" for t in tools)
    (tool,) = openai_tools([{"name": "f", "parameters": {"type": "dict", "properties": {
        "x": {"type": "float"}, "xs": {"type": "tuple", "items": {"type": "dict"}}}}}])
    props = tool["function"]["parameters"]["properties"]
    assert props["x"]["type"] == "number" and props["xs"] == {"type": "array", "items": {"type": "object"}}


@pytest.mark.parametrize("reply, calls", [
    ('[area(base=10, height=5)]', [Call("area", {"base": 10, "height": 5})]),
    ('area(base=10, height=-5.5)', [Call("area", {"base": 10, "height": -5.5})]),
    ('```\n[math.hypot(x=4, y=5), f(s="a", xs=[1, 2], d={"k": 1})]\n```',
     [Call("math.hypot", {"x": 4, "y": 5}), Call("f", {"s": "a", "xs": [1, 2], "d": {"k": 1}})]),
    ('[f(x=2*3, name=city)]', [Call("f", {"x": 6, "name": "city"})]),
    ('[f(10, y=1)]', [Call("f", {"y": 1})]),  # positional values are not read, as in BFCL
    ('[]', []),
])
def test_a_plain_reply_is_read_as_python_calls(reply, calls):
    assert list(python_calls(reply)) == calls


@pytest.mark.parametrize("reply", ["The area is 25.", "I cannot help with that.", "[1, 2]", "Sure: [f(x=1)]"])
def test_a_reply_that_is_not_calls_holds_none(reply):
    assert python_calls(reply) is None


def test_the_shims_tool_calls_become_calls():
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": json.dumps({"a": 1})}},
        {"id": "call_2", "type": "function", "function": {"name": "g", "arguments": "not json"}}]}
    assert shim_calls(message) == (Call("f", {"a": 1}), Call("g", {}))
    assert shim_calls({"role": "assistant", "content": "hi"}) == ()


def test_a_category_may_keep_a_range_of_its_items():
    assert parse_categories("parallel@1-3, simple_python") == ("parallel@1-3", "simple_python")
    assert [i.id for i in load_items(["parallel@1-3"], SAMPLE)] == ["parallel_1", "parallel_2"]
    whole = [i.id for i in load_items(["simple_python"], SAMPLE)]
    assert [i.id for i in load_items(["parallel@0-1", "simple_python@3-9"], SAMPLE)] == ["parallel_0", *whole[3:]]
    assert item_range("parallel") == ("parallel", 0, None)
    for bad in ("parallel@3-1", "parallel@x", "parallel@2-2"):
        with pytest.raises(ValueError, match="category@START-END"):
            parse_categories(bad)
    with pytest.raises(ValueError, match="unknown BFCL category simple_java@0-2"):
        parse_categories("simple_java@0-2")


def _record(task: str, answer: str, **cell) -> dict:
    category = task.rsplit("_", 1)[0]
    return {"model": "qwen2.5-coder-0.5b", "template": "classic", "constrain": True, "task_id": task,
            "category": category, "answer": answer, **cell}


def test_replay_applies_a_fill_to_the_default_s_recorded_replies_and_judges_both(tmp_path, monkeypatch):
    from react_text.eval.bfcl.replay import answer_calls, replay, report, right_arguments

    monkeypatch.setenv(DATA_ENV, str(SAMPLE))
    wrong = json.dumps([{"calculate_triangle_area": {"base": 10, "height": 50}}])
    right = json.dumps([{"calculate_triangle_area": {"base": 10, "height": 5}}])
    assert answer_calls(wrong) == (("calculate_triangle_area", {"base": 10, "height": 50}),)
    assert answer_calls("The area is 25.") is None and answer_calls("[1, 2]") is None
    older, newer = tmp_path / "older.jsonl", tmp_path / "newer.jsonl"
    older.write_text(json.dumps(_record("simple_python_0", right)) + "\n", encoding="utf-8")
    newer.write_text("\n".join(json.dumps(r) for r in (
        _record("simple_python_0", wrong),  # replaces the older file's record
        _record("simple_python_1", wrong, template="native"),  # not the default: left out
        _record("simple_python_2", wrong, model="other"),
    )) + "\n", encoding="utf-8")

    def halve(calls, item):
        assert item.id == "simple_python_0"
        return tuple((name, {**args, "height": args["height"] // 10}) for name, args in calls)

    replayed = list(replay([older, newer], halve))
    assert [(r.task, r.before, r.after) for r in replayed] == [("simple_python_0", False, True)]
    assert replayed[0].filled == (("calculate_triangle_area", {"base": 10, "height": 5}),)
    assert list(replay([older, newer], lambda calls, item: calls)) == []  # a fill that changes nothing
    arguments = {(item.id, name, key): allowed for item, name, key, allowed in right_arguments(["simple_python"])}
    assert arguments["simple_python_0", "calculate_triangle_area", "unit"] == ["units", ""]

    def tenfold(calls, item):  # every number of a right call becomes another; the recorded reply gets wrong
        return tuple((name, {k: v * 10 if isinstance(v, int) else v for k, v in args.items()}) for name, args in calls)

    lines = list(report([newer], tenfold, lambda v: isinstance(v, int), "integers", ["simple_python"]))
    numbers = sum(1 for _, _, _, allowed in right_arguments(["simple_python"])
                  if any(isinstance(v, int) for v in allowed) and "" not in allowed)
    assert f"non-live\tchanged\t{numbers}" in lines and "live\tintegers\t0" in lines
    assert lines[-2].startswith("simple_python_0 False False") and lines[-1].startswith("acted: 1 |")
