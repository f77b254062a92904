"""One written-number definition: every number word counts as a number for every caller."""

from __future__ import annotations

import pytest

from react_text.checks import ALL_CHECKS
from react_text.checks.reading import Situation as AnswerContext
from react_text.checks.review import check_answer
from react_text.lexicon.question import asked_decimals


@pytest.mark.parametrize("answer", ["thirteen", "Fifteen boats", "sixty", "seventy-two", "ninety", "nineteen",
                                    "十三", "none", "a dozen"])
def test_a_number_written_in_words_is_a_number(answer: str) -> None:
    ctx = AnswerContext(question="How many boats are in the harbour?", observations=("There are many boats.",), checks=ALL_CHECKS)
    nudge = check_answer(answer, ctx)
    assert nudge is None or nudge.code != "not_a_number", answer


def test_an_answer_without_any_number_is_still_asked_for_one() -> None:
    ctx = AnswerContext(question="How many boats are in the harbour?", observations=("There are many boats.",), checks=ALL_CHECKS)
    nudge = check_answer("the harbour master", ctx)
    assert nudge is not None and nudge.code == "not_a_number"


@pytest.mark.parametrize(("question", "places"), [
    ("What is 22 / 7, rounded to two decimal places?", 2),
    ("What is 22 / 7, round to four decimal places?", 4),
    ("What is 22 / 7 to 5 decimal places?", 5),
    ("22除以7等于多少？保留四位小数。", 4),
    ("22除以7等于多少？保留两位小数。", 2),
    ("22除以7等于多少？保留6位小数。", 6),
    ("What is 22 / 7, to one decimal place?", 1),
    ("What is 22 / 7, to the nearest whole number?", 0),
    ("What is 22 / 7?", None),
])
def test_every_written_number_of_decimal_places_is_a_rounding_request(question: str, places: int | None) -> None:
    assert asked_decimals(question) == places


def test_four_decimal_places_get_the_rounding_correction() -> None:
    ctx = AnswerContext(question="What is 22 / 7? Round to four decimal places.", observations=("3.142857142857",), checks=ALL_CHECKS)
    nudge = check_answer("3.142857142857", ctx)
    assert nudge is not None and nudge.code == "rounding" and "3.1429" in nudge.message


@pytest.mark.parametrize(("question", "places"), [
    ("How much is it in all? Round to the nearest crown.", 0),
    ("How much is it in all? Round to the nearest zloty.", 0),
    ("What share is that, rounded to nearest percent?", 0),
    ("How far is it, to the nearest whole kilometre?", 0),
    ("What is 22 / 7 to the nearest tenth?", 1),
    ("What is 22 / 7 to the nearest hundredth?", 2),
    ("How many people is that, to the nearest hundred?", None),
    ("Which is the nearest town to the lake?", None),
    ("结果四舍五入到整数。", 0),
])
def test_rounding_to_the_nearest_unit_needs_no_list_of_units(question: str, places: int | None) -> None:
    assert asked_decimals(question) == places


@pytest.mark.parametrize("question", ["湖边一共有多少张长椅？", "渡轮一天开多少次？", "湖里有多少条鱼？", "镇上有多少人？"])
def test_every_measure_word_of_a_count_makes_a_count_question(question: str) -> None:
    """The measure check reads the lexicon's one list of measure words (it lacked 张, 次, 件, 种)."""
    ctx = AnswerContext(question=question, observations=("湖的面积为58.3平方公里。",), lang="zh")
    nudge = check_answer("58.3平方公里", ctx)
    assert nudge is not None and nudge.code == "measure"
