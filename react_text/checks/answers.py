"""Checks on a final answer's text before it is accepted, shared by the loop and the shim.

Why: a small model "answers" with whatever text is nearest — a tool's error
message, an expression it never evaluated, a value copied from the few-shot
examples, or a guess made before any tool ran. Each check here gives the model
one correction (never two for the same reason), worded in the prompt's
language, and then lets the answer through: a guard that can loop forever is
worse than a wrong answer.

Pure functions over plain data.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Callable, Iterable

from ..lexicon.answers import is_failure_text
from ..lexicon import zh
from ..lexicon.numbers import written_number
from ..lexicon.question import (asked_decimals, asks_for_name, asks_for_number, from_quote, numbers_in, plain_words,
                                question_holds, quoted_text, written_numbers)
from ..protocol.results import result_lines
from ..redaction import Redactor
from ..prompting.retrieval import LIST_TOOLS
from ..tools.calculator import CALCULATOR_TOOL, format_number
from ..tools.search import SEARCH_TOOL
from ..lexicon.messages import joined, message
from .reading import Nudge, Situation
from .registry import CheckName

__all__ = ["ANSWER_CHECKS", "copied_example_value", "other_year", "pair_expressions", "unused_numbers"]


_NO_RESULTS = re.compile(r"^\s*(?:no results?\b|没有结果|未找到)", re.IGNORECASE)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().strip("\"'“”「」").lower()


def _copies_failure(answer: str, observations: tuple[str, ...]) -> str | None:
    """The failure text the answer repeats (or is), if any."""
    a = _norm(answer)
    if not a:
        return None
    for obs in reversed(observations):
        if is_failure_text(obs):
            o = _norm(obs)
            if len(a) >= 12 and (a in o or o in a):
                return obs
    return answer if is_failure_text(answer) else None


# Numbers joined by operators, with no "= result" after them: "1,375 * 22 * 45", "(3 + 4) / 2".
_NUM = r"\(?\s*-?\d[\d,]*(?:\.\d+)?\s*\)?"
_OP = r"(?:\s*[*/×÷^+]\s*|\s+-\s+)"
_EXPRESSION = re.compile(rf"{_NUM}(?:{_OP}{_NUM})+")
_RESULT = re.compile(r"[=＝]\s*-?\d|等于|is\s+-?\d", re.IGNORECASE)
_VALUE_FIRST = re.compile(r"\d\s*[(（]?\s*[=＝]\s*$")
"""A value, then its working: ``4377 (= 87 * 36 + 1245)``, as the calculator reports a reading."""


_DATE_TIME = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
"""Dates and clock times (``2030-08-23T09:14:00+00:00``, ``09:14``): their dashes and offsets are no arithmetic."""


def _unevaluated(answer: str) -> bool:
    answer = _DATE_TIME.sub(lambda m: " " * len(m.group(0)), answer)
    found = _EXPRESSION.search(answer)
    return (found is not None and not _RESULT.search(answer[found.end():])
            and not _VALUE_FIRST.search(answer[:found.start()]))


def copied_example_value(answer: str, example_values: frozenset[str], own_texts: Iterable[str]) -> str | None:
    """A number in ``answer`` that the shown episodes hold, or an episode's answer that is a name
    (``Runa Vell``, ``林若溪``), appearing in none of ``own_texts`` (the question, the run's
    observations): a value copied from the examples."""
    if not example_values:
        return None
    texts = list(own_texts)
    own: set[str] = set()
    for text in texts:
        own |= numbers_in(text)
    for value in sorted(numbers_in(answer), key=lambda v: (-len(v), v)):  # the most telling number first
        if value in example_values and value not in own and len(value.replace(".", "")) >= 2:
            return value
    folded_answer, folded_own = answer.casefold(), "\n".join(texts).casefold()
    for value in sorted(v for v in example_values if not v.replace(".", "").isdigit()):
        name = value.casefold()
        if len(name) >= 3 and name in folded_answer and name not in folded_own:
            return value
    return None


_NONE = re.compile(r"\b(?:none|no)\b", re.IGNORECASE)
"""How an answer says zero in words ("none", "no boats")."""


def _not_a_number(answer: str, question: str) -> bool:
    """The question asks for a number and the answer holds none ("Tarnwick" for a population)."""
    return asks_for_number(question) and not written_number(answer) and not _NONE.search(answer)


def _tool_error(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    failure = _copies_failure(answer, ctx.observations)
    if failure is None:
        return None
    if _NO_RESULTS.match(failure):
        return Nudge("tool_error", message(ctx.lang, "tool_error.no_results"))
    return Nudge("tool_error", message(ctx.lang, "tool_error.failure"))


def _question_back(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """An answer that is itself a question ("2031-03-15 有空吗？"): the model wrote the question
    back, often right after a tool result that answers it."""
    if refusal or not answer.strip().strip("\"'“”*`").rstrip().endswith(("?", "？")):
        return None
    return Nudge("question_back", message(ctx.lang, "question_back"))


_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")


def other_year(answer: str, question: str, observations: Iterable[str]) -> tuple[str, str] | None:
    """(the question's year, the result's year) when the answer's number comes from a result line about
    another year and no result mentions the year the question asks about: "松林镇在1900年有多少人口？"
    answered with 2022's 26,480. None otherwise, and for an answer that is itself a date."""
    asked = set(_YEAR.findall(question))
    if not asked or _YEAR.search(answer) or any(y in o for o in observations for y in asked):
        return None
    values = numbers_in(answer)
    for text in observations:
        for line in text.splitlines():
            years = set(_YEAR.findall(line))
            if years and values & (numbers_in(line) - years):
                return min(asked), min(years)
    return None


def _other_year(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    found = None if refusal else other_year(answer, ctx.question, ctx.observations)
    if found is None:
        return None
    asked, given = found
    return Nudge("other_year", message(ctx.lang, "other_year", asked=asked, given=given))


_MEASURES = {
    "km": r"km|kilomet(?:re|er)s?|公里|千米", "m": r"met(?:re|er)s?|(?<!平方)(?<![公千厘毫])米",
    "area": r"square|平方公里|平方米|公顷|hectares?", "mass": r"kg|kilograms?|grams?|tonnes?|tons?|公斤|千克|吨",
    "money": r"EUR|USD|euros?|dollars?|欧元|美元|元", "time": r"years?|days?|hours?|minutes?|seconds?|小时|分钟|秒|天",
    "percent": r"%|percent|百分",
}
_MEASURE = {name: re.compile(rf"(?<![A-Za-z])(?:{pattern})(?![A-Za-z])", re.IGNORECASE)
            for name, pattern in _MEASURES.items()}
_COUNT = re.compile(rf"\bhow\s+many\b|{zh.COUNT}", re.IGNORECASE)


def _measure(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """A count asked for ("月湖里一共有多少条鱼？") and a measurement of another kind given ("58.3平方公里"):
    the model answered with the nearest number it found. The question's own units ("How many kilometres")
    are allowed in the answer."""
    if refusal or not _COUNT.search(ctx.question):
        return None
    if not any(pattern.search(answer) and not pattern.search(ctx.question) for pattern in _MEASURE.values()):
        return None
    return Nudge("measure", message(ctx.lang, "measure"))


def _expression(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    if not _unevaluated(answer):
        return None
    return Nudge("expression", message(
        ctx.lang, "expression.calculator" if "calculator" in ctx.tool_names else "expression.plain"))


def _example_value(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    value = copied_example_value(answer, ctx.example_values, (ctx.question, *ctx.observations))
    if value is None:
        return None
    return Nudge("example_value", message(ctx.lang, "example_value", value=value))


def _missing_number(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    if refusal or not _not_a_number(answer, ctx.question):
        return None
    return Nudge("not_a_number", message(ctx.lang, "not_a_number"))


def _no_observation(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """An answer before any tool ran, when tools are offered; not one read off the question's own quote
    (told to use a tool first, a small model then searches and answers with what the search found)."""
    if refusal or not ctx.require_observation or not ctx.tool_names or ctx.observations:
        return None
    if from_quote(answer, ctx.question):
        return None
    return Nudge("no_observation", message(ctx.lang, "no_observation"))


_NAME = re.compile(r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+")


def off_quote(answer: str, question: str, observations: tuple[str, ...]) -> bool:
    """The question quotes the passage to answer from, and the answer takes a number or a name from a
    search result instead ("Who is the mayor in this sentence: 'Mayor Odda Berg opened…'?" answered
    "Cato Vren", the mayor a search found), while the quote holds a value of that kind."""
    quote = quoted_text(question)
    if quote is None:
        return False
    results = "\n".join(r.line for obs in observations for r in result_lines(obs))
    numbers, names = numbers_in(answer), set(_NAME.findall(answer))
    from_results = numbers & numbers_in(results) or {name for name in names if name in results}
    if not from_results:
        return False
    if numbers & numbers_in(quote) or any(name in quote for name in names):
        return False
    return bool(numbers_in(quote) if numbers else _NAME.search(quote))


def _answer_off_quote(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    if refusal or not off_quote(answer, ctx.question, ctx.observations):
        return None
    return Nudge("off_quote", message(ctx.lang, "off_quote"), lead=_quote_lead(ctx))


def _in_question(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """A refusal when the question holds what answers it: numbers to work out, or a quoted passage. Told
    to "look it up", a small model searches, finds nothing and says the documents do not say."""
    holds = question_holds(ctx.question, ctx.tool_names) if refusal else None
    if holds == "numbers":
        return Nudge("in_question", message(ctx.lang, "in_question.numbers"),
                     lead=message(ctx.lang, "in_question.numbers.lead"))
    if holds == "quote":
        return Nudge("in_question", message(ctx.lang, "in_question.quote"), lead=_quote_lead(ctx))
    return None


def unused_numbers(answer: str, question: str, observations: Iterable[str], calls: Iterable[str]) -> tuple[str, ...]:
    """The numbers the question gives, when not one of them went into anything and the answer is a number a
    result gave as it came ("How much do 12 apples cost?" answered "0.4", the price of one): in the question's
    order, as written; empty otherwise. Went into: passed in a call, held by a result or by the answer. A model
    that computed with some of the question's numbers chose which ones count (a pin, an age given in passing).
    Years say which, not how much, and a 1 or 0 changes no product or sum: neither is asked to be used."""
    given = _values(answer)
    results = set().union(*(_values(text) for text in observations))
    if not given or not given <= results:
        return ()
    used = given | results | set().union(*(_values(text) for text in calls))
    asked = [n for n in written_numbers(question) if _YEARLIKE.fullmatch(n) is None and _values(n) - {0.0, 1.0}]
    if any(_values(n) & used for n in asked):
        return ()
    return tuple(dict.fromkeys(asked))


_YEARLIKE = re.compile(r"1\d{3}|20\d{2}")


def _values(text: str) -> set[float]:
    """The numbers in ``text`` as values, so "0.40" is "0.4"."""
    found = set()
    for n in numbers_in(text):
        try:
            found.add(float(n))
        except ValueError:
            continue
    return found


def _unused_number(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """An answer that is a tool's result as it came, while a number the question gives went into nothing:
    the model stopped one step short (the price of one apple, for twelve). With the calculator offered, the
    next thought starts on the calculation. Not when what the calls passed is unknown (none is recorded)."""
    if refusal or not ctx.call_arguments:
        return None
    question = Redactor(ctx.secret_fields).text(ctx.question)  # a pin is no quantity, and never quoted back
    unused = unused_numbers(answer, question, ctx.observations, ctx.call_arguments)
    if not unused:
        return None
    numbers = joined(ctx.lang, unused)
    said = message(ctx.lang, "unused_number", numbers=numbers)
    if CALCULATOR_TOOL not in ctx.tool_names:
        return Nudge("unused_number", said)
    lead = message(ctx.lang, "unused_number.lead", numbers=numbers)
    argument = next(iter((ctx.schemas.get(CALCULATOR_TOOL) or {}).get("properties") or {}), None)
    if "held_call" not in ctx.checks or argument is None:
        return Nudge("unused_number", said, lead=lead)
    given = [format_number(v) for n in unused for v in _values(n)]
    expressions = pair_expressions(given, [format_number(v) for v in sorted(_values(answer))])
    return Nudge("unused_number", said, lead=lead, hold=CALCULATOR_TOOL, hold_values=((argument, expressions),))


def pair_expressions(given: Iterable[str], results: Iterable[str]) -> tuple[str, ...]:
    """Every way to work one number the question gives with one result, by one operation, either order: what
    the calculator call after ``unused_number`` may pass (``Nudge.hold_values``). The model picks the pair, the
    operation and the order; it can no longer leave the question's number out, nor bring one from nowhere."""
    pairs = [(a, b) for g in list(given)[:3] for r in list(results)[:2] for a, b in ((g, r), (r, g))]
    return tuple(dict.fromkeys(f"{a} {op} {b}" for op in "*/+-" for a, b in pairs))

def _quote_lead(ctx: Situation) -> str:
    """After a correction for refusing the question's quote, or for answering from a search instead of it, the
    next thought starts from the quote: a small model then answers from it."""
    return message(ctx.lang, "in_question.quote.lead", quote=quoted_text(ctx.question) or "")


def _echo(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """An answer that only repeats a name the question gives ("松林镇和哪个外国城镇结为友好城镇？" answered
    "松林镇"): the model named the question's subject instead of what was asked. Not one read off the
    question's own quote, which is where such an answer belongs; only for a question that asks for a
    name (``question.asks_for_name``: not a choice it offers, not a number, which is ``not_a_number``'s)."""
    words = plain_words(answer)
    if (refusal or len(words.replace(" ", "")) < 2 or numbers_in(answer) or not asks_for_name(ctx.question)
            or not _within(words, plain_words(ctx.question)) or from_quote(answer, ctx.question)):
        return None
    return Nudge("echo", message(ctx.lang, "echo", answer=answer.strip()))


def _rounding(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """An answer with more decimals than the question asks for ("to two decimal places" answered
    2.401639344): the answer rounded as asked, worked out here, since a small model copies the
    calculator's digits. Only for an answer that holds one number."""
    places = asked_decimals(ctx.question)
    found = written_numbers(answer)
    if (refusal or places is None or len(found) != 1 or len(found[0].partition(".")[2]) <= places
            or _SCALED.search(answer)):
        return None  # "1.725 million" is not 2
    rounded = f"{Decimal(found[0].replace(',', '')).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP):,}"
    how = message(ctx.lang, "rounding.how.whole" if places == 0 else "rounding.how.one" if places == 1
                  else "rounding.how.many", places=places)
    return Nudge("rounding", message(ctx.lang, "rounding", how=how, number=found[0], rounded=rounded),
                 lead=message(ctx.lang, "rounding.lead", how=how, rounded=rounded))


_SCALED = re.compile(r"\b(?:thousand|million|billion)\b|[万亿%]", re.IGNORECASE)


def _within(words: str, text: str) -> bool:
    """Whether ``words`` occur in ``text`` as whole words ("Ann" is not in "annual"); Chinese has no spaces
    to mark them, so there any run counts."""
    return f" {words} " in f" {text} " if words.isascii() else words in text


def _after_failure(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """A refusal right after an offered tool failed on the request, while other tools were never tried
    ("Four of us had dinner for 86 euros…": ``item_price`` fails, ``split_bill`` waits): one correction
    naming them. Not after a search, whose "nothing found" is what a refusal rests on."""
    if not refusal or not ctx.calls_made:
        return None
    tool, code = ctx.calls_made[-1]
    tried = {name for name, _ in ctx.calls_made}
    untried = [n for n in ctx.tool_names if n not in tried and n not in (SEARCH_TOOL, LIST_TOOLS)]
    if tool == SEARCH_TOOL or not untried or code != "tool_error":
        return None
    return Nudge("after_failure", message(ctx.lang, "after_failure", tool=tool, untried=joined(ctx.lang, untried)))


def _copied_again(answer: str, ctx: Situation, refusal: bool) -> Nudge | None:
    """An answer that still holds a value from the few-shot episodes, after the correction that said so: the
    host stops without an answer rather than pass the examples' value off as this question's (the message is
    the stop's reason)."""
    if "example_value" not in ctx.nudged:
        return None
    value = copied_example_value(answer, ctx.example_values, (ctx.question, *ctx.observations))
    if value is None:
        return None
    return Nudge("copied_example", f"the model answered with {value} again, a value from the few-shot examples "
                                   "that neither the question nor any result holds")


ANSWER_CHECKS: dict[CheckName, Callable[[str, Situation, bool], Nudge | None]] = {
    "tool_error": _tool_error, "question_back": _question_back, "expression": _expression,
    "example_value": _example_value, "other_year": _other_year, "measure": _measure,
    "not_a_number": _missing_number, "no_observation": _no_observation, "in_question": _in_question,
    "unused_number": _unused_number,
    "off_quote": _answer_off_quote, "echo": _echo, "rounding": _rounding,
    "after_failure": _after_failure, "copied_example": _copied_again,
}
"""The checks on the answer text by name; ``review`` tries them in the registry's order."""
