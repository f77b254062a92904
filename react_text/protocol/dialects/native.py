"""The model's own tool-call format: ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``; the answer is plain text.

The prompt of this dialect is the model's chat template (``react_text/prompting/native.py``), so
its labels are never shown; what it writes is what the parser and the grammar take as canonical.
The parser reads every family's native form whatever the dialect (``react_text/protocol/native.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Args
from ..lines import SPECIAL_TOKENS
from .base import Dialect, json_text


@dataclass(frozen=True)
class Native(Dialect):
    def write_action(self, tool: str, args: Args, n: int = 1) -> str:
        return f"<tool_call>\n{json_text({'name': tool, 'arguments': args})}\n</tool_call>"

    def write_final(self, answer: str, n: int = 1) -> str:
        return answer

    def write_thought(self, thought: str, n: int = 1) -> str:
        return thought

    def write_observation(self, text: str, n: int = 1) -> str:
        return text


DIALECT = Native("native", "", "", SPECIAL_TOKENS, shape="native")
"""Stops: the chat special tokens that end a turn, when the backend passes them through as text."""
