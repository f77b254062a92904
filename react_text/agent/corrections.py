"""The loop's side of the checks: the run's state as a ``checks.review.Situation``, and a correction as a decision.

Why apart from ``policy``: ``policy`` says what a turn means for the run (run a tool, finish, retry,
stop); ``checks.review`` says which correction a turn that could run or finish still deserves first,
for the loop and the shim alike. Here the loop fills the review's ``Situation`` from ``RunState`` and
turns its ``Nudge`` into a ``Retry`` (or, for a copied value after the correction, a ``Stop``). Most
corrections come with a *lead*: a small model given a correction alone tends to write the same turn
again, while one whose next thought already starts in the right place goes on from there.
"""

from __future__ import annotations

from ..lexicon.messages import message
from ..checks.reading import Reading, Situation
from ..checks.review import review
from ..lexicon.answers import is_failure_text, is_refusal
from ..prompting.retrieval import LIST_TOOLS
from ..types import Action, Step
from .decisions import Retry, Stop
from .state import RunState, Seen

__all__ = ["correction", "repeat_lead"]

_SHORT_RESULT = 200
"""A repeated call's result at most this long (one line) opens the next thought (``repeat_lead``)."""


def correction(state: RunState, step: Step, action: Action | None = None) -> Retry | Stop | None:
    """The correction ``step`` deserves (``checks.review``) as the loop's decision: ``action`` is the call
    that would run; without one, the turn's final answer is read, and without that the unusable turn."""
    answer = None if action is not None or step.error is not None else (step.final_answer or "").strip()
    reading = Reading(text=step.text, calls=() if action is None else ((action.tool, action.args),), answer=answer,
                      refusal=answer is not None and is_refusal(answer), step=step)
    nudge = review(reading, situation(state))
    if nudge is None:
        return None
    if nudge.code == "copied_example":
        return Stop("copied_example", nudge.message)
    reason = "needs_observation" if nudge.code == "no_observation" else f"guard:{nudge.code}"
    return Retry(nudge.message, reason, lead=nudge.lead, check=nudge.code, hold=nudge.hold,
                 hold_values=nudge.hold_values)


def situation(state: RunState) -> Situation:
    """What the checks read of the run. Before any result the first move is still to come (the tool the
    question names, a question no tool meets); after the no-fit correction, which told the model to answer
    without a tool, an answer is not asked for a tool again."""
    observations = tuple(seen.text for seen in state.seen)
    return Situation(
        question=state.question,
        tool_names=state.tool_names,
        observations=observations,
        real_observations=state.real_observations,
        example_values=state.example_values,
        nudged=state.nudged | ({"no_observation"} if state.observation_nudged or "no_fit" in state.nudged else set()),
        lang=state.lang,
        checks=state.checks,
        grounds=(state.question, *observations),
        example_arguments=state.example_arguments,
        example_tools=state.example_tools,
        schemas=state.schemas,
        secret_fields=state.secret_fields,
        pick=None if state.seen else state.pick,
        unfit=state.unfit and not state.seen,
        calls_made=tuple((seen.tool, seen.code) for seen in state.seen),
        call_arguments=tuple(seen.fingerprint.partition(":")[2] for seen in state.seen),
        exempt_tools=frozenset({LIST_TOOLS}),
    )


def repeat_lead(earlier: Seen, lang: str) -> str:
    """After a repeated call, its short result, so that the model goes on from what it has instead of
    calling once more (it then repeats, and the run stops); empty for a long or failed result."""
    text = earlier.text.strip()
    if text and "\n" not in text and len(text) <= _SHORT_RESULT and not is_failure_text(text):
        return message(lang, "repeat.lead", result=text)
    return ""
