"""The LangChain layout: ``Action: tool`` then ``Action Input: {json}``; ``Final Answer: ...``.

Any dialect of this shape in other words is the same class with other labels (``zh.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Args
from .base import EN_STOPS, Dialect, json_text


@dataclass(frozen=True)
class Labelled(Dialect):
    """A tool line and an arguments line, each under its label; the answer under its own."""

    def write_action(self, tool: str, args: Args, n: int = 1) -> str:
        return f"{self.action_label}{tool}\n{self.input_label}{json_text(args)}"

    def write_final(self, answer: str, n: int = 1) -> str:
        return f"{self.final_label}{answer}"


DIALECT = Labelled("classic", "Thought:", "Observation:", EN_STOPS)
