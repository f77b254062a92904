"""No-agent baselines: prompts, replies read by the tolerant parser, records, and compare cells (scripted backend)."""

from __future__ import annotations

import json

import pytest

from react_text.backends.scripted import ScriptedBackend
from react_text.eval import compare
from react_text.eval.baselines import BASELINES, baseline_record, load_prompts, read_calls, run_baseline
from react_text.eval.planning import CompareSpec
from react_text.eval.suite_tools import SUITE_TOOLS
from react_text.eval.suites import parse_suite
from react_text.tools.builtins import calculator
from react_text.tools.search import search_files


@pytest.fixture()
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "town.txt").write_text("Brookmere had a population of 5,120 in 2020.\n\n"
                                     "The mayor of Brookmere is Ada Venn.\n", encoding="utf-8")
    return folder


def test_prompts_exist_for_every_baseline_in_both_languages():
    prompts = load_prompts()
    for lang in ("en", "zh"):
        assert set(BASELINES) | {"calc_result", "calc", "calc_answer"} <= set(prompts[lang])
    assert "搜索结果" in prompts["zh"]["rag"] and "Search results" in prompts["en"]["rag"]


def test_rag_searches_with_the_question_once_and_answers_in_one_call(corpus):
    backend = ScriptedBackend(["Final Answer: 5,120"])
    run = run_baseline("rag", "What was the population of Brookmere?", "en",
                       [search_files(corpus), calculator], backend)
    assert (run.status, run.answer, len(run.exchanges)) == ("answered", "5,120", 1)
    sent = backend.calls[0].prompt
    assert "population of 5,120" in sent and sent.rstrip().endswith("What was the population of Brookmere?")


def test_rag_in_chinese_and_a_refusal_is_an_answer(corpus):
    backend = ScriptedBackend(["我不知道。"])
    run = run_baseline("rag", "Brookmere 的市长是谁？", "zh", [search_files(corpus)], backend)
    assert (run.status, run.answer) == ("answered", "我不知道。")
    assert "问题：Brookmere 的市长是谁？" in backend.calls[0].prompt


def test_rag_calc_runs_one_calculator_pass_then_answers(corpus):
    backend = ScriptedBackend(['Action: calculator(expression="5120 / 2")', "Final Answer: 2560"])
    run = run_baseline("rag+calc", "Half the population of Brookmere?", "en",
                       [search_files(corpus), calculator], backend)
    assert (run.status, run.answer, len(run.exchanges), run.actions) == ("answered", "2560", 2, 1)
    assert "Calculator: 5120 / 2 = 2560" in backend.calls[1].prompt


def test_rag_calc_answering_at_once_makes_one_call(corpus):
    backend = ScriptedBackend(["Final Answer: Ada Venn"])
    run = run_baseline("rag+calc", "Who is the mayor of Brookmere?", "en", [search_files(corpus), calculator], backend)
    assert (run.answer, len(run.exchanges)) == ("Ada Venn", 1)


def test_direct_sends_the_question_alone():
    backend = ScriptedBackend(["I think 7."])
    run = run_baseline("direct", "How many?", "en", [calculator], backend)
    assert (run.status, run.answer) == ("answered", "I think 7.")
    assert "Search results" not in backend.calls[0].prompt and "calculator" not in backend.calls[0].prompt


def test_rag_without_a_search_tool_is_the_direct_prompt():
    backend = ScriptedBackend(["Final Answer: 4"])
    run_baseline("rag", "What is 2 + 2?", "en", [calculator], backend)
    assert backend.calls[0].prompt == load_prompts()["en"]["direct"].format(question="What is 2 + 2?")


def test_plain_runs_the_calls_it_reads_and_their_results_are_the_answer():
    tools = [SUITE_TOOLS["convert_units"], SUITE_TOOLS["bmi"]]
    backend = ScriptedBackend(['[convert_units(value=26.2, from_unit="mi", to_unit="km")]'])
    run = run_baseline("plain", "How many kilometres is 26.2 miles?", "en", tools, backend)
    assert run.status == "answered" and "42.16" in run.answer and run.actions == 1
    assert "convert_units(value: float" in backend.calls[0].prompt


def test_plain_reads_several_calls_and_sloppy_ones():
    schemas = {"f": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}},
               "g": {"type": "object", "properties": {"x": {"type": "string"}}}}
    calls = read_calls("Sure: [f(a=1, b='x, y'), g(x=\"(z), w\")]", schemas)
    assert [(c.tool, c.args) for c in calls] == [("f", {"a": 1, "b": "x, y"}), ("g", {"x": "(z), w"})]
    assert read_calls("The answer is 4.", schemas) is None


def test_plain_with_no_call_answers_with_its_reply_and_a_failing_call_is_no_answer():
    tools = [SUITE_TOOLS["convert_units"]]
    run = run_baseline("plain", "Say hi.", "en", tools, ScriptedBackend(["hi"]))
    assert (run.status, run.answer) == ("answered", "hi")
    run = run_baseline("plain", "Convert.", "en", tools, ScriptedBackend(['[convert_units(value="x")]']))
    assert (run.status, run.answer, run.invalid_tool_calls) == ("tool_failures", "", 1)


def test_a_dead_backend_is_a_backend_error_and_an_empty_reply_a_format_error():
    assert run_baseline("direct", "Q?", "en", [], ScriptedBackend([])).status == "backend_error"
    assert run_baseline("direct", "Q?", "en", [], ScriptedBackend(["  "])).status == "format_errors"


def test_the_record_carries_the_agents_fields_and_is_judged_alike():
    task = parse_suite(json.dumps({"id": "t", "question": "Q?", "expected": 4, "match": "number", "tools": [],
                                   "lang": "en", "category": "c"})).tasks[0]
    run = run_baseline("direct", "Q?", "en", [], ScriptedBackend(["Final Answer: 4"]))
    record = baseline_record(task, run, model="m", template="direct", trace="t.jsonl", wall_seconds=1.23456)
    assert record["correct"] and record["turns"] == 1 and record["wall_seconds"] == 1.235
    assert {"status", "answer", "prompt_tokens", "evaluated_tokens", "completion_tokens", "steps", "actions",
            "invalid_tool_calls", "format_errors"} <= set(record)


def test_compare_runs_baselines_beside_a_template_and_takes_no_grammar(tmp_path, corpus):
    tasks = [{"id": "p1", "question": "What was the population of Brookmere?", "expected": 5120, "match": "number",
              "tools": ["search", "calculator"], "lang": "en", "category": "lookup"},
             {"id": "p2", "question": "Who is the mayor of Brookmere?", "expected": "Ada Venn", "match": "contains",
              "tools": ["search"], "lang": "en", "category": "lookup"}]
    suite = tmp_path / "s.jsonl"  # the corpus/ folder beside it is its search corpus
    suite.write_text("\n".join(json.dumps(t) for t in tasks), encoding="utf-8")
    spec = CompareSpec(templates=("classic", "rag", "direct"), models=("fake",), suite=str(suite),
                       out_dir=tmp_path / "out", backend="http", urls=("http://127.0.0.1:9",),
                       constrain=(False, True), top_k=1)

    def reply(prompt: str) -> str:
        if "Search results" in prompt:
            return "Final Answer: 5,120" if "population" in prompt.rsplit("Question:", 1)[-1] else "I don't know."
        if prompt.rstrip().endswith("Question: Who is the mayor of Brookmere?"):
            return "Final Answer: Bob"
        return 'Action: search(query="Brookmere")' if "Observation" not in prompt else "Final Answer: 5120"

    records = compare.run_compare(spec, backend_factory=lambda m, w: ScriptedBackend([reply] * 40),
                                  progress_stream=open("/dev/null", "w"))
    cells = sorted({(r["template"], r["constrain"]) for r in records})
    assert cells == [("classic", False), ("classic", True), ("direct", False), ("rag", False)]
    rag = {r["task_id"]: r for r in records if r["template"] == "rag"}
    assert rag["p1"]["correct"] and not rag["p2"]["correct"] and rag["p2"]["answer"] == "I don't know."
    first = json.loads(open(rag["p1"]["trace"], encoding="utf-8").readline())
    assert first["prompt"].count("[1]") == 1 and "[2]" not in first["prompt"]  # top_k=1
    again = compare.run_compare(spec, backend_factory=lambda m, w: pytest.fail("nothing left to run"),
                                progress_stream=open("/dev/null", "w"))
    assert len(again) == len(records)


def test_rag_calc_without_a_search_tool_still_offers_its_calculator_pass():
    backend = ScriptedBackend(['Action: calculator(expression="7384 * 129")', "Final Answer: 952536"])
    run = run_baseline("rag+calc", "What is 7,384 times 129?", "en", [calculator], backend)
    assert (run.status, run.answer, len(run.exchanges)) == ("answered", "952536", 2)
    assert "Search results" not in backend.calls[0].prompt and "Action: calculator" in backend.calls[0].prompt
    assert "Calculator: 7384 * 129 = 952536" in backend.calls[1].prompt
