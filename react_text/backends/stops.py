"""Cutting generated text at stop sequences, the same way for every backend.

Servers differ in how they honour ``stop`` (some cap the list at four, some
keep the stop string); cutting client-side too makes every backend return
exactly the text before the earliest stop string.
"""

from __future__ import annotations

from typing import Sequence


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
