"""Answer guards: each catches one kind of non-answer once, in the prompt's language."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from react_text.lexicon.answers import is_refusal
from react_text.checks.answers import copied_example_value, other_year, pair_expressions, unused_numbers
from react_text.checks import ALL_CHECKS, DEFAULT_CHECKS
from react_text.checks.reading import Situation as AnswerContext
from react_text.checks.review import check_answer
from react_text.lexicon.answers import is_failure_text

CJK = re.compile(r"[\u4e00-\u9fff]")
TOOLS = ("calculator", "search")
SEEN = ("[1] town.txt: Varnholt had 48,213 people in 2023.",)


def ctx(**kw) -> AnswerContext:
    base = dict(question="How many people live in Varnholt?", tool_names=TOOLS, observations=SEEN, real_observations=1,
                checks=ALL_CHECKS)  # several of these are off by default; each is tested switched on
    base.update(kw)
    return AnswerContext(**base)


@pytest.mark.parametrize("answer", [
    'No results for "Varnholt 1850" in 12 files. Try other keywords.',
    "Error: the calculator cannot read 'of'.",
    "Tool search failed: TimeoutError: took too long",
])
def test_a_tool_failure_is_not_an_answer(answer: str) -> None:
    nudge = check_answer(answer, ctx(observations=SEEN + (answer,)))
    assert nudge is not None and nudge.code == "tool_error"
    assert not is_refusal(answer)  # and a judge does not count it as declining either


def test_after_no_results_the_model_may_say_it_cannot_find_it() -> None:
    failure = 'No results for "mayor phone" in 12 files. Try other keywords.'
    nudge = check_answer(failure, ctx(observations=(failure,)))
    assert "could not find it" in nudge.message
    assert check_answer("I could not find the phone number in the documents.", ctx(observations=(failure,)),
                        refusal=True) is None


@pytest.mark.parametrize("answer, caught", [
    ("2031-03-15 有空吗？", True),
    ("How many people live in Varnholt?", True),
    ('"Is it raining?"', True),
    ("48,213", False),
    ("Is it? Yes: 48,213.", False),  # a question inside, an answer at the end
])
def test_an_answer_that_is_a_question_gets_one_nudge(answer: str, caught: bool) -> None:
    nudge = check_answer(answer, ctx())
    assert (nudge is not None and nudge.code == "question_back") == caught
    again = check_answer(answer, ctx(nudged=frozenset({"question_back"})))
    assert again is None or again.code != "question_back"  # never twice


TOWN_2022 = "[1] zh/qingshi_town.txt: 根据2022年的统计，青石镇共有人口26,480人，全镇面积为38.6平方公里。"


@pytest.mark.parametrize("answer, question, observations, expected", [
    ("26,480", "青石镇在1900年有多少人口？", (TOWN_2022,), ("1900", "2022")),  # the nearby fact
    ("735", "2035年云岚茶业公司会有多少名员工？", ("[1] a.txt: 目前有员工735人。2023年，销售额为2.35亿元。",), ("2035", "2023")),
    ("26,480", "青石镇2022年有多少人口？", (TOWN_2022,), None),  # the year asked is in the result
    ("26,480", "青石镇有多少人口？", (TOWN_2022,), None),  # no year asked
    ("2032-01-19", "2031-12-25 加上 25 天是哪一天？", ("2032-01-19 (Monday)",), None),  # an answer that is a date
    ("38", "How many staff did the observatory have in 1990?", ("The observatory has 38 staff.",), None),
])
def test_other_year_finds_an_answer_taken_from_another_years_result(answer, question, observations, expected):
    assert other_year(answer, question, observations) == expected


def test_an_answer_from_another_years_result_gets_one_nudge_and_a_refusal_none() -> None:
    context = ctx(question="青石镇在1900年有多少人口？", observations=(TOWN_2022,), lang="zh")
    nudge = check_answer("26,480", context)
    assert nudge is not None and nudge.code == "other_year" and "1900" in nudge.message and "2022" in nudge.message
    assert check_answer("无法回答：文档中没有提到这一信息。", context, refusal=True) is None


@pytest.mark.parametrize("answer, question, caught", [
    ("58.3平方公里", "白鹭湖里一共有多少条鱼？", True),  # the lake's area for a count of fish
    ("40 km", "How many people live in the town of Varnholt?", True),
    ("The answer is 42.16 kilometers.", "How many kilometres is 26.2 miles?", False),  # the unit asked for
    ("1641600 seconds", "How many seconds are there in 19 days?", False),
    ("168小时", "一个星期一共有多少个小时？", False),
    ("48,213 people", "How many people live in Varnholt?", False),
    ("34 EUR", "What does a desk lamp cost?", False),  # no count asked
])
def test_a_measurement_given_for_a_count_gets_one_nudge(answer: str, question: str, caught: bool) -> None:
    nudge = check_answer(answer, ctx(question=question))
    assert (nudge is not None and nudge.code == "measure") == caught


@pytest.mark.parametrize("answer, refusal", [
    ("你的最终答案是：你昨天晚饭吃了什么？请根据观察结果回答这个问题；如果结果里没有答案，就说明你找不到。", False),
    ("The answer is 5; if they do not give the answer, say that you cannot find it.", False),
    ("无法回答：文档中没有提到这一信息。如果结果里没有1900年的数据，就说明你找不到", True),  # its own refusal first
    ("I cannot find that: the documents do not say.", True),
])
def test_a_corrections_way_out_copied_into_the_answer_is_no_refusal(answer: str, refusal: bool) -> None:
    assert is_refusal(answer) is refusal


def test_the_question_back_nudge_speaks_chinese_and_spares_a_refusal() -> None:
    zh = check_answer("有空吗？", ctx(lang="zh"))
    assert zh is not None and zh.code == "question_back" and CJK.search(zh.message)
    refused = check_answer("我找不到，你能换个问法吗？", ctx(), refusal=True)
    assert refused is None or refused.code != "question_back"


@pytest.mark.parametrize("answer, caught", [
    ("1,375 * 22 * 45", True),
    ("The total is (3 + 4) / 2", True),
    ("2024 - 1873 = 151", False),
    ("4377 (= 87 * 36 + 1245)", False),  # a value with its working, as the calculator reports a reading
    ("4377 = 87 * 36 + 1245", False),
    ("151", False),
    ("2023-05-01", False),  # a date, not a subtraction
    ("2030-08-23T09:14:00+00:00 (Friday)", False),  # a clock's reading: its offset is no addition
    ("The train leaves at 10:15 and arrives 11:20", False),
    ("At 10:15 it costs 12 + 3", True),  # a time beside an expression hides nothing
    ("It opened in 1994 and closed in 2001.", False),
])
def test_an_unevaluated_expression_gets_one_nudge(answer: str, caught: bool) -> None:
    nudge = check_answer(answer, ctx())
    assert (nudge is not None and nudge.code == "expression") == caught
    if caught:
        assert "calculator" in nudge.message
        assert check_answer(answer, ctx(nudged=frozenset({"expression"}))) is None  # never twice


def test_a_value_from_the_examples_is_caught_unless_the_run_saw_it() -> None:
    examples = frozenset({"855", "1240", "385"})
    assert check_answer("855", ctx(example_values=examples)).code == "example_value"
    assert check_answer("48213", ctx(example_values=examples)) is None
    seen = SEEN + ("[1] halls.txt: The hall has 855 seats.",)
    assert check_answer("855", ctx(example_values=examples, observations=seen)) is None
    assert copied_example_value("about 1,240 seats", examples, ["q"]) == "1240"
    assert copied_example_value("7", frozenset({"7"}), ["q"]) is None  # one digit is too common to judge


def test_an_answer_before_any_tool_gets_one_nudge_but_a_refusal_does_not() -> None:
    fresh = ctx(observations=(), real_observations=0)
    assert check_answer("48213", fresh).code == "no_observation"
    assert check_answer("I cannot know that.", fresh, refusal=True) is None
    assert check_answer("48213", ctx(observations=(), require_observation=False)) is None
    assert check_answer("48213", ctx(observations=(), tool_names=())) is None


MAYOR = "Who is the mayor in this sentence: 'Mayor Brannoc Hale opened the harvest fair in Tessaly.'?"
MAYOR_FOUND = ("[1] en/varnholt.txt: The mayor of Varnholt is Ilse Marrow, who has held the office since 2019.",)
FERRY = "A note says: 'The Milvan ferry carries 212 passengers.' How many passengers does the Milvan ferry carry?"
FERRY_FOUND = ("[1] en/lake.txt: The Milvane ferry can carry up to 180 passengers and 24 cars.",)


@pytest.mark.parametrize("question, answer, caught", [
    (MAYOR, "Mayor Brannoc Hale", False),  # read off the question's own quote: no tool is needed
    ("我的便条上写着：“青松镇有9,120人。”根据便条，青松镇有多少人？", "9,120人", False),
    (MAYOR, "Ilse Marrow", True),  # not in the quote: where did it come from?
    ("A sign says 'Tickets cost 12 euros.' How much do 3 tickets cost?", "36", True),  # worked out: use a tool
    ("How many people live in Varnholt?", "48213", True),
])
def test_an_answer_read_off_the_questions_quote_needs_no_tool(question: str, answer: str, caught: bool) -> None:
    nudge = check_answer(answer, ctx(question=question, observations=(), real_observations=0))
    assert (nudge is not None and nudge.code == "no_observation") is caught


@pytest.mark.parametrize("question, caught", [
    ("Look up the sum of 4,728 and 9,365.", True),  # the numbers are the question's own
    ("请用搜索工具查询 250 乘以 48 的结果。", True),
    ("Who is the mayor in this sentence: 'Mayor Brannoc Hale opened the harvest fair.'?", True),
    ("我的便条上写着：“青松镇有9,120人。”根据便条，青松镇有多少人？", True),
    ("Which number between 1 and 100 am I thinking of right now?", False),  # numbers, but nothing to work out
    ("What was the population of Varnholt in 1850?", False),
])
def test_a_refusal_of_what_the_question_itself_holds_gets_one_nudge(question: str, caught: bool) -> None:
    context = ctx(question=question, tool_names=("search", "calculator"))
    nudge = check_answer("I cannot find that: the documents do not say.", context, refusal=True)
    assert (nudge is not None and nudge.code == "in_question") is caught
    assert check_answer("14093", context) is None  # only a refusal is questioned
    assert check_answer("I cannot find that.", ctx(question=question, nudged=frozenset({"in_question"})),
                        refusal=True) is None


@pytest.mark.parametrize("question, answer, found, caught", [
    (MAYOR, "Ilse Marrow", MAYOR_FOUND, True),  # a search's mayor, not the sentence's
    (MAYOR, "Brannoc Hale", MAYOR_FOUND, False),
    (FERRY, "180 passengers and 24 cars", FERRY_FOUND, True),
    (FERRY, "212", FERRY_FOUND, False),
    (FERRY, "424", ("424",), False),  # worked out (a calculator's result), not taken from a search
    ("A sign says 'Tickets cost 12 euros.' How much do 3 tickets cost?", "36", ("36",), False),
    ("How many passengers does the Milvane ferry carry?", "180", FERRY_FOUND, False),  # no quote to answer from
])
def test_an_answer_from_a_search_instead_of_the_questions_quote_gets_one_nudge(
        question: str, answer: str, found: tuple[str, ...], caught: bool) -> None:
    context = ctx(question=question, tool_names=("search", "calculator"), observations=found)
    nudge = check_answer(answer, context)
    assert (nudge is not None and nudge.code == "off_quote") is caught
    if caught:
        assert check_answer(answer, ctx(question=question, observations=found, nudged=frozenset({"off_quote"}))) is None


def test_corrections_speak_chinese_under_a_chinese_prompt() -> None:
    for answer, kw in [("1,375 * 22", {}), ("48213", {"observations": ()}),
                       ("错误：无法计算", {"observations": ("错误：无法计算",)})]:
        nudge = check_answer(answer, ctx(lang="zh", **kw))
        assert nudge is not None and CJK.search(nudge.message), (answer, nudge)


def test_failure_text_is_recognised_at_the_start_only() -> None:
    assert is_failure_text("Error: bad input") and is_failure_text("  no results for x")
    assert not is_failure_text("The error rate was 3%.")


@pytest.mark.parametrize("question, answer, caught", [
    ("What was the population of Varnholt at the 2023 census?", "Varnholt", True),
    ("How many moons does Tavu have?", "Meshar", True),
    ("How many moons does Tavu have?", "three", False),
    ("How many moons does Tavu have?", "It has 3 moons.", False),
    ("星河中学现有多少名学生？", "星河中学", True),
    ("星河中学现有多少名学生？", "一千九百二十六", False),
    ("Who designed the Selmer Lighthouse?", "Runa Vell", False),  # not a number question
])
def test_a_number_question_answered_without_a_number_gets_one_nudge(question: str, answer: str, caught: bool) -> None:
    nudge = check_answer(answer, ctx(question=question))
    assert (nudge is not None and nudge.code == "not_a_number") == caught
    assert check_answer(answer, ctx(question=question, nudged=frozenset({"not_a_number"}))) is None


@pytest.mark.parametrize("question, answer, caught", [
    ("青石镇和哪个外国城镇结为友好城镇？", "青石镇", True),
    ("Who started the Brennamere Apple Fair?", "Brennamere", True),
    ("Who started the Brennamere Apple Fair?", "the brennamere apple fair.", True),
    ("Who started the Brennamere Apple Fair?", "Edda Brink", False),
    ("Which is larger, Varnholt or Varnhalt?", "Varnholt", False),  # a choice the question offers
    ("青石镇和青石村，哪个人口更多？还是一样多？", "青石镇", False),
    ("Who is the mayor in this sentence: 'Mayor Brannoc Hale opened the fair.'?", "Mayor Brannoc Hale", False),
    ("How many people live in Varnholt?", "Varnholt", False),  # not a which-question: the number check's job
    ("Who won the annual Selk race?", "Ann", False),  # a part of a word is not the question's name
])
def test_an_answer_that_only_repeats_the_question_s_name_gets_one_nudge(question: str, answer: str,
                                                                         caught: bool) -> None:
    nudge = check_answer(answer, ctx(question=question, lang="zh" if CJK.search(question) else "en"))
    assert (nudge is not None and nudge.code == "echo") is caught
    if caught:
        assert answer.strip() in nudge.message
        assert check_answer(answer, ctx(question=question, nudged=frozenset({"echo"}))) is None


@pytest.mark.parametrize("question, answer, message", [
    ("What is the ratio? Give the answer to two decimal places.", "2.401639344",
     "The question asks for the answer rounded to 2 decimal places: 2.401639344 rounded is 2.40."),
    ("What was the revenue per employee? Round to the nearest crown.", "172,964.17",
     "The question asks for the answer rounded to a whole number: 172,964.17 rounded is 172,964."),
    ("星河中学平均每名教师对应多少名学生？结果保留一位小数。", "13.56338028",
     "问题要求答案保留1位小数：13.56338028 四舍五入后是 13.6。"),
])
def test_an_answer_with_more_decimals_than_asked_is_given_back_rounded(question: str, answer: str,
                                                                         message: str) -> None:
    lang = "zh" if "星" in question else "en"
    nudge = check_answer(answer, AnswerContext(question=question, real_observations=1, observations=("x",), lang=lang,
                                               checks=ALL_CHECKS))
    assert nudge is not None and nudge.code == "rounding" and nudge.message == message


@pytest.mark.parametrize("question, answer", [
    ("Give the answer to two decimal places.", "2.40"),  # as asked
    ("Round to the nearest crown.", "172964"),
    ("What is the ratio?", "2.401639344"),  # no rounding asked
    ("Give the answer to one decimal place.", "between 2.45 and 2.46"),  # not one number
    ("Round to the nearest crown.", "1.725 million crowns"),  # a scaled number is not rounded to 2
])
def test_an_answer_rounded_as_asked_or_not_asked_to_round_passes(question: str, answer: str) -> None:
    assert check_answer(answer, AnswerContext(question=question, real_observations=1, observations=("x",))) is None


@pytest.mark.parametrize("question,answer,observations,calls,unused", [
    # issue 28: the price of one apple, for twelve
    ("How much do 12 apples cost, in euros?", "0.4", ("0.4",), ('{"item": "apple"}',), ("12",)),
    ("How much do 12 apples cost, in euros?", "0.40 euros", ("0.4",), ('"apple"',), ("12",)),
    # used: in a call, in the answer, or the result already holds it
    ("How much do 12 apples cost, in euros?", "4.8", ("0.4", "4.8 (= 12 * 0.4)"), ('"apple"', '"12 * 0.4"'), ()),
    ("How many legs do 3 spiders have?", "24", ("8",), ('"spider legs"',), ()),
    ("How many people lived in the 3rd largest city?", "700000", ("The 3rd largest city has 700000 people.",),
     ('"third largest city"',), ()),
    # not asked to be used: a year, a 1; and an answer that is no result as it came
    ("How many people lived in Oslo in 2020?", "700000", ("700000",), ('"Oslo population"',), ()),
    ("How much does 1 apple cost?", "0.4", ("0.4",), ('"apple"',), ()),
    ("What is 6*7? My pin is 4321.", "42", ("42",), ('"6*7"',), ()),  # it computed with the question's numbers
    ("How much do 12 apples and 3 pears cost?", "0.55", ("0.4", "0.55"), ('"apple"', '"pear"'), ("12", "3")),
    ("How many legs do 3 spiders have?", "I cannot find it.", ("8",), ('"spider"',), ()),
    ("How many legs do 3 spiders have?", "16", ("8",), ('"spider"',), ()),
])
def test_unused_numbers_are_the_questions_numbers_a_copied_result_left_out(question, answer, observations, calls,
                                                                           unused) -> None:
    assert unused_numbers(answer, question, observations, calls) == unused


def test_a_result_given_as_it_came_with_a_question_number_unused_gets_one_nudge_with_the_calculation_lead() -> None:
    situation = AnswerContext(question="How much do 12 apples cost, in euros?", observations=("0.4",),
                              real_observations=1, call_arguments=('{"item": "apple"}',),
                              tool_names=("lookup_price", "calculator"),
                              checks=DEFAULT_CHECKS | {"unused_number"})
    found = check_answer("0.4", situation)
    assert found is not None and found.code == "unused_number" and "12" in found.message
    assert found.lead == " The question also gives 12, so I work it out with the calculator."
    assert found.hold == "" and found.hold_values == ()  # no schema known for the calculator: nothing held
    schema = {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}
    held = check_answer("0.4", replace(situation, schemas={"calculator": schema}))
    assert held.hold == "calculator" and held.hold_values == (("expression", pair_expressions(["12"], ["0.4"])),)
    assert check_answer("0.4", replace(situation, schemas={"calculator": schema},
                                       checks=situation.checks - {"held_call"})).hold == ""
    assert check_answer("0.4", replace(situation, tool_names=("lookup_price",))).lead == ""
    assert check_answer("0.4", replace(situation, nudged=frozenset({"unused_number"}))) is None  # once
    assert check_answer("0.4", replace(situation, call_arguments=())) is None  # what the calls passed is unknown
    assert check_answer("0.4", replace(situation, checks=situation.checks - {"unused_number"})) is None
    secret = replace(situation, question="My pin: 4321. How much is my balance?", observations=("500",),
                     secret_fields=situation.secret_fields | {"pin"})  # as ``redact="pin"`` asks
    assert check_answer("500", secret) is None  # a secret's number is never asked for, nor quoted back


def test_pair_expressions_work_each_given_number_with_each_result_both_ways() -> None:
    found = pair_expressions(["12"], ["0.4"])
    assert set(found) == {"12 * 0.4", "0.4 * 12", "12 / 0.4", "0.4 / 12", "12 + 0.4", "0.4 + 12", "12 - 0.4", "0.4 - 12"}
    assert len(pair_expressions(["1", "2", "3", "4"], ["5", "6", "7"])) == 3 * 2 * 2 * 4  # at most 3 given, 2 results
    assert pair_expressions([], ["5"]) == ()
