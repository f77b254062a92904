"""Tool retrieval: which tools a run shows, list_tools revealing more, and the many-tools suite.

The loop runs on the scripted backend with the real parser, templates and
toolbox; the suite's answers are re-derived by calling its tools.
"""

from __future__ import annotations

import random
import re
import string
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.backends.scripted import ScriptedBackend
from react_text.eval.planning import task_tools
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.decisions import RunTool
from react_text.agent.loop import Agent
from react_text.tools.spec import tool
from react_text.eval.suites import BUILTIN_TOOLS, load_suite, match_answer
from react_text.prompting.templates import load_template
from react_text.prompting.retrieval import (LIST_TOOLS, ToolIndex, ToolRetrieval, clear_pick, fits_nothing, index_for,
                                            tool_terms)
from react_text.eval.toolbox import TOOLBOX, toolbox_tools

SUITE = Path(__file__).resolve().parents[1] / "suites" / "many_tools" / "many_tools.jsonl"
TOOLS = toolbox_tools()


def act(tool_name: str, args) -> str:
    return f" I should use a tool.\n{format_action('classic', tool_name, args)}"


def final(answer: str) -> str:
    return f" I know the answer now.\n{format_final('classic', answer)}"


def tool_lines(prompt: str) -> set[str]:
    """Tool names listed in the classic template's tool section ("- name: ...")."""
    head = prompt.split("To use a tool", 1)[0]
    return {line[2:].split(":", 1)[0] for line in head.splitlines() if line.startswith("- ")}


# --- terms and ranking -------------------------------------------------------------

def test_terms_split_identifiers_stem_and_read_chinese_bigrams():
    assert tool_terms("convertLength") == tool_terms("convert_length") == ["conver", "length"]
    assert tool_terms("conversion")[0] == tool_terms("converting")[0] == "conver"
    assert tool_terms("miles") == tool_terms("mile")
    assert "英里" in tool_terms("5 英里是多少公里") and "公里" in tool_terms("5 英里是多少公里")
    assert tool_terms("26.2 2024") == []


@pytest.mark.parametrize("question, best", [
    ("How many kilograms are 150 pounds?", "convert_mass"),
    ("What day of the week was 1969-07-20?", "day_of_week"),
    ("Who wrote the book A Ledger of Tides?", "book_author"),
    ("What does HTTP status code 418 mean?", "http_status_meaning"),
    ("5 英里是多少公里？", "convert_length"),
    ("2024-10-01 是星期几？", "day_of_week"),
])
def test_the_tool_a_question_needs_ranks_first(question, best):
    assert ToolIndex(TOOLS).rank(question)[0].name == best


def test_top_fills_up_to_k_in_declaration_order_and_rank_excludes():
    index = ToolIndex(TOOLS)
    top = index.top("Who wrote the book A Ledger of Tides?", 8)
    assert len(top) == 8 and top[0].name == "book_author"
    assert [m.name for m in top[1:] if m.score == 0] == [n for n in index.names if n != "book_author"][:7]
    assert "book_author" not in [m.name for m in index.rank("book author", exclude=["book_author"])]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.integers(min_value=1, max_value=80))
def test_ranking_never_raises_and_top_gives_distinct_tools(query, k):
    index = ToolIndex(TOOLS)
    top = index.top(query, k)
    names = [m.name for m in top]
    assert len(names) == min(k, len(TOOLS)) == len(set(names))
    assert all(m.score >= 0 for m in index.rank(query))


def test_listing_reveals_only_hidden_matches_with_their_arguments():
    retrieval = ToolRetrieval(TOOLS, max_shown=8, list_size=3)
    found = retrieval.listing("currency exchange rate", visible=["calculator"])
    assert found.names[0] == "convert_currency" and len(found.names) <= 3
    assert '"from_currency": "crown" | "ducat"' in found.text
    assert retrieval.listing("currency exchange rate", visible=["convert_currency"]).names[:1] != ("convert_currency",)
    nothing = retrieval.listing("zzzqqq", visible=["calculator"])
    assert nothing.names == () and "convert_length" in nothing.text  # names the other tools instead


def test_a_user_tool_named_list_tools_is_refused():

    @tool
    def list_tools(query: str) -> str:
        """Mine."""
        return query

    with pytest.raises(ValueError, match="list_tools"):
        ToolRetrieval([list_tools, *TOOLS])


# --- the agent -----------------------------------------------------------------------

def make_agent(turns, **options):
    backend = ScriptedBackend(turns)
    events: list[dict] = []
    agent = Agent(backend, TOOLS, load_template("classic"), on_event=events.append, **options)
    return agent, backend, events


def test_retrieval_shows_the_best_tools_and_list_tools_only():
    agent, backend, events = make_agent([act("convert_mass", {"value": 150, "from_unit": "lb", "to_unit": "kg"}),
                                         final("68.04 kg")], tool_retrieval=True, max_shown_tools=5)
    result = agent.run("How many kilograms are 150 pounds?")
    assert result.status == "answered"
    shown = tool_lines(backend.prompts[0])
    assert "convert_mass" in shown and LIST_TOOLS in shown and len(shown) == 6
    assert "book_author" not in shown
    (event,) = [e for e in events if e["event"] == "tools_shown"]
    assert [t["name"] for t in event["tools"]][0] == "convert_mass" and event["hidden"] == len(TOOLS) - 5
    assert "68.038855 kg" in result.steps[0].observation_text


def test_without_retrieval_every_tool_is_shown():
    agent, backend, events = make_agent([final("x")])
    agent.run("How many kilograms are 150 pounds?")
    assert tool_lines(backend.prompts[0]) == {t.name for t in TOOLS}
    assert not [e for e in events if e["event"] == "tools_shown"]


def test_few_tools_need_no_retrieval():
    backend = ScriptedBackend([final("x")])
    agent = Agent(backend, TOOLS[:4], load_template("classic"), tool_retrieval=True, max_shown_tools=8)
    agent.run("anything")
    assert tool_lines(backend.prompts[0]) == {t.name for t in TOOLS[:4]}


def test_a_hidden_tool_becomes_callable_after_list_tools_reveals_it():
    question = "How many kilograms are 150 pounds?"
    agent, backend, events = make_agent([
        act("book_author", {"title": "The Salt Road"}),    # hidden: refused, the shown tools are named
        act(LIST_TOOLS, {"query": "book author"}),          # reveals it
        act("book_author", {"title": "The Salt Road"}),    # now it runs
        final("Mira Ostrander"),
        final("Mira Ostrander"),  # again after the "this question asks for a number" nudge
    ], tool_retrieval=True, max_shown_tools=4,
        checks="-ungrounded")  # the title comes from nowhere, on purpose: the tool is hidden
    result = agent.run(question)
    assert result.status == "answered"
    first, listing, call = result.steps[:3]
    assert first.step.error is not None and first.step.error.code == "unknown_tool"
    assert "list_tools" in first.observation_text and "book_author" not in first.observation_text.split("Use one of")[-1]
    assert "- book_author: Who wrote a book" in listing.observation_text
    assert call.observation is not None and call.observation.text == "Mira Ostrander"
    revealed = [e for e in events if e["event"] == "tools_revealed"]
    assert revealed and revealed[0]["n"] == 2 and "book_author" in revealed[0]["tools"]
    # the prompt head never changed: each prompt extends the one before
    assert all(b.startswith(a) for a, b in zip(backend.prompts, backend.prompts[1:]))


def test_a_list_tools_query_is_not_questioned_by_the_grounding_check():
    """Its query describes the tool wanted ("unit conversion"), not a value the question holds."""
    agent, backend, _ = make_agent([act(LIST_TOOLS, {"query": "unit conversion"}), final("68")],
                                   tool_retrieval=True, max_shown_tools=2)
    result = agent.run("How many kilograms are 150 pounds?")
    assert result.status == "answered" and len(backend.calls) == 2
    assert isinstance(result.steps[0].decision, RunTool) and result.steps[0].action.tool == LIST_TOOLS


def test_each_run_starts_from_its_own_question():
    agent, backend, _ = make_agent([act(LIST_TOOLS, {"query": "book author"}), final("68"), final("Sunday")],
                                   tool_retrieval=True, max_shown_tools=3)
    agent.run("How many kilograms are 150 pounds?")
    agent.run("What day of the week was 1969-07-20?")
    assert "book_author" not in tool_lines(backend.prompts[2])
    assert "day_of_week" in tool_lines(backend.prompts[2])


def test_retrieval_cuts_the_prompt():
    agent_all, backend_all, _ = make_agent([final("x")])
    agent_few, backend_few, _ = make_agent([final("x")], tool_retrieval=True)
    agent_all.run("How many kilograms are 150 pounds?")
    agent_few.run("How many kilograms are 150 pounds?")
    assert len(backend_few.prompts[0]) * 2 < len(backend_all.prompts[0])  # the call demos are in both


# --- the suite ---------------------------------------------------------------------

def test_the_toolbox_has_at_least_fifty_distinct_tools():
    assert len({t.name for t in TOOLS}) == len(TOOLS) >= 50


def test_the_suite_loads_and_offers_the_whole_toolbox():
    suite = load_suite(SUITE, known_tools=BUILTIN_TOOLS | {TOOLBOX})
    assert len(suite) >= 50
    assert {t.name for t in task_tools(suite.tasks[0], None)} == {t.name for t in TOOLS}
    with pytest.raises(ValueError, match="toolbox"):
        load_suite(SUITE)  # the default known tools do not include the box


def test_every_task_is_answered_by_its_one_or_two_tools():
    by_name = {t.name: t for t in TOOLS}
    for task in load_suite(SUITE, known_tools=BUILTIN_TOOLS | {TOOLBOX}):
        assert 1 <= len({name for name, _ in task.calls}) <= 2, task.id
        outputs = [str(by_name[name](**args)) for name, args in task.calls]
        readings = re.findall(r"-?\d+(?:\.\d+)?", outputs[-1]) if task.match == "number" else [outputs[-1]]
        assert any(match_answer(task, reading) for reading in readings), (task.id, outputs)
        for earlier, (_, args) in zip(outputs, task.calls[1:]):  # a second call uses the first one's result
            assert any(str(value) in earlier for value in args.values()), task.id


# --- from the CLI and compare, against a real HTTP server --------------------------------

def test_run_with_toolbox_and_retrieval_records_the_tools_shown(tmp_path):
    import json

    from react_text.backends.fake_server import FakeCompletionServer
    from react_text.cli.main import main

    trace = tmp_path / "run.jsonl"
    with FakeCompletionServer(latency_s=0.01, slots=1) as fake:
        main(["run", "How many kilograms are 150 pounds?", "--toolbox", "--tool-retrieval", "--max-steps", "2",
              "--backend", "http", "--url", fake.url, "--api", "llama", "--json", "--trace", str(trace)])
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    (shown,) = [e for e in events if e["event"] == "tools_shown"]
    assert len(shown["tools"]) == 8 and shown["tools"][0]["name"] == "convert_mass"
    assert len(next(e for e in events if e["event"] == "run_start")["tools"]) == len(TOOLS) + 2  # + current_time, list_tools


def test_compare_with_retrieval_shows_each_task_its_own_tools(tmp_path):
    import json

    from react_text.backends.fake_server import FakeCompletionServer
    from react_text.eval.compare import run_compare
    from react_text.eval.planning import CompareSpec

    with FakeCompletionServer(latency_s=0.01, slots=2) as fake:
        spec = CompareSpec(templates=("classic",), models=("fake",), suite=str(SUITE), out_dir=tmp_path / "out",
                           backend="http", urls=(fake.url,), api="llama", limit=3, max_steps=2,
                           tool_retrieval=True, max_shown_tools=5)
        records = run_compare(spec, progress_stream=open("/dev/null", "w"))
    assert len(records) == 3
    for record, task in zip(records, load_suite(SUITE, known_tools=BUILTIN_TOOLS | {TOOLBOX})):
        events = [json.loads(line) for line in open(record["trace"], encoding="utf-8")]
        (shown,) = [e for e in events if e["event"] == "tools_shown"]
        assert task.calls[0][0] in {t["name"] for t in shown["tools"]}


def _schema_tool(name: str, description: str, **properties) -> object:
    from react_text.fc.request import read_tools

    (made,) = read_tools([{"type": "function", "function": {
        "name": name, "description": description, "parameters": {"type": "object", "properties": properties}}}])
    return made


SHOP = [_schema_tool("item_price", "The shop price in euros of an item.", item={"type": "string"}),
        _schema_tool("convert_units", "Convert a length.", unit={"type": "string", "enum": ["km", "mi"]})]


@pytest.mark.parametrize("question, expected", [
    ("What is the weather in Oslo right now?", True),  # no word of any tool
    ("Who wrote the novel Pride and Prejudice?", True),
    ("What do 12 blue mugs cost in euros?", False),  # "euros" is in item_price's description
    ("How far is 26.2 miles?", False),  # loosely: the enum's "mi" starts "miles"
    ("奥斯陆现在天气怎么样？", False),  # a Chinese question meets no English tool, fit or not: never judged
    ("", False),
])
def test_fits_nothing_only_when_no_tool_shares_a_word(question: str, expected: bool) -> None:
    assert fits_nothing(SHOP, question) is expected


def test_a_tool_that_takes_free_text_fits_any_question() -> None:
    search = _schema_tool("web", "The web.", query={"type": "string"})
    assert fits_nothing(SHOP, "Who painted the Mona Lisa?")
    assert not fits_nothing([*SHOP, search], "Who painted the Mona Lisa?")
    assert not fits_nothing([], "Who painted the Mona Lisa?")


def test_a_clear_pick_needs_a_strong_match_well_ahead_of_the_next() -> None:
    assert clear_pick(TOOLS, "How many kilograms are 150 pounds?") == "convert_mass"
    assert clear_pick(TOOLS, "Who painted the Mona Lisa?") is None  # the words point nowhere
    assert clear_pick(TOOLS, "") is None
    assert clear_pick(TOOLS, "What does HTTP status code 418 mean?") == "http_status_meaning"  # 15.0 vs 4.9
    assert clear_pick(TOOLS, "What day of the week was 1969-07-20?") is None  # day_of_week 8.7, iso_week_number 7.2
    assert clear_pick(TOOLS, "Convert 3 miles") is None  # convert_speed and convert_area tie


# --- hostile sizes ---------------------------------------------------------------------


def _generated_tools(count: int, words: list[str]) -> list:
    def make(i: int):
        def run(item: str) -> str:
            return item
        return tool(name=f"tool_{i}_{words[i]}", description=" ".join(words[i * 7 % len(words):][:12]))(run)
    return [make(i) for i in range(count)]


def test_a_huge_list_tools_query_costs_the_query_not_query_times_tools():
    """Ten times the tools, same megabyte-class query: the cost must stay about the same (it was
    terms x tools: ten times). A ratio measured in one process, so a slow machine cannot fail it."""
    rng = random.Random(0)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9))) for _ in range(20_000)]
    query = " ".join(rng.choice(words) for _ in range(40_000))
    seconds = {}
    for count in (250, 2500):
        retrieval = ToolRetrieval(_generated_tools(count, words))
        runs = []
        for _ in range(2):
            started = time.process_time()
            found = retrieval.listing(query, ())
            runs.append(time.process_time() - started)
        assert found.names  # the query does match tools
        seconds[count] = min(runs)
    assert seconds[2500] < 3 * seconds[250] + 0.05, seconds


def test_the_index_is_built_once_per_tool_set():
    tools = _generated_tools(20, [f"word{i}" for i in range(40)])
    assert index_for(tools) is index_for(list(tools)) is ToolRetrieval(tools).index
    assert index_for(tools[:10]) is not index_for(tools)
