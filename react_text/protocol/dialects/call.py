"""A Python-style call on one line, ``Act: tool(key=value)``; ``Final Answer: ...``."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Args
from .base import EN_STOPS, Dialect, json_text


def _python_literal(value: object) -> str:
    """A keyword value as Python writes it: strings and containers as JSON, ``None``/``True``/``False``."""
    if isinstance(value, str):
        return json_text(value)
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    return json_text(value)


@dataclass(frozen=True)
class Call(Dialect):
    def write_action(self, tool: str, args: Args, n: int = 1) -> str:
        if isinstance(args, str):
            inner = json_text(args)
        else:
            inner = ", ".join(f"{k}={_python_literal(v)}" for k, v in args.items())
        return f"{self.action_label}{tool}({inner})"

    def write_final(self, answer: str, n: int = 1) -> str:
        return f"{self.final_label}{answer}"


DIALECT = Call("call", "Thought:", "Observation:", EN_STOPS, shape="call", action_label="Act: ")
