"""The ReAct paper's layout: numbered ``Action 2: tool[argument]`` and ``Finish[answer]``."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Args
from .base import EN_STOPS, Dialect, json_text


def _single_value(args: Args) -> str | None:
    """The lone argument as text, when the call has exactly one string-like value."""
    if isinstance(args, str):
        return args
    if len(args) == 1:
        (value,) = args.values()
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
    return None


@dataclass(frozen=True)
class Paper(Dialect):
    def write_action(self, tool: str, args: Args, n: int = 1) -> str:
        single = _single_value(args)
        inner = single if single is not None else json_text(args)
        return f"Action {n}: {tool}[{inner}]"

    def write_final(self, answer: str, n: int = 1) -> str:
        return f"Action {n}: Finish[{answer}]"


DIALECT = Paper("paper", "Thought {n}:", "Observation {n}:", EN_STOPS, shape="paper")
