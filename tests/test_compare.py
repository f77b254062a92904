"""compare: resumable runs, crash records, pre-flight errors, reports (scripted backend)."""

from __future__ import annotations

import json
import threading
import re

import pytest

from react_text.eval import compare
from react_text.eval.planning import CompareError, CompareSpec, prepare, sample_tasks
from react_text.eval.records import load_results
from react_text.backends.scripted import ScriptedBackend
from react_text.cli.main import main
from react_text.eval.suites import load_suite



def suite_file(tmp_path, lines):
    path = tmp_path / "mini.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


TASKS = [
    {"id": "t1", "question": "What is 2 + 2?", "expected": 4, "match": "number", "tools": ["calculator"],
     "lang": "en", "category": "arithmetic"},
    {"id": "t2", "question": "Say hello.", "expected": "hello", "match": "contains", "tools": [],
     "lang": "en", "category": "misc"},
    {"id": "t3", "question": "What is 3 * 3?", "expected": 9, "match": "number", "tools": ["calculator"],
     "lang": "en", "category": "arithmetic"},
]


def scripted_answers(prompt: str) -> str:
    q = prompt.rsplit("Question:", 1)[-1]
    if "2 + 2" in q:
        return " Easy.\nFinal Answer: 4"
    if "hello" in q:
        return " Greeting.\nFinal Answer: hello there"
    return " Guess.\nFinal Answer: 10"


def spec_for(tmp_path, suite, **kw):
    return CompareSpec(templates=("classic",), models=("fake",), suite=str(suite),
                       out_dir=tmp_path / "out", backend="http", urls=("http://127.0.0.1:9",), **kw)


def test_compare_runs_records_and_reports(tmp_path):
    suite = suite_file(tmp_path, TASKS)
    spec = spec_for(tmp_path, suite)
    made = []

    def factory(model, worker):
        made.append(model)
        return ScriptedBackend([scripted_answers] * 5)

    records = compare.run_compare(spec, backend_factory=factory, progress_stream=open("/dev/null", "w"))
    assert [r["task_id"] for r in records] == ["t1", "t2", "t3"]
    assert [r["correct"] for r in records] == [True, True, False]
    assert all(r["status"] == "answered" for r in records)
    saved = load_results(spec.out_dir / "results.jsonl")
    assert saved == records
    for r in records:  # a trace per task, for drill-down
        assert json.loads(open(r["trace"], encoding="utf-8").readline())["event"] == "run_start"
    paths = compare.write_report(records, spec.out_dir, command="react-text compare ...")
    assert "2/3" in paths["markdown"].read_text(encoding="utf-8")
    assert paths["chart"].read_text(encoding="utf-8").startswith("<svg")


def test_compare_resumes_without_repeating_finished_tasks(tmp_path):
    suite = suite_file(tmp_path, TASKS)
    spec = spec_for(tmp_path, suite)
    calls = []

    def interrupting(model, worker):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return ScriptedBackend([scripted_answers] * 5)

    with pytest.raises(KeyboardInterrupt):
        compare.run_compare(spec, backend_factory=interrupting, progress_stream=open("/dev/null", "w"))
    first = load_results(spec.out_dir / "results.jsonl")
    assert [r["task_id"] for r in first] == ["t1"]

    asked = []

    def factory(model, worker):
        asked.append(1)
        return ScriptedBackend([scripted_answers] * 5)

    records = compare.run_compare(spec, backend_factory=factory, progress_stream=open("/dev/null", "w"))
    assert len(asked) == 2  # t2 and t3 only
    assert sorted(r["task_id"] for r in records) == ["t1", "t2", "t3"]
    # a torn last line (crash mid-write) is skipped, not fatal
    with open(spec.out_dir / "results.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"model": "fake", "templ')
    assert len(load_results(spec.out_dir / "results.jsonl")) == 3


def test_crashing_task_is_recorded_as_failure(tmp_path):
    suite = suite_file(tmp_path, TASKS[:2])
    spec = spec_for(tmp_path, suite)

    def factory(model, worker):
        raise RuntimeError("backend exploded")

    records = compare.run_compare(spec, backend_factory=factory, progress_stream=open("/dev/null", "w"))
    assert [r["status"] for r in records] == ["crashed", "crashed"]
    assert "backend exploded" in records[0]["error"]
    assert not any(r["correct"] for r in records)


def test_missing_template_or_model_stops_before_any_work(tmp_path):
    suite = suite_file(tmp_path, TASKS)
    spec = CompareSpec(templates=("classic", "no-such-template"), models=("no-such-model",),
                       suite=str(suite), out_dir=tmp_path / "out")
    with pytest.raises(CompareError) as err:
        compare.run_compare(spec, backend_factory=lambda m, w: pytest.fail("must not run"))
    text = str(err.value)
    assert "no-such-template" in text and "no-such-model" in text
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_a_search_task_without_documents_stops_before_any_work(tmp_path):
    """A suite file of one's own with search tasks and no corpus/ beside it once ran with search silently
    missing from the prompt (every lookup failed); now it names the two ways to give it documents."""
    task = {**TASKS[0], "id": "s1", "question": "Where is the bridge?", "tools": ["search"]}
    spec = spec_for(tmp_path, suite_file(tmp_path, [task, TASKS[1]]))
    with pytest.raises(CompareError, match=r"s1.*search.*corpus/ folder beside the suite file or pass --corpus"):
        compare.run_compare(spec, backend_factory=lambda m, w: pytest.fail("must not run"))
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.txt").write_text("The bridge is in town.", encoding="utf-8")
    prepared = prepare(spec)
    assert prepared.corpus == tmp_path / "corpus"


def test_malformed_suite_line_is_refused_with_line_number(tmp_path, capsys):
    suite = tmp_path / "bad.jsonl"
    suite.write_text(json.dumps(TASKS[0]) + "\n{not json\n", encoding="utf-8")
    code = main(["compare", "--suite", str(suite), "--models", "smollm2-135m", "--templates", "classic",
                 "--out", str(tmp_path / "o")])
    assert code == 2
    err = capsys.readouterr().err
    assert re.search(r"bad\.jsonl:2: not valid JSON", err)


def test_builtin_suites_are_large_and_bilingual():
    suite = load_suite("all")
    assert len(suite.tasks) >= 80
    assert {t.lang for t in suite.tasks} == {"en", "zh"}
    assert suite.corpus_dir is not None and suite.corpus_dir.is_dir()


def test_concurrency_against_several_workers(tmp_path):
    suite = suite_file(tmp_path, TASKS)
    spec = spec_for(tmp_path, suite, concurrency=3)
    workers = set()
    together = threading.Barrier(3, timeout=30)  # passes only if three workers run at the same time

    def factory(model, worker):
        if worker not in workers:
            workers.add(worker)
            together.wait()
        return ScriptedBackend([scripted_answers] * 5)

    records = compare.run_compare(spec, backend_factory=factory, progress_stream=open("/dev/null", "w"))
    assert sorted(r["task_id"] for r in records) == ["t1", "t2", "t3"]
    assert workers == {0, 1, 2}


def test_per_group_sample_keeps_every_category_and_language():
    suite = load_suite("all")
    sample = sample_tasks(suite.tasks, per_group=2)
    groups = {(t.category, t.lang) for t in suite.tasks}
    assert len(sample) == 2 * len(groups)
    assert {(t.category, t.lang) for t in sample} == groups
    order = [t.id for t in suite.tasks]
    assert [t.id for t in sample] == sorted((t.id for t in sample), key=order.index)
    assert sample_tasks(suite.tasks, per_group=None) == tuple(suite.tasks)


def test_small_real_compare_on_smollm2(tmp_path, smol_backend):
    """Two templates × two real tasks through real llama.cpp: structure, not the model's skill."""
    spec = CompareSpec(templates=("classic", "zh"), models=("smollm2-135m",), suite="arithmetic",
                       out_dir=tmp_path / "out", limit=2, max_steps=3, max_turn_tokens=96)
    records = compare.run_compare(spec, backend_factory=lambda model, worker: smol_backend,
                                  progress_stream=open("/dev/null", "w"))
    assert len(records) == 4
    assert {(r["template"], r["task_id"]) for r in records} == {
        (t, i) for t in ("classic", "zh") for i in ("arith-en-01", "arith-en-02")}
    for r in records:
        assert r["status"] in {"answered", "gave_up", "max_steps", "max_tokens", "no_progress",
                               "format_errors", "tool_failures"}
        assert r["turns"] >= 1 and r["completion_tokens"] > 0 and r["evaluated_tokens"] > 0
        assert r["correct"] in (True, False)
    paths = compare.write_report(records, spec.out_dir)
    assert "smollm2-135m" in paths["markdown"].read_text(encoding="utf-8")
