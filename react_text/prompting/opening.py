"""Opening a turn, the one way the agent and the function-calling shim both do it: the prompt a run
starts from (the rendered template, wrapped for the model), a conversation's next question, and
reading the model's reply after the turn's label.

The scratchpad only grows after this: each turn appends the kept part of the
model's turn and the observation, so the prompt of turn n+1 starts with the
exact text of turn n's prompt and llama.cpp's prefix cache stays warm.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..protocol.parser import parse
from ..types import Step


def first_prompt(template: Any, wrap_prompt: Callable[[str], str], tools: Sequence[Any], examples: Any,
                 instructions: str, question: str) -> tuple[str, dict[str, Any]]:
    """The wrapped prompt, and how it was wrapped (for the trace, so a replay wraps alike).

    An instruct model gets the instructions as its user message and the
    first turn's label (``Thought:``) inside its own assistant turn, so the
    very first tokens it writes already continue the protocol.
    """
    if getattr(template, "whole_chat", False):  # the model's own chat template: already the model's whole prompt
        return template.render(question, list(tools), examples, instructions=instructions), {"wrap": ["", ""]}
    rendered = template.render(question, list(tools), examples)
    if instructions:
        rendered = f"{instructions}\n\n{rendered}"
    label = template.turn_prefix(1)
    body = rendered[: len(rendered) - len(label)] if rendered.endswith(label) else rendered
    wrapped = wrap_prompt(body)
    if wrapped == body:
        return rendered, {"wrap": ["", ""]}
    return wrapped + label, wrap_parts(body, wrapped)


def follow_up(template: Any, tools: Sequence[Any], examples: Any, history: str,
              question: str) -> tuple[str, dict[str, Any]]:
    """The next question of a conversation, appended to its scratchpad in the template's own words.

    The question line is cut from the template rendered around a marker,
    so it reads exactly like the first question (``Question: ...``,
    ``问题：...``) and ends with the label that opens the model's turn.
    """
    marker = "\ue000"
    rendered = template.render(marker, list(tools), examples)
    at = rendered.rfind(marker)
    tail = rendered[rendered.rfind("\n", 0, at) + 1:] if at >= 0 else f"{marker}\n{template.turn_prefix(1)}"
    return f"{history}\n\n{tail.replace(marker, question.strip())}", {"continues": len(history)}


def wrap_parts(rendered: str, wrapped: str) -> dict[str, Any]:
    """How the backend wrapped the rendered prompt, so a replay can wrap the same way."""
    at = wrapped.find(rendered)
    if at < 0:
        return {"rendered": rendered, "wrapped": wrapped}
    return {"wrap": [wrapped[:at], wrapped[at + len(rendered):]]}


def parse_turn(template: Any, text: str, n: int, specs: Any, *, prose: str,
               lang: str | None) -> Step:
    """Turn ``n`` as the model wrote it after its label (``Thought:``), parsed in the template's dialect."""
    return parse(template.turn_prefix(n) + text, specs, prose=prose, dialect=template.dialect, lang=lang, n=n)
