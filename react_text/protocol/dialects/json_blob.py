"""A fenced JSON blob ``{"action", "action_input"}``; the answer is the action ``Final Answer``."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Args
from .base import EN_STOPS, INDENTED, Dialect

FINAL_TOOL = "Final Answer"


def _blob(action: str, action_input: object) -> str:
    return "Action:\n```json\n" + INDENTED.encode({"action": action, "action_input": action_input}) + "\n```"


@dataclass(frozen=True)
class JsonBlob(Dialect):
    def write_action(self, tool: str, args: Args, n: int = 1) -> str:
        return _blob(tool, args)

    def write_final(self, answer: str, n: int = 1) -> str:
        return _blob(FINAL_TOOL, answer)


DIALECT = JsonBlob("json", "Thought:", "Observation:", EN_STOPS, shape="json")
