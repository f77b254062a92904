"""``compare --suite bfcl:...``: each item is one shim request (or the plain prompt), judged by the BFCL
checker, and the report gets a per-category section (scripted backend; one real-model test)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from react_text.backends.scripted import ScriptedBackend
from react_text.eval import compare
from react_text.eval.bfcl.data import DATA_ENV
from react_text.eval.planning import CompareError, CompareSpec

SAMPLE = Path(__file__).parent / "data" / "bfcl"


@pytest.fixture(autouse=True)
def sample(monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(SAMPLE))


def reply(prompt: str) -> str:
    """The right call when the triangle function is offered, in the plain and the classic form; else prose."""
    if "calculate_triangle_area" not in prompt:
        return " No function fits.\nFinal Answer: I cannot help with that." if "Thought" in prompt else "No."
    if "Thought:" in prompt:
        return ' I need the area.\nAction: calculate_triangle_area\nAction Input: {"base": 10, "height": 5}'
    return "[calculate_triangle_area(base=10, height=5)]"


def spec(tmp_path, **kw) -> CompareSpec:
    options = dict(templates=("classic", "plain"), models=("fake",), suite="bfcl:simple_python,irrelevance",
                   out_dir=tmp_path / "out", backend="http", urls=("http://127.0.0.1:9",), per_group=2)
    return CompareSpec(**{**options, **kw})


def without_bfcl_prompts(monkeypatch):
    """As where bfcl-eval is not installed: the plain cell falls back to react-text's own prompt."""
    monkeypatch.setitem(sys.modules, "bfcl_eval.constants.default_prompts", None)


def test_bfcl_items_run_as_shim_requests_and_plain_prompts_judged_by_the_checker(tmp_path, monkeypatch):
    without_bfcl_prompts(monkeypatch)
    records = compare.run_compare(spec(tmp_path), backend_factory=lambda m, w: ScriptedBackend([reply] * 20),
                                  progress_stream=open("/dev/null", "w"))
    got = {(r["template"], r["task_id"]): r for r in records}
    assert set(got) == {(t, i) for t in ("classic", "plain")
                        for i in ("simple_python_0", "simple_python_1", "irrelevance_0", "irrelevance_1")}
    for template in ("classic", "plain"):
        right = got[(template, "simple_python_0")]
        assert right["correct"] and right["status"] == "called" and right["bfcl"]
        assert json.loads(right["answer"]) == [{"calculate_triangle_area": {"base": 10, "height": 5}}]
        assert not got[(template, "simple_python_1")]["correct"]  # no call where one was needed
        assert got[(template, "irrelevance_0")]["correct"]  # no call where none fits (a triangle, BMI offered)
    trace = Path(got[("plain", "simple_python_0")]["trace"]).read_text(encoding="utf-8").splitlines()
    assert "calculate_triangle_area(base: int, height: int" in json.loads(trace[1])["prompt"]

    paths = compare.write_report(records, tmp_path / "out")
    text = paths["markdown"].read_text(encoding="utf-8")
    section = text[text.index("## BFCL"):]
    assert "| fake | classic | 1/2 (" in section and "| fake | plain | 1/2 (" in section
    assert "irrelevance" in section and "Published figures" in section


def test_live_categories_are_marked_held_out_in_the_report(tmp_path):
    records = compare.run_compare(spec(tmp_path, templates=("plain",), suite="bfcl:live_irrelevance,irrelevance"),
                                  backend_factory=lambda m, w: ScriptedBackend([reply] * 20),
                                  progress_stream=open("/dev/null", "w"))
    text = compare.write_report(records, tmp_path / "out")["markdown"].read_text(encoding="utf-8")
    assert "live_irrelevance (held out)" in text and "| 2/2 (" in text


def test_the_grammar_doubles_template_cells_but_not_the_plain_one(tmp_path):
    backend = lambda m, w: ScriptedBackend([reply] * 20, supports_grammar=True)  # noqa: E731
    records = compare.run_compare(spec(tmp_path, constrain=(False, True), per_group=1), backend_factory=backend,
                                  progress_stream=open("/dev/null", "w"))
    assert sorted({(r["template"], r["constrain"]) for r in records}) == [
        ("classic", False), ("classic", True), ("plain", False)]


def test_other_baselines_and_unknown_categories_stop_before_anything_runs(tmp_path):
    with pytest.raises(CompareError, match="runs templates and the 'plain' baseline only"):
        compare.run_compare(spec(tmp_path, templates=("classic", "rag")), backend_factory=lambda m, w: None)
    with pytest.raises(CompareError, match="unknown BFCL category"):
        compare.run_compare(spec(tmp_path, suite="bfcl:simple_rust"), backend_factory=lambda m, w: None)


def test_without_the_data_the_compare_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(CompareError, match="pip install --no-deps bfcl-eval=="):
        compare.run_compare(spec(tmp_path), backend_factory=lambda m, w: None)


@pytest.mark.model
def test_the_real_default_model_answers_a_bfcl_item_through_the_shim_and_plain(tmp_path):
    from react_text.catalog import DEFAULT_MODEL

    records = compare.run_compare(spec(tmp_path, templates=("classic", "plain"), models=(DEFAULT_MODEL,),
                                       suite="bfcl:simple_python", backend="llama", urls=(), per_group=1),
                                  progress_stream=open("/dev/null", "w"))
    assert {r["template"] for r in records} == {"classic", "plain"}
    for r in records:
        assert r["status"] in ("called", "answered") and r["task_id"] == "simple_python_0"
        assert isinstance(r["correct"], bool) and Path(r["trace"]).exists()
