"""Cutting generated text at stop sequences, the same way for every backend.

Servers differ in how they honour ``stop`` (some cap the list at four, some
keep the stop string); cutting client-side too makes every backend return
exactly the text before the earliest stop string.
"""

from __future__ import annotations

from typing import Callable, Sequence


def find_stop(text: str, stop: Sequence[str], start: int = 0) -> int:
    """Offset of the earliest stop string in ``text[start:]`` (as an index into ``text``), or -1."""
    best = -1
    for s in stop:
        if not s:
            continue
        i = text.find(s, start)
        if i != -1 and (best == -1 or i < best):
            best = i
    return best


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """``text`` up to (not including) its earliest stop string, and whether one was found."""
    i = find_stop(text, stop)
    return (text, False) if i == -1 else (text[:i], True)


def held_back(text: str, stop: Sequence[str]) -> int:
    """How many trailing characters of ``text`` could still grow into a stop string (0 when none can).

    ``"...\\nObserv"`` holds back 7 with ``"\\nObservation:"`` among the stops:
    whether it is the model's own text or the start of a made-up observation
    is known only once more text arrives.
    """
    held = 0
    for s in stop:
        for k in range(min(len(s) - 1, len(text)), held, -1):
            if text.endswith(s[:k]):
                held = k
                break
    return held


class StopCutter:
    """Text that arrives in pieces, cut at the earliest stop string, passed on only once it is safe.

    ``feed`` returns True once a stop string appeared (``text`` then ends
    before it). ``on_text`` receives the text no stop string can still claim:
    a partial ``"\\nObservation"`` is held back until the next piece shows what
    it is, so a listener never sees text the completion will not contain.
    After ``close()`` the pieces it received join to exactly ``text``.
    """

    def __init__(self, stop: Sequence[str], on_text: Callable[[str], None] | None = None) -> None:
        self.stop = [s for s in stop if s]
        self.text = ""
        self.stopped = False
        self._longest = max((len(s) for s in self.stop), default=0)
        self._on_text = on_text
        self._sent = 0

    def feed(self, piece: str) -> bool:
        if self.stopped:
            return True
        scanned = len(self.text)
        self.text += piece
        hit = find_stop(self.text, self.stop, max(0, scanned - self._longest + 1)) if self.stop else -1
        if hit != -1:
            self.text = self.text[:hit]
            self.stopped = True
            self._send(hit)
            return True
        self._send(len(self.text) - held_back(self.text, self.stop))
        return False

    def close(self) -> None:
        """The text is complete (end of generation or token limit): pass on what was held back."""
        self._send(len(self.text))

    def _send(self, end: int) -> None:
        if end <= self._sent:
            return
        piece, self._sent = self.text[self._sent:end], end
        if self._on_text is not None:
            self._on_text(piece)
