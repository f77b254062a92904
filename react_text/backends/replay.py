"""A backend that plays back the model turns of a recorded trace.

Re-running a trace through the same template and tools with this backend
reproduces the run without the model: same prompts, same turns, same decisions.
With ``verify`` (the default) every prompt it is sent must equal the recorded
one, so a change in the template, the parser or the loop that alters the
conversation shows up as a clear divergence error at the first differing turn,
instead of a run that silently drifts.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from ..trace import iter_events, prompts_from_events, read_trace
from ..types import Completion
from .base import BackendError

_CONTEXT = 40


class ReplayBackend:
    """Feeds ``turns`` back in order; ``prompts`` are what each turn was asked with."""

    supports_grammar = True

    def __init__(
        self,
        turns: Sequence[dict[str, Any]],
        prompts: Sequence[str] | None = None,
        *,
        wrap: tuple[str, str] | None = None,
        rendered: str | None = None,
        wrapped: str | None = None,
        name: str = "replay",
        verify: bool = True,
    ) -> None:
        self.name = name
        self.verify = verify and prompts is not None
        self._turns = list(turns)
        self._prompts = list(prompts) if prompts is not None else None
        self._wrap = wrap
        self._rendered = rendered
        self._wrapped = wrapped
        self._next = 0

    @classmethod
    def from_trace(cls, path: str | os.PathLike[str], *, verify: bool = True) -> "ReplayBackend":
        events = read_trace(path)
        turns = list(iter_events(events, "model_turn"))
        prompts = prompts_from_events(events)
        first = next(iter_events(events, "prompt"), {})
        start = next(iter_events(events, "run_start"), {})
        wrap = tuple(first["wrap"]) if "wrap" in first else None
        return cls(
            turns,
            prompts,
            wrap=wrap,  # type: ignore[arg-type]
            rendered=first.get("rendered"),
            wrapped=first.get("wrapped"),
            name=f"replay:{start.get('backend', '?')}",
            verify=verify,
        )

    @property
    def remaining(self) -> int:
        return len(self._turns) - self._next

    def wrap_prompt(self, prompt: str) -> str:
        """Wrap as the recorded backend did (its chat template around the render)."""
        if self._wrap is not None:
            return self._wrap[0] + prompt + self._wrap[1]
        if self._rendered is not None and self._wrapped is not None:
            if self.verify and prompt != self._rendered:
                raise BackendError(_divergence("the rendered template", self._rendered, prompt))
            return self._wrapped
        return prompt

    def complete(
        self,
        prompt: str,
        *,
        stop: Sequence[str] = (),
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int = 0,
        grammar: str | None = None,
    ) -> Completion:
        i = self._next
        if i >= len(self._turns):
            raise BackendError(f"replay exhausted: the trace has {len(self._turns)} model turn(s)")
        if self.verify and self._prompts is not None:
            if i >= len(self._prompts):
                raise BackendError(f"replay diverged at {_turn_name(self._turns, i)}: the trace has no prompt for it")
            if prompt != self._prompts[i]:
                raise BackendError(_divergence(f"{_turn_name(self._turns, i)}'s prompt", self._prompts[i], prompt))
        self._next += 1
        turn = self._turns[i]
        return Completion(
            text=turn.get("text", ""),
            prompt_tokens=int(turn.get("prompt_tokens", 0)),
            completion_tokens=int(turn.get("completion_tokens", 0)),
            evaluated_tokens=turn.get("evaluated_tokens"),
            finish_reason=turn.get("finish_reason", "stop"),
            seconds=float(turn.get("backend_seconds", 0.0) or 0.0),
            extra=dict(turn.get("extra") or {}),
        )


def _turn_name(turns: Sequence[dict[str, Any]], i: int) -> str:
    """Backend call ``i`` as the trace numbers it: its turn ``n``, and whether it continued that turn
    (a turn asked to go on, ``policy.wants_label``, takes two calls with the same ``n``)."""
    n = turns[i].get("n", i + 1)
    again = any(t.get("n", j + 1) == n for j, t in enumerate(turns[:i]))
    return f"model turn {n}" + (" (asked to go on)" if again else "")


def _divergence(what: str, expected: str, got: str) -> str:
    at = next((k for k, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    lo = max(0, at - _CONTEXT)
    return (
        f"replay diverged: {what} differs from the recording at character {at} "
        f"(recorded {len(expected)} chars, got {len(got)}): "
        f"expected {expected[lo:at + _CONTEXT]!r}, got {got[lo:at + _CONTEXT]!r}"
    )
