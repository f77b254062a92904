"""Writing a folded conversation back as prompt text: past turns in the template's own dialect.

Rendering is deterministic, so while a client loops on tool results each
prompt only *appends* to the previous one and llama.cpp reuses its cached
prefix. A past turn's thought is the assistant's ``content`` next to its
calls, or a neutral one when it sent none; several results are joined as
``name: result`` lines.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..lexicon.zh import is_chinese
from ..protocol.dialects import format_action, format_thought
from .folding import HistoryTurn

__all__ = ["render_turn", "render_scratchpad"]


def render_turn(template: Any, thought: str, calls: Sequence[tuple[str, dict | str]], n: int) -> str:
    """Text of an assistant turn the way the model would have written it after the turn label."""
    actions = "\n".join(format_action(template.dialect, name, args, n) for name, args in calls)
    return _thought_text(template, thought, n) + "\n" + actions


def render_scratchpad(template: Any, turns: Sequence[HistoryTurn]) -> str:
    """Past turns and their observations, ready to append to the rendered prompt."""
    out = []
    for n, turn in enumerate(turns, start=1):
        thought = turn.thought or _default_thought(template, [c.name for c in turn.calls])
        out.append(render_turn(template, thought, [(c.name, c.args) for c in turn.calls], n))
        out.append(template.observation(_observation_text(turn), n))
    return "".join(out)


def _default_thought(template: Any, names: Sequence[str]) -> str:
    joined = ", ".join(names)
    if is_chinese(getattr(template, "language", "en")):
        return f"我将调用 {joined}。"
    return f"I will call {joined}."


def _thought_text(template: Any, thought: str, n: int) -> str:
    """What follows the turn label for ``thought`` (usually ``" " + thought``)."""
    prefix = template.turn_prefix(n)
    full = format_thought(template.dialect, thought, n)
    return full[len(prefix):] if full.startswith(prefix) else f" {thought}"


def _observation_text(turn: HistoryTurn) -> str:
    if len(turn.calls) == 1:
        return turn.results[0]
    return "\n".join(f"{call.name}: {result}" for call, result in zip(turn.calls, turn.results))
