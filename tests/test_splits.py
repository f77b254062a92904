"""The dev / test split: the rule, the shipped suites' written field, and compare --split."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from react_text.backends.scripted import ScriptedBackend
from react_text.eval import compare
from react_text.eval.planning import CompareError, CompareSpec, planned_task_ids
from react_text.eval.splits import assign_splits, in_selection
from react_text.eval.suites import SuiteError, load_suite, parse_suite


def _task(task_id, category="c", lang="en", **extra):
    return {"id": task_id, "question": "What is 2 + 2?", "expected": 4, "match": "number", "tools": [],
            "lang": lang, "category": category, **extra}


def test_rule_halves_every_group_and_ignores_order():
    tasks = [_task(f"a{i}") for i in range(7)] + [_task(f"b{i}", lang="zh") for i in range(4)]
    sides = assign_splits(tasks)
    assert Counter(sides[t["id"]] for t in tasks[:7]) == {"dev": 3, "test": 4}
    assert Counter(sides[t["id"]] for t in tasks[7:]) == {"dev": 2, "test": 2}
    assert assign_splits(list(reversed(tasks))) == sides


def test_every_shipped_task_carries_the_rules_split():
    suite = load_suite("all")
    sides = assign_splits([{"id": t.id, "category": t.category, "lang": t.lang} for t in suite.tasks])
    assert {t.id: t.split for t in suite.tasks} == sides
    groups = Counter((t.category, t.lang, t.split) for t in suite.tasks)
    for category, lang in {(t.category, t.lang) for t in suite.tasks}:
        assert abs(groups[(category, lang, "test")] - groups[(category, lang, "dev")]) <= 1


def test_load_suite_keeps_the_split_and_refuses_an_unknown_one():
    suite = parse_suite(json.dumps(_task("t1", split="dev")) + "\n" + json.dumps(_task("t2")))
    assert [t.split for t in suite.tasks] == ["dev", None]
    with pytest.raises(SuiteError, match="'split' must be one of"):
        parse_suite(json.dumps(_task("t1", split="train")))


def test_selection():
    assert in_selection(None, "all") and in_selection("dev", "all")
    assert in_selection("test", "test") and not in_selection("dev", "test") and not in_selection(None, "test")
    with pytest.raises(ValueError):
        in_selection("dev", "train")


def _spec(tmp_path, suite, split):
    return CompareSpec(templates=("classic",), models=("fake",), suite=str(suite), out_dir=tmp_path / "out",
                       backend="http", urls=("http://127.0.0.1:9",), split=split)


def test_compare_runs_only_the_chosen_split_and_the_report_names_it(tmp_path):
    suite = tmp_path / "s.jsonl"
    suite.write_text("\n".join(json.dumps(_task(f"t{i}", split="dev" if i % 2 else "test")) for i in range(4)),
                     encoding="utf-8")
    spec = _spec(tmp_path, suite, "test")
    assert planned_task_ids(spec) == ["t0", "t2"]
    records = compare.run_compare(spec, backend_factory=lambda m, w: ScriptedBackend(["Final Answer: 4"] * 4),
                                  progress_stream=open("/dev/null", "w"))
    assert sorted(r["task_id"] for r in records) == ["t0", "t2"]
    paths = compare.write_report(records, spec.out_dir, split="test")
    assert paths["markdown"].read_text(encoding="utf-8").startswith("# react-text compare: test split")
    assert json.loads(paths["json"].read_text(encoding="utf-8"))["split"] == "test"


def test_a_split_the_suite_lacks_stops_before_any_work(tmp_path):
    suite = tmp_path / "s.jsonl"
    suite.write_text(json.dumps(_task("t0")), encoding="utf-8")
    with pytest.raises(CompareError, match="no task in the 'dev' split"):
        compare.run_compare(_spec(tmp_path, suite, "dev"), backend_factory=lambda m, w: pytest.fail("ran"))
    assert planned_task_ids(_spec(tmp_path, suite, "all")) == ["t0"]
