"""How each protocol style writes an action, a final answer and an observation.

One table serves the templates (to render few-shot examples in any style), the
grammar builder (to constrain a turn to a style) and the parser's round-trip
tests (what we render, we must read back). The parser itself reads far more
than these canonical forms.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .jsonish import dumps
from ..types import Args

FINAL_TOOL = "Final Answer"


@dataclass(frozen=True)
class Dialect:
    name: str
    thought: str
    """Label that opens a turn, e.g. ``Thought:``; ``{n}`` is the step number."""
    observation: str
    """Label in front of a tool result; ``{n}`` is the step number."""
    stop: tuple[str, ...]
    """Every label the model could use to start writing its own observation
    or a new question; generation must stop at each of them."""


_EN_STOPS = (
    "\nObservation:",
    "\nObservation ",
    "\nObservation：",
    "\nObs:",
    "\n**Observation",
    "\nQuestion:",
    "\n观察",
)

DIALECTS: dict[str, Dialect] = {
    "classic": Dialect("classic", "Thought:", "Observation:", _EN_STOPS),
    "json": Dialect("json", "Thought:", "Observation:", _EN_STOPS),
    "call": Dialect("call", "Thought:", "Observation:", _EN_STOPS),
    "paper": Dialect("paper", "Thought {n}:", "Observation {n}:", _EN_STOPS),
    "zh": Dialect(
        "zh",
        "思考：",
        "观察：",
        ("\n观察", "\nObservation", "\n问题：", "\nQuestion:"),
    ),
}


_INDENTED = json.JSONEncoder(ensure_ascii=False, indent=2)  # built once, like jsonish.dumps's encoder


def _json(value: object) -> str:
    return dumps(value)


def _single_value(args: Args) -> str | None:
    """The lone argument as text, when the call has exactly one string-like value."""
    if isinstance(args, str):
        return args
    if len(args) == 1:
        (value,) = args.values()
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
    return None


def _python_literal(value: object) -> str:
    if isinstance(value, str):
        return _json(value)
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    return _json(value)


def format_action(dialect: str, tool: str, args: Args, n: int = 1) -> str:
    """The canonical text of one action (without the thought) in ``dialect``."""
    if dialect == "classic":
        return f"Action: {tool}\nAction Input: {_json(args)}"
    if dialect == "zh":
        return f"行动：{tool}\n行动输入：{_json(args)}"
    if dialect == "json":
        blob = {"action": tool, "action_input": args}
        return "Action:\n```json\n" + _INDENTED.encode(blob) + "\n```"
    if dialect == "call":
        if isinstance(args, str):
            inner = _json(args)
        else:
            inner = ", ".join(f"{k}={_python_literal(v)}" for k, v in args.items())
        return f"Act: {tool}({inner})"
    if dialect == "paper":
        single = _single_value(args)
        inner = single if single is not None else _json(args)
        return f"Action {n}: {tool}[{inner}]"
    raise ValueError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")


def format_final(dialect: str, answer: str, n: int = 1) -> str:
    """The canonical text of a final answer in ``dialect``."""
    if dialect in ("classic", "call"):
        return f"Final Answer: {answer}"
    if dialect == "zh":
        return f"最终答案：{answer}"
    if dialect == "json":
        blob = {"action": FINAL_TOOL, "action_input": answer}
        return "Action:\n```json\n" + _INDENTED.encode(blob) + "\n```"
    if dialect == "paper":
        return f"Action {n}: Finish[{answer}]"
    raise ValueError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")


def _label(label: str, text: str) -> str:
    """A label and its text; a full-width colon takes no space after it."""
    return f"{label}{text}" if label.endswith("：") else f"{label} {text}"


def format_thought(dialect: str, thought: str, n: int = 1) -> str:
    return _label(DIALECTS[dialect].thought.format(n=n), thought)


def format_observation(dialect: str, text: str, n: int = 1) -> str:
    return _label(DIALECTS[dialect].observation.format(n=n), text)
