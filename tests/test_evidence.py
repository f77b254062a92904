"""Quoting the result that answers the question: which sentence qualifies, and how the loop uses it."""

from __future__ import annotations

import json

import pytest

from react_text.agent.loop import Agent
from react_text.backends.scripted import ScriptedBackend
from react_text.prompting.evidence import answering_sentence, evidence_lead
from react_text.prompting.templates import load_template
from react_text.tools.spec import tool

LAKE = (
    "[1] en/lake.txt: Lake Emmerlin is the largest lake of the region. It covers 212 square kilometres. "
    "The deepest point of Lake Emmerlin lies 143 metres below the surface, near Dunmore Point.\n"
    "[2] en/observatory.txt: The Emmerlin Observatory stands on a ridge above Dunmore Point."
)
PORT = "[1] ports.txt: The harbour master of Tollen is Edda Brink.\n[2] ports.txt: Tollen harbour opens at dawn."


def test_the_sentence_that_answers_is_found_with_its_result_number() -> None:
    found = answering_sentence("How deep is Lake Emmerlin at its deepest point, in metres?", LAKE)
    assert found == (1, "The deepest point of Lake Emmerlin lies 143 metres below the surface, near Dunmore Point.")
    assert evidence_lead("How deep is Lake Emmerlin at its deepest point, in metres?", LAKE, "en") == (
        ' Result [1] says: "The deepest point of Lake Emmerlin lies 143 metres below the surface, near Dunmore Point."'
    )


@pytest.mark.parametrize("question, observation", [
    ("What is the shoe size of the harbour master of Tollen?", PORT),  # on topic, but not what is asked
    ("How many boats does the harbour master of Tollen own?", PORT),  # a number asked, none given
    ("How deep is Lake Emmerlin at its deepest point, in metres?", "143"),  # not a list of results
    ("How deep is Lake Emmerlin in 1990?", LAKE),  # the question's own number is not in the sentence
    ("Why?", LAKE),  # too little to match on
])
def test_no_quote_when_nothing_plainly_answers(question: str, observation: str) -> None:
    assert answering_sentence(question, observation) is None
    assert evidence_lead(question, observation, "en") is None


COMPANY = (
    "[1] en/works.txt: Hollin Works Hollin Works is a boat-building company in Tarnby. The company was founded "
    "in 1921 by the brothers Aldo and Piet Vane. It employs 310 people.\n"
    "[2] en/club.txt: Tarnby Rowing Club Tarnby Rowing Club is the rowing club of the town of Tarnby. "
    "The club was founded in 1887."
)


@pytest.mark.parametrize("question, sentence", [
    ("Who founded Hollin Works?", "The company was founded in 1921 by the brothers Aldo and Piet Vane."),
    ("How many people does Hollin Works employ?", "It employs 310 people."),
])
def test_a_sentence_that_refers_back_is_read_with_its_passage_s_subject(question: str, sentence: str) -> None:
    assert answering_sentence(question, COMPANY) == (1, sentence)


def test_a_number_the_question_computes_with_need_not_be_in_the_fact() -> None:
    observation = "[1] en/library.txt: The Tarn Library holds 186,500 books and a map room."
    assert answering_sentence("What is 15% of the books the Tarn Library holds?", observation) == (
        1, "The Tarn Library holds 186,500 books and a map room.")
    assert answering_sentence("How many books did the Tarn Library hold in 1990?", observation) is None


def test_a_sentence_that_borrows_its_subject_must_say_everything_else_the_question_asks() -> None:
    observation = "[1] en/lake.txt: Lake Ordel Lake Ordel is a lake in the hills. The lake has a maximum depth of 48 metres."
    assert answering_sentence("What is the maximum depth of Lake Ordel?", observation) == (
        1, "The lake has a maximum depth of 48 metres.")
    assert answering_sentence("What is the average depth of Lake Ordel?", observation) is None


@pytest.mark.parametrize("question", [
    "When was Tarnby founded?",  # "the club" is Tarnby Rowing Club, not the town
    "When was the boat-building town of Tarnby founded?",
    "How many people does Tarnby employ?",
])
def test_a_reference_to_another_subject_is_not_taken_for_the_question_s(question: str) -> None:
    assert answering_sentence(question, COMPANY) is None


def test_a_result_that_opens_by_referring_back_borrows_the_subject_of_its_file_s_earlier_result() -> None:
    observation = (
        "[1] en/bridge.txt: Tarn Bridge (bridge) The Tarn Bridge is a stone bridge over the Sime. It opened in 1807.\n"
        "[2] en/bridge.txt: The bridge is 412 metres long.\n"
        "[3] en/mill.txt: The mill is 30 metres long."
    )
    assert answering_sentence("How long is the Tarn Bridge, in metres?", observation) == (
        2, "The bridge is 412 metres long.")
    assert answering_sentence("How long is the Tarn Mill, in metres?", observation) is None  # no file names it


def test_a_borrowed_subject_needs_more_of_the_question_than_a_named_one() -> None:
    observation = ("[1] en/mill.txt: Brede Mill Brede Mill is a weaving company. Its first factory, on Tan Lane, "
                   "opened in 1994 after a two-year build.")
    assert answering_sentence("When was the first factory of Brede Mill opened?", observation) == (
        1, "Its first factory, on Tan Lane, opened in 1994 after a two-year build.")
    # 5 of the 7 terms (71%) would pass for a sentence that names the mill, not for one that borrows the name
    assert answering_sentence("How many people did Brede Mill employ when its first factory opened?",
                              observation) is None


def test_a_chinese_sentence_that_refers_back_is_read_with_its_subject() -> None:
    observation = "[1] zh/tea.txt：禾川纺织 禾川纺织是一家位于泊水镇的纺织公司。该公司现有员工512人。"
    assert answering_sentence("禾川纺织有多少名员工？", observation) == (1, "该公司现有员工512人。")


def test_chinese_conjunctions_say_nothing_about_the_topic() -> None:
    # "镇和" in the question and "镇与" in the result are the same words joined differently
    observation = "[1] zh/town.txt：泊水镇位于河口。1998年，泊水镇与海港城市洛川结为姐妹城市。"
    assert answering_sentence("泊水镇和哪个外国城市结为姐妹城市？", observation) == (
        1, "1998年，泊水镇与海港城市洛川结为姐妹城市。")


def test_chinese_results_are_quoted_the_way_the_chinese_episodes_quote() -> None:
    observation = "[1] zh/town.txt：根据2022年的统计，青石镇共有人口26,480人。\n[2] zh/tea.txt：云岚茶业公司位于青石镇。"
    assert evidence_lead("青石镇2022年的人口是多少？", observation, "zh") == " 第一条结果写的是：“根据2022年的统计，青石镇共有人口26,480人。”"


def _search_agent(turns: list[str], **options) -> tuple[Agent, ScriptedBackend]:
    @tool
    def search(query: str) -> str:
        """Search the documents."""
        return LAKE

    backend = ScriptedBackend(turns)
    return Agent(backend, [search], load_template("classic"), **options), backend


def test_the_loop_opens_the_next_thought_with_the_quote_and_keeps_it(tmp_path) -> None:
    action = 'Thought: I search.\nAction: search\nAction Input: {"query": "Lake Emmerlin depth"}'
    agent, backend = _search_agent([action, " So it is 143 metres deep.\nFinal Answer: 143"],
                                   trace=tmp_path / "t.jsonl")
    result = agent.run("How deep is Lake Emmerlin at its deepest point, in metres?")
    assert result.status == "answered" and result.answer == "143"
    quote = ' Result [1] says: "The deepest point of Lake Emmerlin lies 143 metres below the surface, near Dunmore Point."'
    assert backend.prompts[1].endswith("Thought:" + quote)
    assert result.steps[1].step.thought.startswith(quote.strip())  # the quote is part of the model's thought
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert [e["lead"] for e in events if e["event"] == "evidence"] == [quote]


def test_a_refusal_of_a_quoted_answer_is_questioned_and_the_thought_quotes_it_back() -> None:
    refusal = " The results say nothing about it.\nFinal Answer: I cannot find that: the documents do not say."
    action = 'Thought: I search.\nAction: search\nAction Input: {"query": "note ferry"}'
    agent, backend = _search_agent([action, refusal, " So it carries 212.\nFinal Answer: 212"])
    result = agent.run("A note says: 'The Milvan ferry carries 212 passengers.' How many does it carry?")
    assert result.answer == "212" and result.steps[1].decision.reason == "guard:in_question"
    assert backend.prompts[2].endswith('Thought: The question itself says: "The Milvan ferry carries 212 passengers."')


def test_quote_evidence_off_leaves_the_thought_to_the_model() -> None:
    action = 'Thought: I search.\nAction: search\nAction Input: {"query": "Lake Emmerlin depth"}'
    agent, backend = _search_agent([action, " It is 143 metres.\nFinal Answer: 143"], checks="-evidence")
    assert agent.run("How deep is Lake Emmerlin at its deepest point, in metres?").answer == "143"
    assert backend.prompts[1].endswith("Thought:")


@pytest.mark.parametrize("command", [["run", "q"], ["compare"]])
def test_the_cli_can_turn_the_quote_off(command: list[str]) -> None:
    from react_text.cli.main import build_parser

    assert "evidence" in build_parser().parse_args(command).checks
    assert "evidence" not in build_parser().parse_args([*command, "--checks=-evidence"]).checks


def test_an_answer_from_a_search_instead_of_the_quote_is_questioned_and_the_thought_quotes_it_back() -> None:
    @tool
    def search(query: str) -> str:
        """Search the documents."""
        return "[1] en/varnholt.txt: The mayor of Varnholt is Ilse Marrow."

    backend = ScriptedBackend(['Thought: I search.\nAction: search\nAction Input: {"query": "mayor"}',
                               " So the mayor is Ilse Marrow.\nFinal Answer: Ilse Marrow",
                               " So it is Brannoc Hale.\nFinal Answer: Brannoc Hale"])
    agent = Agent(backend, [search], load_template("classic"), checks="+off_quote")  # off by default
    result = agent.run("Who is the mayor in this sentence: 'Mayor Brannoc Hale opened the harvest fair.'?")
    assert result.answer == "Brannoc Hale" and result.steps[1].decision.reason == "guard:off_quote"
    assert backend.prompts[2].endswith('Thought: The question itself says: "Mayor Brannoc Hale opened the harvest fair."')
