"""What a run returns: its status, its answer, every step and the totals.

Statuses (``RunResult.status``):

``answered``       the model gave a final answer (``answer`` holds it).
``gave_up``        the model produced nothing usable at the end: two empty turns
                   in a row (it only emitted end-of-text), or an empty answer.
``max_steps``      ``Limits.max_steps`` model turns without a final answer.
``max_tokens``     ``Limits.max_total_tokens`` (prompt tokens evaluated plus
                   tokens generated, over the run) used up.
``timeout``        ``Limits.timeout_s`` of wall-clock time passed.
``no_progress``    the model repeated a call it had already made (same tool,
                   same arguments) after being told once what it returned.
``copied_example`` the model's answer still held a value from the few-shot
                   examples (in neither the question nor any result) after
                   being told once where it came from.
``format_errors``  ``Limits.max_format_errors`` unusable turns in a row.
``tool_failures``  one tool failed more than ``Limits.max_tool_retries`` times
                   in a row after its first failure.
``backend_error``  the backend could not produce a completion.
``context_full``   the next turn cannot fit the backend's context window even
                   with every older step shortened or dropped (see ``context``).
``interrupted``    Ctrl-C; the trace holds everything up to that point.
``template_error`` the prompt could not be rendered (a user template's undefined name, a sandbox limit).

An unexpected exception (a bug, a broken ``on_event``) is not a status: the
trace still ends with a ``run_end`` of status ``error`` and ``run`` re-raises.

Only ``answered`` carries the model's answer; every other status carries an
explanation (why it stopped, and the last observation), never an empty string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..types import Action, Observation, Step
from .decisions import Decision, RunTool, RunTools

STATUSES = (
    "answered",
    "gave_up",
    "max_steps",
    "max_tokens",
    "timeout",
    "no_progress",
    "copied_example",
    "format_errors",
    "tool_failures",
    "backend_error",
    "context_full",
    "interrupted",
    "template_error",
)


@dataclass(frozen=True)
class CallRecord:
    """One call of a turn and what came of it."""

    call_id: str
    action: Action
    observation: Observation | None
    """None when the call did not run (a repeat or an error)."""
    shown: str
    same_as: str | None = None
    cached: bool = False
    """Answered by the persistent cache rather than the tool."""


@dataclass(frozen=True)
class StepRecord:
    """One model turn and what came of it."""

    n: int
    text: str
    """The raw completion text (after the turn's label)."""
    kept: str
    """What stayed in the scratchpad: the trusted part of ``text``."""
    step: Step
    decision: Decision
    observation: Observation | None = None
    """The tool's result, when a tool ran."""
    observation_text: str | None = None
    """What the model was shown next: tool result, format error or nudge."""
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    model_seconds: float = 0.0
    tool_seconds: float = 0.0
    calls: tuple[CallRecord, ...] = ()
    """Every call of a turn that ran several (``RunTools``), in the order written."""

    @property
    def action(self) -> Action | None:
        return self.decision.action if isinstance(self.decision, (RunTool, RunTools)) else None


@dataclass(frozen=True)
class Totals:
    steps: int = 0
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    tool_seconds: float = 0.0
    engine_seconds: float = 0.0
    """Wall time not spent in the model or in tools: the loop's own cost."""
    wall_seconds: float = 0.0


@dataclass(frozen=True)
class RunResult:
    question: str
    status: str
    answer: str
    """The final answer when ``status == "answered"``; otherwise why the run stopped."""
    reason: str
    steps: tuple[StepRecord, ...]
    totals: Totals
    trace_path: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "answered"


def totals(records: Sequence[StepRecord], wall: float) -> Totals:
    """The run's totals from its steps; engine time is the wall time the model and tools did not take."""
    model = sum(r.model_seconds for r in records)
    tools = sum(r.tool_seconds for r in records)
    return Totals(
        steps=len(records),
        prompt_tokens=sum(r.prompt_tokens for r in records),
        evaluated_tokens=sum(r.evaluated_tokens for r in records),
        completion_tokens=sum(r.completion_tokens for r in records),
        model_seconds=model,
        tool_seconds=tools,
        engine_seconds=max(0.0, wall - model - tools),
        wall_seconds=wall,
    )
