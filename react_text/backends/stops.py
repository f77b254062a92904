"""Cutting generated text at stop sequences, the same way for every backend.

Servers differ in how they honour ``stop`` (some cap the list at four, some
keep the stop string); cutting client-side too makes every backend return
exactly the text before the earliest stop string.
"""

from __future__ import annotations

import io
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
        self.stopped = False
        self._longest = max((len(s) for s in self.stop), default=0)
        self._on_text = on_text
        self._buffer = io.StringIO()  # the text: appending to a str attribute would copy it every time
        self._length = 0
        self._tail = ""  # its last characters, where a stop string may have begun
        self._sent = 0

    @property
    def text(self) -> str:
        return self._buffer.getvalue()

    def feed(self, piece: str) -> bool:
        """Only the new piece and the tail before it are searched, so a long text costs its length once."""
        if self.stopped:
            return True
        start = self._length - len(self._tail)  # where ``window`` begins in the text
        window = self._tail + piece
        self._buffer.write(piece)
        self._length += len(piece)
        hit = find_stop(window, self.stop) if self.stop else -1
        if hit != -1:
            self._length = start + hit
            self._buffer.truncate(self._length)
            self.stopped = True
            self._send(window, start, self._length)
            return True
        self._tail = window[max(0, len(window) - self._longest + 1):] if self._longest > 1 else ""
        self._send(window, start, self._length - held_back(window, self.stop))
        return False

    def close(self) -> None:
        """The text is complete (end of generation or token limit): pass on what was held back."""
        self._send(self.text, 0, self._length)

    def _send(self, window: str, start: int, end: int) -> None:
        """Pass on the text up to ``end``; ``window`` holds the text from ``start`` (nothing unsent lies before it)."""
        if end <= self._sent:
            return
        piece, self._sent = window[self._sent - start:end - start], end
        if self._on_text is not None:
            self._on_text(piece)
