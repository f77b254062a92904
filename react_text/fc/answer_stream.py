"""Passing a final answer on while the model is still writing it, without ever taking text back."""

from __future__ import annotations

from typing import Callable

from ..types import Step

__all__ = ["AnswerStream"]


class AnswerStream:
    """Passes on a turn's final answer while the model writes it, once the turn is clearly an answer.

    Each new piece re-reads the turn so far with ``read`` (the same parse the
    verdict will use). Only the answer's settled part goes out: its finished
    lines, or on its first line everything up to the last letter or digit (a
    closing quote or brace may still turn out to be syntax), and only while it
    extends what already went out, so the pieces stay a prefix of the answer
    the finished turn yields. A turn that is a call, or prose without an answer
    label, sends nothing.
    """

    def __init__(self, lead: str, read: Callable[[str], Step], on_content: Callable[[str], None]) -> None:
        self.lead = lead
        self.text = ""
        self.sent = ""
        self._read = read
        self._on_content = on_content

    def __call__(self, piece: str) -> None:
        self.text += piece
        step = self._read(self.lead + self.text)
        answer = step.final_answer
        if answer is None or step.actions or "prose_as_final" in step.repairs:
            return
        answer = answer.lstrip()
        cut = answer.rfind("\n")
        if cut >= 0:
            settled = answer[:cut].rstrip()
        else:
            last = max((i for i, ch in enumerate(answer) if ch.isalnum()), default=-1)
            settled = answer[:last + 1]
        if len(settled) > len(self.sent) and settled.startswith(self.sent):
            self._on_content(settled[len(self.sent):])
            self.sent = settled
