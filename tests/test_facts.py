"""Questions that combine facts: which results are quoted together, the calculation named, and the
check on arithmetic the model works out in words."""

from __future__ import annotations

import pytest

from react_text.agent.loop import Agent
from react_text.backends.scripted import ScriptedBackend
from react_text.prompting.facts import combining_facts, facts_lead, operation, thought_lead
from react_text.prompting.templates import load_template
from react_text.checks.arithmetic import arithmetic_slip
from react_text.tools.calculator import calculate, calculator
from react_text.tools.spec import tool

BRAKE = "[1] en/brake.txt: At the end of 2023 Brake Optics had 1,310 employees. Its revenue was 96 million crowns."
LOOM = "[1] en/loom.txt: Loomfield Weaving has 275 employees.\n[2] en/loom.txt: Loomfield Weaving makes blankets."
PLANETS = (
    "[1] en/sky.txt: Tarsel is the second planet. It has a diameter of 8,420 kilometres.\n"
    "[2] en/sky.txt: Ondra is the innermost planet. It has a diameter of 12,050 kilometres.\n"
    "[3] en/lake.txt: The surface of Lake Brin lies 212 metres above the sea."
)


@pytest.mark.parametrize("question, expected", [
    ("How many more employees does Brake Optics have than Loomfield Weaving?", "difference"),
    ("How many years passed between the founding of Tarn and the opening of its bridge?", "difference"),
    ("What is the combined diameter of the planets Ondra and Tarsel?", "sum"),
    ("What was the revenue of Brake Optics per employee?", "ratio"),
    ("What percentage of the town's people would fit into the stadium?", "percentage"),
    ("If the staff of Brake Optics doubled, how many would there be?", "scale"),
    ("The library plans to grow its collection by 15%. How many books would it hold?", "growth"),
    ("泊水镇和柳村的人口加起来一共是多少人？", "sum"),
    ("澄江中学平均每名教师对应多少名学生？", "ratio"),
    ("澄江中学比禾川纺织早创办多少年？", "difference"),
    ("如果禾川纺织的员工人数变成现在的3倍，会有多少名员工？", "scale"),
    ("Who designed the Selmer Lighthouse?", None),
    ("How many employees does Brake Optics have?", None),
    ("陆晚棠一生共发表了多少篇学术论文？", None),  # 晚 in a name is not "later"
    ("How old was Ada Brin when she became director of the observatory?", "difference"),
    ("温叙秋进入天文台工作那年是多少岁？", "difference"),
    ("她发现的小行星数量相当于天文台总数的百分之多少？", "percentage"),
    ("2023年，鹤弦乐器有限公司的人均营业收入是多少元？", "ratio"),
    ("What was the average visitor number of the fair and the museum?", "mean"),
])
def test_how_a_question_combines_facts(question: str, expected: str | None) -> None:
    assert operation(question) == expected


def test_the_facts_of_two_searches_are_quoted_together_with_the_calculation() -> None:
    question = "How many more employees does Brake Optics have than Loomfield Weaving?"
    assert combining_facts(question, [BRAKE]) is None  # one of the two counts
    assert combining_facts(question, [BRAKE, LOOM]) == [
        (0, 1, "At the end of 2023 Brake Optics had 1,310 employees."), (1, 1, "Loomfield Weaving has 275 employees.")]
    assert facts_lead(question, [BRAKE, LOOM], "en") == (
        ' Result [1] says: "At the end of 2023 Brake Optics had 1,310 employees."'
        ' Result [1] says: "Loomfield Weaving has 275 employees."'
        " The question asks for a difference, so the calculation is larger - smaller:")
    # quoted once: a later search that adds nothing leaves the thought to the model
    assert facts_lead(question, [BRAKE, LOOM, "[1] en/x.txt: Nothing here."], "en") is None


def test_a_sentence_that_refers_back_is_quoted_with_the_one_that_names_its_subject() -> None:
    facts = combining_facts("What is the combined diameter of the planets Ondra and Tarsel?", [PLANETS])
    assert [text for _, _, text in facts] == [
        "Tarsel is the second planet. It has a diameter of 8,420 kilometres.",
        "Ondra is the innermost planet. It has a diameter of 12,050 kilometres."]


def test_one_sentence_with_two_counts_is_enough_and_chinese_is_quoted_as_the_chinese_episodes_do() -> None:
    observation = "[1] zh/school.txt：澄江中学现有学生1,926人，教师142人。"
    assert facts_lead("澄江中学平均每名教师对应多少名学生？", [observation], "zh") == (
        " 第一条结果写的是：“澄江中学现有学生1,926人，教师142人。” 问题问的是平均到每一份的数，算式是除法：")


def test_a_fact_the_question_scales_is_enough_alone() -> None:
    lead = facts_lead("If the staff of Brake Optics doubled, how many employees would it have?", [BRAKE], "en")
    assert lead is not None and lead.endswith("a multiple, so the calculation is number * factor:")


@pytest.mark.parametrize("question, observations", [
    # a year and a count in one sentence are one fact, not the two a difference needs
    ("How many more boats took part in the 2023 Tarn Regatta than in the first Tarn Regatta?",
     ["[1] en/regatta.txt: The first Tarn Regatta was held in 1911, when 41 boats took part."]),
    # what is asked is in no result: a diameter and a lake's surface do not make a temperature
    ("What is the average surface temperature of the planet Tarsel?", [PLANETS]),
    ("Who designed the Selmer Lighthouse?", [PLANETS]),
])
def test_no_facts_when_the_results_do_not_cover_what_is_combined(question: str, observations: list[str]) -> None:
    assert combining_facts(question, observations) is None


def test_the_facts_need_a_calculator_and_otherwise_the_answering_quote_opens_the_thought() -> None:
    question = "How many more employees does Brake Optics have than Loomfield Weaving?"
    assert thought_lead(question, [BRAKE, LOOM], "en", ("search",)) is None
    assert thought_lead(question, [BRAKE, LOOM], "en", ("search", "calculator")).startswith(" Result [1]")
    lookup = thought_lead("How many employees does Loomfield Weaving have?", [BRAKE, LOOM], "en", ("search",))
    assert lookup == ' Result [1] says: "Loomfield Weaving has 275 employees."'


@pytest.mark.parametrize("text, slip", [
    ("1,310 - 275 = 1,135.", ("1310 - 275", "1,135", "1035")),
    ("12,050 + 8,420 ≈ 20,000。", ("12050 + 8420", "20,000", "20470")),
    ("275 * 3 = 725", ("275 * 3", "725", "825")),
    ("1,310 - 275 = 1,035. Then 1,035 * 2 = 1,035.", None),  # the first claim holds; the rest is its own talk
    ("1926 / 142 ≈ 13.6", None),  # rounded as shown
    ("9,999 - 1 = 5", None),  # 9,999 was never seen
    ("1,310 * 275 + 8,420 = 1,310 * 275 + 8,420", None),  # the expression restated is no result
])
def test_an_arithmetic_claim_on_seen_numbers_is_checked(text: str, slip: tuple[str, str, str] | None) -> None:
    found = arithmetic_slip(text, ["1,310 and 275 employees; 12,050 and 8,420 km; 1,926 and 142"], calculate)
    assert (None if found is None else (found.expression, found.claimed, found.result)) == slip


def test_the_loop_quotes_the_facts_and_corrects_a_sum_worked_out_wrong() -> None:
    @tool
    def search(query: str) -> str:
        """Search the documents."""
        return BRAKE if "Brake" in query else LOOM

    backend = ScriptedBackend([
        'Thought: First Brake Optics.\nAction: search\nAction Input: {"query": "Brake Optics employees"}',
        ' Now Loomfield.\nAction: search\nAction Input: {"query": "Loomfield Weaving employees"}',
        " 1,310 - 275 = 1,135.\nFinal Answer: 1135",
        "\nFinal Answer: 1035",
    ])
    agent = Agent(backend, [search, calculator], load_template("classic"))
    result = agent.run("How many more employees does Brake Optics have than Loomfield Weaving?")
    assert result.answer == "1035"
    assert backend.prompts[2].endswith("so the calculation is larger - smaller:")
    assert result.steps[2].decision.reason == "guard:arithmetic"
    assert "Checked with the calculator: 1310 - 275 = 1035, not 1,135." in backend.prompts[3]
    assert backend.prompts[3].endswith("Thought: The calculator gives 1310 - 275 = 1035.")


def test_a_call_that_does_not_build_on_the_wrong_result_runs_as_written() -> None:
    backend = ScriptedBackend([
        'Thought: 98,765 - 43,219 = 37.\nAction: calculator\nAction Input: {"expression": "98,765 - 43,219"}',
        " The calculator gives 55546.\nFinal Answer: 55546",
    ])
    result = Agent(backend, [calculator], load_template("classic")).run("What is 98,765 - 43,219?")
    assert result.answer == "55546" and result.steps[0].decision.kind == "run_tool"


def test_a_result_is_about_what_its_file_is_named_for() -> None:
    # neither sentence names the town, but they come from its file
    town = ("[1] en/oskel.txt: At the 2021 census the town had 18,736 inhabitants.\n"
            "[2] en/oskel.txt: Its area is 42 square kilometres.")
    facts = combining_facts("What is the population density of Oskel, in people per square kilometre?", [town])
    assert [text for _, _, text in facts] == ["At the 2021 census the town had 18,736 inhabitants.",
                                              "Its area is 42 square kilometres."]


def test_a_quotient_takes_the_fact_it_divides_by_though_it_adds_no_word_of_the_question() -> None:
    works = ("[1] en/brake.txt: Brake Optics is a lens maker. Its revenue for 2023 was 96 million crowns. "
             "The company has a workforce of 1,310.")
    facts = combining_facts("What was the 2023 revenue of Brake Optics per employee, in crowns?", [works])
    assert [text for _, _, text in facts] == ["Brake Optics is a lens maker. Its revenue for 2023 was 96 million crowns.",
                                              "The company has a workforce of 1,310."]
    # a sum's parts are two things the question names: one town's two counts are not they
    one_town = "[1] en/oskel.txt: Oskel is a town. Its population was 12,408 in 2021, up from 11,870 in 2011."
    assert combining_facts("What was the combined population of Oskel and Brin in 2021?", [one_town]) is None
