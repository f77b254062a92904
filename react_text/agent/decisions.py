"""The decisions the policy can take over one model turn; the ``Agent`` carries them out.

Each is frozen data with a ``kind`` so the trace records it as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..checks import CheckName
from ..types import Action
from .state import Seen


@dataclass(frozen=True)
class RunTool:
    action: Action
    kind: str = field(default="run_tool", init=False)


@dataclass(frozen=True)
class Finish:
    answer: str
    kind: str = field(default="finish", init=False)


@dataclass(frozen=True)
class Retry:
    """Feed ``observation`` back to the model instead of a tool result.

    ``reason`` is ``format_error:<code>``, ``no_progress``,
    ``needs_observation`` or ``guard:<check>`` for the trace; ``advance`` counts them by it and
    by ``check``, the correcting check's name (each fires once per run).
    """

    observation: str
    reason: str
    same_as: int | None = None
    """For a repeated call: the step whose result was shown again."""
    lead: str = ""
    """Words the model's next thought starts with, written for it (``corrections``); empty for none."""
    seen: Seen | None = None
    """A call the engine made for the model whose results the correction shows (a refusal's second look):
    from then on it counts as seen, as the model's own calls do."""
    check: CheckName | None = None
    """The check that made this correction (``checks.registry``), None for a format error or a repeat."""
    hold: str = ""
    """The tool the next turn is held to call, under a grammar when the backend takes one (``checks.hold``)."""
    hold_values: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The values the held call's arguments may take (``Nudge.hold_values``, ``checks.reading.HeldValues``)."""
    kind: str = field(default="retry", init=False)


@dataclass(frozen=True)
class Stop:
    status: str
    reason: str
    kind: str = field(default="stop", init=False)


@dataclass(frozen=True)
class PlannedCall:
    """One action of a turn and how it is answered: run, or an earlier result shown again, or an error."""

    call_id: str
    action: Action
    same_as: str | None = None
    """An earlier identical call answers this one: ``step 2``, or a call id of this turn."""
    shown: str | None = None
    """The text shown for it when it does not run (earlier result, or why it cannot run)."""
    error: str | None = None
    """Why it cannot run (``unknown_tool``)."""

    @property
    def runs(self) -> bool:
        return self.same_as is None and self.error is None


@dataclass(frozen=True)
class RunTools:
    """Run every action of a turn (``Limits.max_parallel_tools`` > 1)."""

    calls: tuple[PlannedCall, ...]
    kind: str = field(default="run_tools", init=False)

    @property
    def action(self) -> Action:
        return self.calls[0].action


Decision = Union[RunTool, RunTools, Finish, Retry, Stop]
