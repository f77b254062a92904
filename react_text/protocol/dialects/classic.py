"""The LangChain layout: ``Action: tool`` then ``Action Input: {json}``; ``Final Answer: ...``."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Args
from .base import EN_STOPS, Dialect, json_text


@dataclass(frozen=True)
class Classic(Dialect):
    def write_action(self, tool: str, args: Args, n: int = 1) -> str:
        return f"Action: {tool}\nAction Input: {json_text(args)}"

    def write_final(self, answer: str, n: int = 1) -> str:
        return f"Final Answer: {answer}"


DIALECT = Classic("classic", "Thought:", "Observation:", EN_STOPS)
