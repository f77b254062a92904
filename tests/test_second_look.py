"""The second look: before a refusal stands, one search with the question's own words."""

from __future__ import annotations

import json

from react_text.agent.loop import Agent
from react_text.agent.second_look import look_query, second_look
from react_text.agent.state import Limits, RunState, Seen
from react_text.checks import ALL_CHECKS
from react_text.backends.scripted import ScriptedBackend
from react_text.prompting.templates import load_template
from react_text.tools.spec import tool
from react_text.types import Action

QUESTION = "What was the population of the town of Varnholt at the 2023 census?"
INTRO = "[1] en/varnholt.txt: Varnholt (town) Varnholt is a lakeside town on the shore of Lake Emmerlin."
CENSUS = ("[1] en/varnholt.txt: At the 2023 census the town of Varnholt had a population of 48,213. "
          "The town covers 61.4 square kilometres.\n" + INTRO.replace("[1]", "[2]"))
REFUSAL = "I cannot find that: the documents do not say."
LOOK = Action("search", {"query": QUESTION})
SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}


def _state(**changes) -> RunState:
    seen = (Seen('search:"Varnholt town"', INTRO, False, 1, "search"),)
    base = dict(tool_names=("search", "calculator"), question=QUESTION, seen=seen, schemas={"search": SCHEMA},
                checks=ALL_CHECKS)  # second_look is off by default; these tests switch it on
    return RunState(**{**base, **changes})


def test_a_refusal_gets_one_search_with_the_question_itself() -> None:
    action = look_query(_state(), REFUSAL)
    assert action is not None and action.tool == "search" and action.args == {"query": QUESTION}


def test_no_look_for_an_answer_without_search_once_looked_or_when_switched_off() -> None:
    assert look_query(_state(), "48,213") is None  # not a refusal
    assert look_query(_state(tool_names=("calculator",)), REFUSAL) is None
    assert look_query(_state(schemas={"search": {"type": "object", "properties": {"q": {}}}}), REFUSAL) is None
    assert look_query(_state(nudged=frozenset({"second_look"})), REFUSAL) is None
    assert look_query(_state(checks=ALL_CHECKS - {"second_look"}), REFUSAL) is None
    assert look_query(_state(steps=7, limits=Limits(max_steps=8)), REFUSAL) is None  # no turn left after it
    assert look_query(_state(steps=6, limits=Limits(max_steps=8)), REFUSAL) is not None
    asked = Seen(f'search:{json.dumps(QUESTION)}', INTRO, False, 1, "search")
    assert look_query(_state(seen=(asked,)), REFUSAL) is None  # the model searched with exactly the question


def test_unseen_results_that_answer_are_shown_and_quoted() -> None:
    retry = second_look(_state(), LOOK, CENSUS, 2)
    assert retry is not None and retry.reason == "guard:second_look"
    assert "48,213" in retry.observation and "lakeside" not in retry.observation  # only what was not seen
    assert retry.lead == ' Result [1] says: "At the 2023 census the town of Varnholt had a population of 48,213."'
    assert retry.seen is not None and retry.seen.tool == "search" and "48,213" in retry.seen.text  # a call seen


def test_the_refusal_stands_when_the_look_finds_nothing_new_or_only_nearby_facts() -> None:
    assert second_look(_state(), LOOK, INTRO, 2) is None  # seen already
    assert second_look(_state(), LOOK, "No results for the query.", 2) is None
    nearby = second_look(_state(question="What was the population of the town of Varnholt in 1850?"), LOOK,
                         CENSUS, 2)
    assert nearby is None  # the 2023 figure does not answer a question about 1850


def test_chinese_runs_are_corrected_in_chinese() -> None:
    question = "青石镇2022年的人口是多少？"
    state = _state(question=question, lang="zh", seen=(Seen("s", "[1] zh/a.txt：青石镇是一个镇。", False, 1, "search"),))
    retry = second_look(state, Action("search", {"query": question}), "[1] zh/town.txt：根据2022年的统计，青石镇共有人口26,480人。", 2)
    assert retry is not None and retry.observation.startswith("先别放弃")
    assert retry.lead == " 第一条结果写的是：“根据2022年的统计，青石镇共有人口26,480人。”"


def _agent(turns: list[str], results: dict[str, str], **options) -> tuple[Agent, ScriptedBackend, list[str]]:
    queries: list[str] = []

    @tool
    def search(query: str) -> str:
        """Search the documents."""
        queries.append(query)
        return results.get(query, "No results.")

    backend = ScriptedBackend(turns)
    options.setdefault("checks", "+second_look")  # off by default
    return Agent(backend, [search], load_template("classic"), **options), backend, queries


ACTION = 'Thought: I search.\nAction: search\nAction Input: {"query": "Varnholt town"}'
REFUSE = f" The results say nothing about a population.\nFinal Answer: {REFUSAL}"


def test_the_loop_shows_the_look_and_the_model_answers_from_it(tmp_path) -> None:
    agent, backend, queries = _agent([ACTION, REFUSE, " So it is 48,213.\nFinal Answer: 48,213"],
                                     {"Varnholt town": INTRO, QUESTION: CENSUS}, trace=tmp_path / "t.jsonl")
    result = agent.run(QUESTION)
    assert result.answer == "48,213" and queries == ["Varnholt town", QUESTION]
    assert result.steps[1].decision.reason == "guard:second_look"
    assert "Before you give up" in backend.prompts[2]
    assert backend.prompts[2].endswith('Result [1] says: "At the 2023 census the town of Varnholt had a population '
                                       'of 48,213."')
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert [e["args"] for e in events if e["event"] == "second_look"] == [{"query": QUESTION}]


def test_the_refusal_stands_when_the_look_adds_nothing_and_a_second_refusal_is_not_looked_at_again() -> None:
    agent, backend, queries = _agent([ACTION, REFUSE], {"Varnholt town": INTRO, QUESTION: INTRO})
    result = agent.run(QUESTION)
    assert result.status == "answered" and result.answer == REFUSAL and len(backend.prompts) == 2
    assert queries == ["Varnholt town", QUESTION]
    agent, backend, queries = _agent([ACTION, REFUSE, REFUSE], {"Varnholt town": INTRO, QUESTION: CENSUS})
    assert agent.run(QUESTION).answer == REFUSAL and queries == ["Varnholt town", QUESTION]


def test_a_search_that_fails_during_the_look_leaves_the_refusal_as_it_was() -> None:
    @tool
    def search(query: str) -> str:
        """Search the documents."""
        if query == QUESTION:
            raise OSError("index unavailable")
        return INTRO

    backend = ScriptedBackend([ACTION, REFUSE])
    result = Agent(backend, [search], load_template("classic")).run(QUESTION)
    assert result.status == "answered" and result.answer == REFUSAL


def test_after_a_look_the_run_counts_it_as_a_search_it_saw() -> None:
    refuse_unsearched = f" I do not know.\nFinal Answer: {REFUSAL}"
    agent, backend, queries = _agent([refuse_unsearched, " So it is 48,213.\nFinal Answer: 48,213"],
                                     {QUESTION: CENSUS})
    result = agent.run(QUESTION)
    # no "you have not used a tool yet" after the look: its search is one the run has made
    assert result.status == "answered" and result.answer == "48,213" and len(backend.prompts) == 2
    assert queries == [QUESTION]


def test_the_console_shows_the_look_and_what_it_showed() -> None:
    import io

    from react_text.cli.console import Console

    out = io.StringIO()
    agent, _, _ = _agent([ACTION, REFUSE, " So it is 48,213.\nFinal Answer: 48,213"],
                         {"Varnholt town": INTRO, QUESTION: CENSUS}, on_event=Console(out, colour=False))
    agent.run(QUESTION)
    text = out.getvalue()
    assert f'[before the refusal stands: search {{"query": "{QUESTION}"}}]' in text
    assert "Nudge: Before you give up" in text and "Answer: 48,213" in text
