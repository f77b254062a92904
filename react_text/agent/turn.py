"""One model turn: asking the backend for it, and reading what the model wrote.

Asking is I/O (the backend, the clock, the ``model_turn`` event); reading is
pure: the parsed step, refused when the token limit cut its action short, and
the part of it that stays in the scratchpad.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..backends.base import Backend, complete_streaming
from ..prompting.opening import parse_turn
from ..types import Completion, Observation, Step
from .decisions import Decision
from .events import Events
from .policy import flag_truncation, kept_text, wants_label
from .results import CallRecord, StepRecord


@dataclass(frozen=True)
class Turn:
    """A model turn as the loop uses it: the completion, its parse, and what the scratchpad keeps."""

    completion: Completion
    step: Step
    kept: str
    seconds: float
    max_tokens: int
    continued: bool = False

    def record(self, n: int, decision: Decision, observation: Observation | None, shown: str | None,
               tool_seconds: float, calls: tuple[CallRecord, ...]) -> StepRecord:
        """This turn as step ``n`` of the run's record, with what was decided and observed."""
        c = self.completion
        return StepRecord(
            n=n, text=c.text, kept=self.kept, step=self.step, decision=decision, observation=observation,
            observation_text=shown, prompt_tokens=c.prompt_tokens, evaluated_tokens=evaluated(c),
            completion_tokens=c.completion_tokens, finish_reason=c.finish_reason, model_seconds=self.seconds,
            tool_seconds=tool_seconds, calls=calls,
        )


def evaluated(c: Completion) -> int:
    """Prompt tokens the backend evaluated for ``c`` (all of them when it does not say; a cache hit evaluates fewer)."""
    return c.prompt_tokens if c.evaluated_tokens is None else c.evaluated_tokens


def joined(first: Completion, more: Completion) -> Completion:
    """``first`` continued by ``more`` after a line break, as one completion of the same turn."""
    return Completion(
        text=first.text.rstrip() + "\n" + more.text,
        prompt_tokens=first.prompt_tokens,
        completion_tokens=first.completion_tokens + more.completion_tokens,
        evaluated_tokens=evaluated(first) + evaluated(more),
        finish_reason=more.finish_reason,
        seconds=first.seconds + more.seconds,
        extra=first.extra,
    )


def ask_model(backend: Backend, prompt: str, n: int, events: Events, clock: Callable[[], float], *,
              on_token: Callable[[str], None] | None, **options: Any) -> tuple[Completion, float]:
    """The completion of turn ``n`` (streamed to ``on_token``) and the seconds it took; emits ``model_turn``."""
    t0 = clock()
    completion = complete_streaming(backend, prompt, on_token, **options)
    seconds = clock() - t0
    events.emit(
        "model_turn",
        n=n,
        text=completion.text,
        prompt_tokens=completion.prompt_tokens,
        evaluated_tokens=evaluated(completion),
        completion_tokens=completion.completion_tokens,
        finish_reason=completion.finish_reason,
        seconds=seconds,
        backend_seconds=completion.seconds,
        extra=completion.extra,
    )
    return completion, seconds


def ask_to_go_on(backend: Backend, prompt: str, completion: Completion, n: int, events: Events,
                 clock: Callable[[], float], *, on_token: Callable[[str], None] | None,
                 **options: Any) -> tuple[Completion, float]:
    """Turn ``n`` continued after a line break (see ``policy.wants_label``), joined to what the
    model wrote before it; the trace gets the extra prompt as a delta and its own ``model_turn``."""
    opened = prompt + completion.text.rstrip() + "\n"
    events.emit("prompt", n=n, chars=len(opened), delta=opened[len(prompt):], reason="label_left_out")
    if on_token is not None:
        on_token("\n")  # a live view shows the turn as it is joined
    more, seconds = ask_model(backend, opened, n, events, clock, on_token=on_token, **options)
    return joined(completion, more), seconds


def take_turn(backend: Backend, template: Any, prompt: str, n: int, events: Events, clock: Callable[[], float], *,
              specs: Sequence[Any], prose: str, lang: str, lead: str,
              on_token: Callable[[str], None] | None, go_on: bool = True, **options: Any) -> Turn:
    """Turn ``n`` asked, read and, when the model stopped after its thought without writing the
    label that follows it (``policy.wants_label``; never under a grammar, nor with ``go_on`` off: the
    ``continuation`` check), asked once to go on.
    ``prompt`` already ends with ``lead``; ``options`` go to the backend (``max_tokens``, ...)."""
    max_tokens = options["max_tokens"]
    if lead and on_token is not None:
        on_token(lead)  # a live console shows the thought as the transcript will: lead first
    completion, seconds = ask_model(backend, prompt, n, events, clock, on_token=on_token, **options)
    step, kept = read_turn(template, completion, n, specs, prose=prose, lang=lang, max_tokens=max_tokens, lead=lead)
    continued = go_on and options.get("grammar") is None and wants_label(step, completion.finish_reason)
    if continued:
        more = {**options, "max_tokens": max(1, max_tokens - completion.completion_tokens)}
        completion, more_seconds = ask_to_go_on(backend, prompt, completion, n, events, clock, on_token=on_token,
                                                **more)
        seconds += more_seconds
        step, kept = read_turn(template, completion, n, specs, prose=prose, lang=lang, max_tokens=max_tokens,
                               lead=lead)
    events.emit("step", n=n, step=step, kept=kept)
    return Turn(completion, step, kept, seconds, max_tokens, continued)


def read_turn(template: Any, completion: Completion, n: int, specs: Sequence[Any], *, prose: str, lang: str,
              max_tokens: int, lead: str = "") -> tuple[Step, str]:
    """The parsed step of turn ``n`` (after its label, and after ``lead`` when the loop opened the
    thought for the model) and the trusted part that stays in the scratchpad. Pure."""
    step = flag_truncation(parse_turn(template, lead + completion.text, n, specs, prose=prose, lang=lang),
                           completion.finish_reason, max_tokens)
    return step, kept_text(step, len(template.turn_prefix(n)))
