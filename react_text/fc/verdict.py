"""Judging one model turn under ``tool_choice``: a call, an answer, or a problem to tell the model.

Pure functions over a parsed ``Step``: the shim decides what to do with the
verdict (reply, retry with the problem as the observation, or ask again for
the answer). Also the grammar that keeps a turn inside what ``tool_choice``
allows, when the backend can take one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..backends.base import Backend
from ..backends.build import supports_grammar
from ..checks.reading import Calls
from ..grammar.gbnf import build_grammar
from ..grammar.terms import GrammarError
from ..protocol.dialects import format_action, format_final
from ..tools.arguments import ArgumentError, coerce_args
from ..types import Step
from .request import ShimRequestError, ToolChoice

__all__ = ["PARALLEL_CALLS", "Verdict", "judge", "example_call", "final_label", "turn_grammar",
           "next_call_grammar"]

PARALLEL_CALLS = 8
"""How many calls one constrained turn may hold when ``parallel_tool_calls`` is on: a request that asks
for several independent things gets them in one reply, in order."""


@dataclass(frozen=True)
class Verdict:
    """What a turn means: ``calls`` (name, checked arguments), an ``answer``, or a ``problem``."""

    calls: Calls = ()
    answer: str | None = None
    problem: str | None = None  # message for the model when the turn cannot be used
    code: str | None = None


def judge(step: Step, tools: Mapping[str, Any], choice: ToolChoice, example: str) -> Verdict:
    """Pure: what the parsed turn means under ``tool_choice``, or why it is unusable."""
    if step.error is not None:
        return Verdict(problem=step.error.message, code=step.error.code)
    if step.final_answer is not None:
        if choice.forced:
            want = choice.name or " or ".join(tools)
            return Verdict(
                problem=f"You must call a tool now ({want}); do not answer yet. Write the call, e.g.\n{example}",
                code="call_required",
            )
        return Verdict(answer=step.final_answer)
    if choice.mode == "none":
        return Verdict(
            problem="Do not call a tool now. Answer from what you know, e.g.\nFinal Answer: <your answer>",
            code="call_forbidden",
        )
    if not step.actions:  # the parser promises one of error/answer/actions; do not trust it blindly
        return Verdict(problem=f"Write a tool call or a final answer, e.g.\n{example}", code="no_action")
    calls = []
    for action in step.actions:
        tool = tools.get(action.tool)
        if tool is None:
            return Verdict(
                problem=f"There is no tool named {action.tool!r}. Valid tools: {', '.join(tools)}.",
                code="unknown_tool",
            )
        if choice.mode == "named" and action.tool != choice.name:
            return Verdict(problem=f"Call {choice.name} now, e.g.\n{example}", code="wrong_tool")
        try:
            call = (tool.name, coerce_args(tool, action.args))
        except ArgumentError as exc:
            return Verdict(problem=str(exc), code="bad_arguments")
        if call in calls:  # written again in the same turn: the model is looping, and what follows is noise
            break
        calls.append(call)
    return Verdict(calls=tuple(calls))


def example_call(template: Any, tools: Sequence[Any], choice: ToolChoice) -> str:
    """A call written in the template's dialect, shown to the model in a correction."""
    if not tools:
        return "Final Answer: <your answer>"
    tool = next((t for t in tools if t.name == choice.name), tools[0])
    props = tool.parameters.get("properties", {}) if isinstance(tool.parameters, Mapping) else {}
    required = tool.parameters.get("required", []) if isinstance(tool.parameters, Mapping) else []
    args = {k: "..." for k in (required or list(props)[:1])}
    return format_action(template.dialect, tool.name, args, 1)


def final_label(template: Any, n: int) -> str:
    """The text that opens a final answer in the template's dialect (``Final Answer:``, ``Finish[``...)."""
    mark = "\ue000"  # a private-use character: no dialect escapes or contains it
    return format_final(template.dialect, mark, n).split(mark)[0].rstrip(" ")


def turn_grammar(template: Any, tools: Sequence[Any], choice: ToolChoice, backend: Backend, constrain: bool,
                 *, unoffered: bool = True, calls: int = 1, going_on: bool = False) -> str | None:
    """GBNF for the turn, when asked for (``constrain``) or when a call is forced. ``going_on``: for the rest
    of a turn whose thought the prompt already holds (``cut_thought``): more thought, then a call or an answer."""
    forced = choice.forced
    if not (constrain or forced):
        return None
    if not supports_grammar(backend):
        if constrain:
            raise ValueError(f"backend {getattr(backend, 'name', backend)!r} does not support grammars; drop constrain")
        return None  # forced calls then rely on the retries alone
    if choice.mode == "none":
        offered: list[Any] = []
    elif choice.mode == "named":
        offered = [t for t in tools if t.name == choice.name]
    else:
        offered = list(tools)
    try:
        # Unless a call is forced, the model may stop after its thought or (``unoffered``)
        # reach for a tool it was not offered: that is how it declines (see reaches_elsewhere).
        return build_grammar(template.dialect, offered, allow_final=not forced,
                             allow_thought_only=not (forced or going_on), allow_unoffered=unoffered and not forced,
                             thought_begun=going_on, calls=calls)
    except GrammarError as exc:  # e.g. a tool name the text protocol cannot carry
        raise ShimRequestError(f"cannot constrain this request: {exc}", "tools") from exc


def next_call_grammar(template: Any, tools: Sequence[Any], choice: ToolChoice, backend: Backend) -> str | None:
    """GBNF for a step after a turn's calls (``next_calls``): one call of a tool ``tool_choice`` allows, or the
    end (a final answer, or the thought alone), whatever ``tool_choice`` forced: the turn has its call."""
    offered = [t for t in tools if choice.mode != "named" or t.name == choice.name]
    return turn_grammar(template, offered, ToolChoice("auto"), backend, True, unoffered=False)
