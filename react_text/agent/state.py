"""What the loop's pure policy reads: the run's bounds and where the run stands, as plain data.

``RunState`` changes only through ``policy.advance``; nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..checks import DEFAULT_CHECKS, CheckName
from ..redaction import SECRET_FIELDS


@dataclass(frozen=True)
class Limits:
    """Every bound on a run; the loop checks them, never the model."""

    max_steps: int = 8
    max_total_tokens: int = 8192
    timeout_s: float = 180.0
    tool_timeout_s: float = 10.0
    max_turn_tokens: int = 256
    """Per model turn. A turn under a grammar (``constrain=True``) may run to the
    grammar's own length bound instead, so it is never cut off half-written."""
    max_format_errors: int = 3
    max_tool_retries: int = 2
    max_observation_chars: int = 2000
    max_parallel_tools: int = 1
    """1: only a turn's first action runs. More: every action of a turn runs,
    this many at once (tools with side effects alone, in order)."""
    context_tokens: int | None = None
    """The context window the prompt must fit; None asks the backend (and
    without an answer, nothing is counted)."""

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_total_tokens", "max_turn_tokens", "max_format_errors", "max_observation_chars",
                     "max_parallel_tools"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1, got {getattr(self, name)!r}")
        for name in ("timeout_s", "tool_timeout_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Limits.{name} must be positive, got {getattr(self, name)!r}")
        if self.max_tool_retries < 0:
            raise ValueError(f"Limits.max_tool_retries must be 0 or more, got {self.max_tool_retries!r}")
        if self.context_tokens is not None and self.context_tokens < 1:
            raise ValueError(f"Limits.context_tokens must be at least 1 or None, got {self.context_tokens!r}")


@dataclass(frozen=True)
class Seen:
    """A call already made: its fingerprint and what the model was shown."""

    fingerprint: str
    text: str
    rerunnable: bool
    """A failure that may succeed next time (timeout, bad arguments)."""
    step: int = 0
    """The step that made the call (0: unknown)."""
    tool: str = ""
    """The tool called."""
    code: str = "ok"
    """The observation's code (``ok``, ``tool_error``, ``bad_arguments``, ...)."""


@dataclass(frozen=True)
class RunState:
    """Everything ``decide`` and ``check_limits`` need, as plain data."""

    limits: Limits = Limits()
    tool_names: tuple[str, ...] = ()
    steps: int = 0
    tokens: int = 0
    format_errors: int = 0
    empty_turns: int = 0
    failing_tool: str | None = None
    tool_failures: int = 0
    repeats: int = 0
    """No-progress nudges given since the last new call."""
    observation_nudged: bool = False
    real_observations: int = 0
    seen: tuple[Seen, ...] = ()
    last_observation: str | None = None
    question: str = ""
    lang: str = "en"
    """The language corrections are worded in: the template's."""
    example_values: frozenset[str] = frozenset()
    """Numbers (and answers that are names) shown in the few-shot episodes (``episodes.episode_values``)."""
    nudged: frozenset[str] = frozenset()
    """Answer checks (``checks.answers``) and the call checks (``grounding``) that already fired; each fires once."""
    example_arguments: tuple[str, ...] = ()
    """The shown episodes' call arguments (``episodes.episode_arguments``)."""
    example_tools: frozenset[str] = frozenset()
    """Tools the shown episodes call that the run does not offer: a call to one is a copy, not a decline
    (``declines.reached_for``)."""
    schemas: Mapping[str, Any] = field(default_factory=dict)
    """Each tool's JSON schema of parameters, by name."""
    secret_fields: frozenset[str] = SECRET_FIELDS
    """Argument names whose values are secrets (``redaction``): never checked by ``grounding``,
    so a correction never quotes one."""
    pick: tuple[str, str] | None = None
    """The tool the question's words clearly name, and its description (``ShownTools.pick``): a first call
    to another tool is questioned once (``grounding.choice_nudge``)."""
    checks: frozenset[CheckName] = DEFAULT_CHECKS
    """The checks and leads this run applies (``checks.registry``; ``Agent(checks=...)``)."""
    unfit: bool = False
    """The question meets none of the tools (``ShownTools.unfit``): a first call is questioned once
    (``declines.unfit_nudge``)."""
