"""What the shim does to a turn's finished calls, in one place and in order.

Why one place: each step reads the calls every step before it settled. First the calls that copy the demo
call's made-up values are left out (``demo_copy``, under ``tool_choice`` "auto" only: a call the client forced is
one it asked for); a reply left with neither call nor answer, or whose answer is only a tool's name
(``bare_name``), is asked once more in the model's own tool format (``own_format``); then the fills that read the
request (``checks.stated``: options, flags, lists, swapped numbers, percentages, zeros, years); then the optional
arguments the model writes in its own tool format (``own_options``, one model call per call); then the product of
the lists the request writes (``crossed``); last the calls the request's lists and groups of numbers ask for beyond
the model's (``list_rest``, ``unit_groups``), and each call's list items from its own part of the request
(``own_items``); at the very end, optional arguments whose value only the parameter's description gives are left
out (``described_option``), whichever step wrote them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Container, Mapping, Protocol, Sequence

from ..backends.base import Backend
from ..checks.bare_names import is_bare_name
from ..checks.crossed import crossed
from ..checks.demo_copies import without_copies
from ..checks.described_options import without_described
from ..checks.list_rest import list_rest
from ..checks.own_items import own_items
from ..checks.reading import Situation
from ..checks.stated import stated_values
from ..checks.unit_groups import unit_groups
from .own_format import own_format
from .own_options import own_options
from .request import ToolChoice
from .verdict import Verdict

__all__ = ["Settled", "Turn", "settle"]


class Turn(Protocol):
    """What the steps read of the request a turn answers (the shim's ``_Request`` has it, frozen)."""

    @property
    def situation(self) -> Situation: ...
    @property
    def schemas(self) -> Mapping[str, Any]: ...
    @property
    def by_name(self) -> Mapping[str, Any]: ...  # the offered tools by name
    @property
    def checks(self) -> Container[str]: ...
    @property
    def choice(self) -> ToolChoice: ...


@dataclass(frozen=True)
class Settled:
    """The verdict with its calls settled, the checks that acted, how many listed calls ``own_options`` made
    alike (and so merged), and the (prompt, completion) tokens it took."""

    verdict: Verdict
    acted: tuple[str, ...] = ()
    merged: int = 0
    usage: tuple[int, int] = (0, 0)


def settle(verdict: Verdict, turn: Turn, messages: Sequence[Any], backend: Backend, max_tokens: int) -> Settled:
    """``verdict`` with every switched-on step applied to its calls (the module's docstring says which)."""
    acted: list[str] = []
    situation, schemas, checks = turn.situation, turn.schemas, turn.checks
    if turn.choice.mode == "auto" and "demo_copy" in checks:
        s = situation
        calls, problem = without_copies(verdict.calls, s.example_arguments, schemas, s.grounds, s.lang)
        if calls != verdict.calls:  # with none left, the problem is what the reply reports
            verdict = Verdict(calls=calls, problem=problem, code="demo_copy" if problem else None)
            acted.append("demo_copy")
    usage = (0, 0)
    bare = verdict.answer is not None and "bare_name" in checks and is_bare_name(verdict.answer, turn.by_name)
    if (bare or not verdict.calls and verdict.answer is None) and "own_format" in checks:
        calls, usage = own_format(turn.by_name, turn.choice, messages, backend, situation.grounds, max_tokens)
        if calls:  # else the reply stands as it was: a bare name is still what the model wrote
            verdict = Verdict(calls=calls)
            acted += ["bare_name", "own_format"] if bare else ["own_format"]
    if not verdict.calls:
        return Settled(verdict, tuple(acted), usage=usage)
    calls, filled = stated_values(verdict.calls, schemas, situation.question, checks)
    acted += filled
    merged = 0
    if "own_options" in checks:
        options, added, used = own_options(calls, turn.by_name, messages, backend, situation.grounds, max_tokens)
        merged, calls, usage = len(calls) - len(options), options, (usage[0] + used[0], usage[1] + used[1])
        acted += ["own_options"] * added
    fills = (("crossed", crossed), ("list_rest", list_rest), ("unit_groups", unit_groups), ("own_items", own_items))
    for name, fill in fills:
        if name in checks and (filled_calls := fill(calls, schemas, situation.question)) != calls:
            calls = filled_calls
            acted.append(name)
    if "described_option" in checks and (kept := without_described(calls, schemas, situation.grounds)) != calls:
        calls = kept
        acted.append("described_option")
    return Settled(replace(verdict, calls=calls), tuple(acted), merged, usage)
