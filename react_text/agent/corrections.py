"""The loop's one-time corrections, each with the words the model's next thought starts with.

Why apart from ``policy``: ``policy`` says what a turn means for the run (run a tool,
finish, retry, stop); this module says which correction a turn that could run or
finish still deserves first. Each check fires at most once per run (``RunState.nudged``)
and most come with a *lead*: a small model given a correction alone tends to write
the same turn again, while one whose next thought already starts in the right place
goes on from there. Pure functions over ``RunState`` and the parsed turn.
"""

from __future__ import annotations

from typing import Callable

from ..checks import CheckName, in_order
from ..prompting.retrieval import LIST_TOOLS
from ..protocol.answer_text import is_refusal
from ..checks.arithmetic import arithmetic_slip
from ..checks.declines import no_fit_lead, no_fit_nudge, reached_for, unfit_nudge
from ..checks.grounding import check_call, check_choice, choice_lead
from ..checks.answers import AnswerContext, check_answer, copied_example_value
from ..protocol.nudges import Nudge, is_failure_text, say
from ..protocol.question import numbers_in, question_holds, quoted_text
from ..tools.calculator import calculate
from ..tools.search import SEARCH_TOOL
from ..types import Action, Step
from .decisions import Retry, Stop
from .state import RunState, Seen

__all__ = ["answer_correction", "call_correction", "copied_again", "repeat_lead", "slip_correction", "turn_correction"]

_SHORT_RESULT = 200
"""A repeated call's result at most this long (one line) opens the next thought (``repeat_lead``)."""


def _retry(nudge: Nudge, check: CheckName, lead: str = "") -> Retry:
    return Retry(nudge.message, f"guard:{check}", lead=lead, check=check)


def call_correction(state: RunState, action: Action) -> Retry | None:
    """For a call to an offered tool, the first of the call checks (``checks.registry``, in its order)
    that fires: a first call that passes over the tool the question's words clearly name (with that
    tool's name as the lead), values that come from nowhere, or a first call when the question meets
    none of the tools (no lead: the model may know the answer). Each fires once per run."""
    if action.tool == LIST_TOOLS:
        return None
    for check in in_order("call", state.checks - state.nudged):
        found = _CALL_CHECKS[check](state, action) if check in _CALL_CHECKS else None
        if found is not None:
            return found
    return None


def _tool_choice(state: RunState, action: Action) -> Retry | None:
    nudge = None if state.seen else check_choice(state.pick, (action.tool,), state.lang)
    if nudge is None or state.pick is None:
        return None
    return _retry(nudge, "tool_choice", choice_lead(state.pick[0], state.lang))


def _ungrounded(state: RunState, action: Action) -> Retry | None:
    nudge = check_call(action.tool, action.args, state.schemas.get(action.tool),
                       (state.question, *(seen.text for seen in state.seen)), state.example_arguments,
                       lang=state.lang, secret_fields=state.secret_fields)
    return None if nudge is None else _retry(nudge, "ungrounded")


def _unfit(state: RunState, action: Action) -> Retry | None:
    if not state.unfit or state.seen:
        return None
    return _retry(unfit_nudge(action.tool, state.tool_names, state.lang), "no_fit")


_CALL_CHECKS: dict[CheckName, Callable[[RunState, Action], Retry | None]] = {
    "tool_choice": _tool_choice, "ungrounded": _ungrounded, "no_fit": _unfit}
"""The call checks made here (``arithmetic`` is ``slip_correction``, tried first by ``policy.decide``)."""


def turn_correction(state: RunState, step: Step) -> Retry | None:
    """For an unusable turn that reaches for a tool offered nowhere (``declines``): that none fits,
    and a lead that says so. Not while ``list_tools`` can reveal more: the tool wanted may be hidden."""
    if ("no_fit" not in state.checks or "no_fit" in state.nudged or not state.tool_names
            or LIST_TOOLS in state.tool_names):
        return None
    name = reached_for(step, state.tool_names, state.example_tools)
    if name is None:
        return None
    return _retry(no_fit_nudge(name, state.tool_names, state.lang), "no_fit", no_fit_lead(state.lang))


def answer_correction(state: RunState, answer: str) -> Retry | None:
    """For a final answer: the answer checks (``checks.answers``), shared with the shim; a refusal of what the
    question itself holds gets a lead that starts from it; a refusal right after a failed tool, the
    tools not tried yet (``_after_failure``, loop only: the shim sees one turn)."""
    refusal = is_refusal(answer)
    nudge = check_answer(answer, _answer_context(state), refusal=refusal) or (_after_failure(state) if refusal else None)
    if nudge is None:
        return None
    check = _ANSWER_CHECKS[nudge.code]
    reason = "needs_observation" if check == "no_observation" else f"guard:{check}"
    return Retry(nudge.message, reason, check=check, lead=nudge.lead or (
        _in_question_lead(state, check) if check in ("in_question", "off_quote") else ""))


_ANSWER_CHECKS: dict[str, CheckName] = {name: name for name in in_order("answer")}
"""The answer checks' codes as ``checks.answers`` and ``_after_failure`` write them, each the registry's name."""


def slip_correction(state: RunState, step: Step) -> Retry | None:
    """For a turn that works a sum out in words and gets it wrong ("1,842 - 264 = 1,678"): the true
    result, once, and a thought that starts from it (``checks.arithmetic``). A call is held back
    only when it builds on the wrong result; a final answer always."""
    if "arithmetic" not in state.checks or "arithmetic" in state.nudged:
        return None
    slip = arithmetic_slip(step.text, (state.question, *(seen.text for seen in state.seen)), calculate)
    if slip is None:
        return None
    if step.actions and not numbers_in(slip.claimed) <= numbers_in(str(step.actions[0].args)):
        return None
    fact = f"{slip.expression} = {slip.result}"
    return Retry(say(state.lang, f"Checked with the calculator: {fact}, not {slip.claimed}.",
                     f"用计算器核对：{fact}，不是 {slip.claimed}。"), "guard:arithmetic", check="arithmetic",
                 lead=say(state.lang, f" The calculator gives {fact}.", f" 计算器算出 {fact}。"))


def copied_again(state: RunState, answer: str) -> Stop | None:
    """An answer that still holds a value from the few-shot episodes, after the correction that said so:
    the run stops without an answer rather than pass the examples' value off as this question's."""
    if "copied_example" not in state.checks or "example_value" not in state.nudged:
        return None
    ctx = _answer_context(state)
    value = copied_example_value(answer, ctx.example_values, (ctx.question, *ctx.observations))
    if value is None:
        return None
    return Stop("copied_example", f"the model answered with {value} again, a value from the few-shot examples "
                                  "that neither the question nor any result holds")


def _after_failure(state: RunState) -> Nudge | None:
    """A refusal right after an offered tool failed on the request, while other tools were never tried
    ("Four of us had dinner for 86 euros…": ``item_price`` fails, ``split_bill`` waits): one correction
    naming them. Not after a search, whose "nothing found" is what a refusal rests on."""
    if "after_failure" not in state.checks or "after_failure" in state.nudged or not state.seen:
        return None
    last = state.seen[-1]
    tool = last.tool
    tried = {seen.tool for seen in state.seen}
    untried = [n for n in state.tool_names if n not in tried and n not in (SEARCH_TOOL, LIST_TOOLS)]
    if tool == SEARCH_TOOL or not untried or last.code != "tool_error":
        return None
    return Nudge("after_failure", say(
        state.lang,
        f"{tool} failed on this request, and you have not tried {', '.join(untried)}. If one of them does what "
        "is asked, call it with values from the question; otherwise write the same Final Answer again.",
        f"{tool} 处理这个请求时出错了，而你还没有试过 {'、'.join(untried)}。如果其中有能完成这个请求的工具，"
        "就用问题里的值调用它；否则就再写一次同样的最终答案。",
    ))


def _in_question_lead(state: RunState, code: str) -> str:
    """After the correction for refusing what the question holds, or for answering from a search
    instead of the question's quote, the thought starts from it: the numbers go to the calculator, a
    quoted passage is quoted back (``question.question_holds``)."""
    if code == "in_question" and question_holds(state.question, state.tool_names) == "numbers":
        return say(state.lang, " The question itself gives the numbers, so I pass them to the calculator as the expression",
                   "问题本身给出了数字，所以我把它们写成算式交给 calculator：")
    quote = quoted_text(state.question) or ""
    return say(state.lang, f' The question itself says: "{quote}"', f"问题本身写着：“{quote}”")


def repeat_lead(earlier: Seen, lang: str) -> str:
    """After a repeated call, its short result, so that the model goes on from what it has instead of
    calling once more (it then repeats, and the run stops); empty for a long or failed result."""
    text = earlier.text.strip()
    if text and "\n" not in text and len(text) <= _SHORT_RESULT and not is_failure_text(text):
        return say(lang, f" I already have the result: {text}", f"我已经有结果了：{text}")
    return ""


def _answer_context(state: RunState) -> AnswerContext:
    """What the answer checks read. After the no-fit correction, which told the model to answer
    without a tool, an answer is not asked for a tool again."""
    return AnswerContext(
        question=state.question,
        tool_names=state.tool_names,
        observations=tuple(seen.text for seen in state.seen),
        real_observations=state.real_observations,
        example_values=state.example_values,
        nudged=state.nudged | ({"no_observation"} if state.observation_nudged or "no_fit" in state.nudged else set()),
        lang=state.lang,
        checks=frozenset(in_order("answer", state.checks)),
    )
