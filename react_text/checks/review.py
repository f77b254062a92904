"""``review``: the one correction a turn still deserves, for the loop and the shim alike.

Why one function: the order corrections are tried in used to be written in the loop's policy, its
corrections, the answer checks and the shim, and the shim gated the call checks a second time with gates
of its own. Here a turn is read once (``Reading``), against the run so far (``Situation``), by the
registry's checks of the turn's stage in the registry's order; the first that fires is returned, and
each fires once (``Situation.nudged``). The loop maps the ``Nudge`` to its decisions, the shim to its
retry. What differs between them is a ``Situation`` field, never a branch here on who is asking.

Not here: the checks that act with I/O or outside a parsed turn (``continuation`` asks the model to go
on, ``second_look`` runs a search, ``facts`` and ``evidence`` open the thought after a result,
``held_call`` samples the next turn under a grammar: here it only names the tool, ``Nudge.hold``; the
shim's ``more_calls`` steps and ``call_list`` with the checks on their calls, ``other_values``,
``kept_values``, ``new_value`` and ``unnamed_tool``, read the calls so far, not a turn, ``list_end`` the model's
odds, and ``own_format`` asks the model again in its own tool format, as ``bare_name`` has it do for an answer
that is only a tool's name).
Pure functions over plain data.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from ..lexicon.question import numbers_in
from ..tools.calculator import calculate
from .answers import ANSWER_CHECKS
from .arithmetic import arithmetic_slip
from .declines import no_fit_lead, no_fit_nudge, reached_for, unfit_nudge
from .grounding import check_call, check_choice, choice_lead, grounded_numbers
from ..lexicon.messages import message
from .reading import Nudge, Reading, Situation
from .request_values import holds_values
from .registry import CheckName, Stage, in_order

__all__ = ["ONE_TURN", "check_answer", "review"]

ONE_TURN: frozenset[CheckName] = frozenset({"arithmetic", "after_failure", "copied_example", "unused_number"})
"""Checks the shim leaves out: it sees one turn, so a refusal after a failure and a copy after the
correction cannot arise, it has never checked a sum worked out in words, and it does not read what the
client's earlier calls passed (``unused_number``)."""


def review(reading: Reading, situation: Situation) -> Nudge | None:
    """The first correction due for ``reading``, in the registry's order, or None to let the turn stand."""
    stage, due = _stage(reading), situation.checks - situation.nudged
    for name in in_order(stage, due):
        check = _CHECKS[stage].get(name)
        found = check(reading, situation) if check is not None else None
        if found is not None:
            return _as_given(found, situation)
    if stage == "answer" and situation.choice_covers_answers and "tool_choice" in due:
        found = _tool_choice(reading, situation)
        return None if found is None else _as_given(found, situation)
    return None


def check_answer(answer: str, situation: Situation, *, refusal: bool = False) -> Nudge | None:
    """The correction a final answer alone deserves (``review`` of a turn that only answers)."""
    return review(Reading(answer=answer, refusal=refusal), situation)


def _stage(reading: Reading) -> Stage:
    if reading.answer is not None:
        return "answer"
    return "call" if reading.calls else "turn"


def _as_given(found: Nudge, situation: Situation) -> Nudge:
    """The correction with its lead only when the host writes that check's lead."""
    return found if found.code in situation.leads_for or not found.lead else replace(found, lead="")


def _arithmetic(reading: Reading, s: Situation) -> Nudge | None:
    """A sum worked out wrong in words ("1,842 - 264 = 1,678"): the true result, and a thought that starts
    from it. A call is held back only when it builds on the wrong result; a final answer always."""
    slip = arithmetic_slip(reading.text, (s.question, *s.observations), calculate)
    if slip is None:
        return None
    if reading.calls and not numbers_in(slip.claimed) <= numbers_in(str(reading.calls[0][1])):
        return None
    fact = f"{slip.expression} = {slip.result}"
    return Nudge("arithmetic", message(s.lang, "arithmetic", fact=fact, claimed=slip.claimed),
                 lead=message(s.lang, "arithmetic.lead", fact=fact))


def _exempt(reading: Reading, s: Situation) -> bool:
    return bool(reading.calls) and reading.calls[0][0] in s.exempt_tools


def _tool_choice(reading: Reading, s: Situation) -> Nudge | None:
    """A first move passing over the tool the question clearly names, with that tool's name as the lead."""
    if _exempt(reading, s) or (s.choice_covers_answers and "no_observation" in s.nudged):
        return None
    found = check_choice(s.pick, tuple(name for name, _ in reading.calls), s.lang)
    if found is None or s.pick is None:
        return None
    return replace(found, lead=choice_lead(s.pick[0], s.lang), hold=s.pick[0] if "held_call" in s.checks else "")


def _several_named(reading: Reading, s: Situation) -> Nudge | None:
    """A first answer, no tool called, where the question names several tools alike (``Situation.named``): the
    correction ``tool_choice`` gives, for the first of them. Measured on BFCL's recorded replies: every answer with
    no call to a several-part request came where two tools or more were named so, and no answer to a request that
    no tool fits did. A request that writes no value a call could take asks for the model's own judgement."""
    if reading.calls or s.pick is not None or len(s.named) < 2 or "no_observation" in s.nudged:
        return None
    if not holds_values(s.question):  # "Should I convert money or check the weather first?" asks for advice
        return None
    found, tool = check_choice(s.named[0], (), s.lang), s.named[0][0]
    return None if found is None else replace(found, code="several_named", lead=choice_lead(tool, s.lang),
                                              hold=tool if "held_call" in s.checks else "")


def _ungrounded(reading: Reading, s: Situation) -> Nudge | None:
    """A call whose values come from nowhere (``grounding``). When another call of the same tool in the turn
    passes only grounded values ("5,10 and 15" written as 510 and 15), the tool evidently fits and the
    correction is about a value: the retry is held to calls of it, their required numbers to those the
    conversation writes (``ungrounded_hold``). Told it may answer instead, a small model answers from its own head."""
    if _exempt(reading, s):
        return None
    found = [(name, _check_call(name, args, s)) for name, args in reading.calls]
    for name, nudge in found:
        if nudge is None:
            continue
        if "ungrounded_hold" in s.checks and "held_call" in s.checks and (name, None) in found:
            return replace(nudge, hold=name, hold_values=grounded_numbers(s.schemas.get(name), s.grounds))
        return nudge
    return None


def _check_call(name: str, args: object, s: Situation) -> Nudge | None:
    schema = None if s.defaults_checked else s.schemas.get(name)
    return check_call(name, args, schema, s.grounds, s.example_arguments, lang=s.lang, secret_fields=s.secret_fields)


def _unfit(reading: Reading, s: Situation) -> Nudge | None:
    """A first call when the question meets none of the tools (no lead: the model may know the answer)."""
    if _exempt(reading, s) or not s.unfit:
        return None
    return unfit_nudge(reading.calls[0][0], s.tool_names, s.lang)


def _reached_elsewhere(reading: Reading, s: Situation) -> Nudge | None:
    """An unusable turn reaching for a tool offered nowhere (``declines``): that none fits, and a lead saying
    so. Not while one of the host's own tools (``list_tools``) can reveal more: the tool wanted may be hidden."""
    if reading.step is None or not s.tool_names or s.exempt_tools & set(s.tool_names):
        return None
    name = reached_for(reading.step, s.tool_names, s.example_tools)
    if name is None:
        return None
    return replace(no_fit_nudge(name, s.tool_names, s.lang), lead=no_fit_lead(s.lang))


def _answer_check(check: Callable[[str, Situation, bool], Nudge | None]) -> Callable[[Reading, Situation], Nudge | None]:
    return lambda reading, s: check(reading.answer or "", s, reading.refusal)


_CHECKS: dict[Stage, dict[CheckName, Callable[[Reading, Situation], Nudge | None]]] = {
    "turn": {"no_fit": _reached_elsewhere},
    "call": {"arithmetic": _arithmetic, "tool_choice": _tool_choice, "ungrounded": _ungrounded, "no_fit": _unfit},
    "answer": {"arithmetic": _arithmetic, **{name: _answer_check(check) for name, check in ANSWER_CHECKS.items()},
               "several_named": _several_named},
    "result": {},
}
"""Each stage's checks by name; the order is the registry's (``in_order``)."""
