"""What ``review`` reads (a turn and the run it belongs to) and what it returns (one correction).

Why apart from ``review``: the check modules (``answers``, ``grounding``, ``declines``) build a ``Nudge``
and read a ``Situation``, and ``review`` imports them; the data lives below both. The loop and the shim
each fill a ``Situation`` from their own state; where they gate a check differently, the difference is a
field here, named and documented, not a second orchestrator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..redaction import SECRET_FIELDS
from ..types import Step
from .registry import ALL_CHECKS, DEFAULT_CHECKS, CheckName

__all__ = ["Calls", "HeldValues", "Nudge", "Reading", "Situation"]

Calls = tuple[tuple[str, dict], ...]
"""(tool, arguments) of each call a reply makes, in order: what the shim's steps and fills pass along."""

HeldValues = tuple[tuple[str, tuple[str, ...]], ...]
"""(argument, the values it may take) for a held call (``Nudge.hold_values``)."""


@dataclass(frozen=True)
class Nudge:
    """One correction: ``code`` names the check (each fires once per run), ``message`` is the observation."""

    code: CheckName
    message: str
    lead: str = ""
    """Words the next thought starts with, when the correction has them."""
    hold: str = ""
    """The tool the correction tells the model to call: the host holds the next turn to a call of it
    (``checks.hold``); empty when the correction names none or ``held_call`` is off."""
    hold_values: HeldValues = ()
    """(argument, the values it may take) for the held call: the correction knows what the call is for and
    leaves the model the choice among those values only; empty leaves every argument to the schema."""


@dataclass(frozen=True)
class Reading:
    """One model turn as the checks read it: its calls, or its final answer, or (neither) the unusable step."""

    text: str = ""
    """The whole turn, where a sum worked out in words is found (``arithmetic``)."""
    calls: tuple[tuple[str, Any], ...] = ()
    """(tool, arguments) of each call the turn makes that the host will run."""
    answer: str | None = None
    refusal: bool = False
    """Whether ``answer`` declines, as the host judges it (a refusal is asked for no tool nor number)."""
    step: Step | None = None
    """The parsed turn, read for a reach to a tool offered nowhere when it has neither call nor answer."""


@dataclass(frozen=True)
class Situation:
    """The run so far, as the checks need it. Defaults are the loop's gates."""

    question: str = ""
    tool_names: tuple[str, ...] = ()
    observations: tuple[str, ...] = ()
    """Every tool result the model was shown, failures included, oldest first."""
    real_observations: int = 0
    """How many of them were successful results."""
    example_values: frozenset[str] = frozenset()
    """Numbers written in the shown episodes' observations and answers (digits only)."""
    nudged: frozenset[str] = frozenset()
    """Codes of the checks that already fired (or count as fired)."""
    require_observation: bool = True
    lang: str = "en"
    checks: frozenset[CheckName] = DEFAULT_CHECKS
    """Which checks run (``checks.registry``); drop a name to switch one off."""
    grounds: tuple[str, ...] = ()
    """What call values may come from (``grounding``): the question, the results, the instructions."""
    example_arguments: tuple[str, ...] = ()
    """The shown episodes' call arguments: what a copied call would pass."""
    example_tools: frozenset[str] = frozenset()
    """Tools the shown episodes call that the run does not offer (``declines.reached_for``)."""
    schemas: Mapping[str, Any] = field(default_factory=dict)
    defaults_checked: bool = False
    """The shim's gate: ``ungrounded`` reads a call without its schema, so an enum member or a default the
    request never names counts as made up too (its demo call shows them, and a model that fits no tool copies
    them). Measured: reading the schema there lost 1 of 67 fresh BFCL items and gained none."""
    secret_fields: frozenset[str] = SECRET_FIELDS
    pick: tuple[str, str] | None = None
    """The tool the question's words clearly name and its description, while the first move is still to come."""
    named: tuple[tuple[str, str], ...] = ()
    """The tools the question's words name as clearly, best first, when they name two or more and so no one
    ``pick`` (the shim, while the first move is still to come): a request in several parts."""
    unfit: bool = False
    """The question meets none of the tools, and a first call is still to be questioned (``declines.unfit_nudge``)."""
    call_arguments: tuple[str, ...] = ()
    """What every call run so far passed, as text (``unused_number``); the shim, which sees one turn, has none."""
    calls_made: tuple[tuple[str, str], ...] = ()
    """(tool, observation code) of every call run so far, oldest first (``after_failure``)."""
    exempt_tools: frozenset[str] = frozenset()
    """The host's own tools (the loop's ``list_tools``): a call to one is never questioned by the call checks
    after ``arithmetic``, and while one is offered a reach for a tool offered nowhere is no decline."""
    choice_covers_answers: bool = False
    """The shim's gate: ``tool_choice`` questions a first answer too (after the answer checks), and not once
    ``no_observation`` has asked for a tool. The loop questions only a first call."""
    leads_for: frozenset[CheckName] = ALL_CHECKS
    """The checks whose lead the host writes into the next thought; the shim writes only ``tool_choice``'s."""
