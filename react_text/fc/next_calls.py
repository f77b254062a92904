"""After a turn's calls, the request's next call or its end, asked for one step at a time (parallel calls).

Why: under the grammar a turn may hold up to ``PARALLEL_CALLS`` calls, but a small model taught one
action per ReAct turn stops after its first call all the same ("the weather in Oslo and Paris" gets
Oslo alone). Shown that call noted, and asked whether the request wants another, it writes the next
one or ends under its final-answer label. Each step is the model's own decision, so a request that
asks for one thing stays one call; a turn that declines (no call) never gets here. Calls keep the
order they were written in; a call written again, an unusable step or an answer ends the turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

from ..prompting.opening import parse_turn
from .request import ToolChoice
from .verdict import judge

__all__ = ["Asking", "next_calls"]

Complete = Callable[[str, Optional[str]], str]
"""The model: (prompt, grammar) -> the text it writes after the prompt."""


@dataclass(frozen=True)
class Asking:
    """How the next calls are asked for: the note each step's observation holds, and the grammar of a
    step (one call of an offered tool, or the end)."""

    note: str
    grammar: str | None
    limit: int  # the most calls the turn may hold in all


def next_calls(calls: tuple[tuple[str, dict], ...], prompt: str, n: int, complete: Complete, asking: Asking, *,
               template: Any, tools: Mapping[str, Any], choice: ToolChoice, example: str,
               lang: str | None) -> tuple[tuple[str, dict], ...]:
    """``calls`` (written in turn ``n``, whose text ends ``prompt``) and the calls the next steps add.

    Each step appends the note as turn ``n``'s observation and lets the model write turn ``n + 1``: a
    call no earlier step made is kept and asked after in turn; anything else ends the turn.
    """
    made = list(calls)
    schemas = {name: tool.parameters for name, tool in tools.items()}
    while len(made) < asking.limit:
        prompt += template.observation(asking.note, n)
        n += 1
        text = complete(prompt, asking.grammar)
        step = parse_turn(template, text, n, schemas, prose="final", lang=lang)
        verdict = judge(step, tools, choice, example)
        fresh = [call for call in verdict.calls if call not in made]
        made += fresh[:asking.limit - len(made)]
        if not fresh or len(fresh) < len(verdict.calls):
            break
        prefix = template.turn_prefix(n)
        prompt += (prefix + text)[len(prefix): max(step.end, len(prefix))]
    return tuple(made)
