"""Numbered search results: the one line format the search tool writes and the checks read.

``[k] source: text``, one result a line. ``tools.search`` writes it; the evidence quote,
the second look and the answer checks read it back. Kept in one place so that writer and
readers cannot drift apart. Another tool that numbers its output the same way
(``[1] name：text``) is read too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ResultLine", "format_result", "numbered", "result_lines"]

_LINE = re.compile(r"^\s*\[(\d{1,2})\]\s*(.+)$")
_SOURCE = re.compile(r"([^:：\s]*)[:：]\s*(.*)$")


@dataclass(frozen=True)
class ResultLine:
    """One numbered result: its number, its source (the file; None when the line names none), its text,
    and the whole line as written after the number."""

    k: int
    source: str | None
    text: str
    line: str


def format_result(k: int, source: str, text: str) -> str:
    """The line for result ``k``."""
    return numbered(k, f"{source}: {text}")


def numbered(k: int, line: str) -> str:
    """``line`` (a result as written after its number) as result ``k``: how a list is numbered anew."""
    return f"[{k}] {line}"


def result_lines(text: str) -> list[ResultLine]:
    """The numbered results in ``text``, in order; other lines are skipped."""
    found = []
    for m in map(_LINE.match, text.splitlines()):
        if m is None:
            continue
        rest = m.group(2).strip()
        source = _SOURCE.match(rest)
        found.append(ResultLine(int(m.group(1)), source.group(1), source.group(2), rest) if source
                     else ResultLine(int(m.group(1)), None, rest, rest))
    return found
