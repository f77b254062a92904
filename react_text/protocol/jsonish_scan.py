"""The lexical level of the lenient JSON-ish reader: whitespace and comments, strings and their
escapes, bare atoms (numbers, literals, unquoted text), and where a value must end.

Why apart from the structure (:mod:`react_text.protocol.jsonish_reader`): these are the
places a model's text is mended character by character (smart and single quotes,
Python literals, comments), each scanned with single-quantifier regexes so the
reading stays linear in the text.
"""

from __future__ import annotations

import re
import sys
from json.decoder import c_scanstring
from typing import Any, Callable, Optional, Protocol

Boundary = Callable[[str, int], bool]
"""``boundary(text, line_start)`` is True when the line starting there ends the
value (a label line such as ``Observation:`` or a closing code fence)."""

_WS = re.compile(r"[\s\u3000]*")


def _string_bodies(p: str) -> dict[str, re.Pattern[str]]:
    """A string's body for each opening quote, its repeats possessive when ``p`` is ``+``."""
    return {
        '"': re.compile(rf'[^"\\]*{p}(?:\\.[^"\\]*{p})*{p}', re.DOTALL),
        "\u201c": re.compile(rf"[^\u201d\\]*{p}(?:\\.[^\u201d\\]*{p})*{p}", re.DOTALL),
        # a ' closes only before a delimiter (so "it's" stays whole); of a run of them only the last can
        "'": re.compile(rf"[^'\\]*{p}(?:(?:\\.|'+(?![ \t]*(?:[,:}}\])\n\r\uff0c\uff1a]|\Z)))[^'\\]*{p})*{p}",
                        re.DOTALL),
    }


def _possessive() -> str:
    """``+`` where this Python's ``re`` reads nested possessive repeats right, else nothing: the same matches (nothing
    follows the repetition), found without saving a backtrack point per character. Python before 3.11 has none, and
    early 3.11 releases (3.11.2, Debian 12's) run past the close of ``'x', 5`` with them, so they are probed."""
    if sys.version_info < (3, 11):
        return ""
    probe = _string_bodies("+")["'"].match("x', 5")
    return "+" if probe is not None and probe.end() == 1 else ""


_STRING_BODY = _string_bodies(_possessive())
"""A string's body, up to (not including) its closing quote: the close is the first that is not escaped."""
_CALL_ATOM_CHUNK = re.compile(r"[^,()\[\]{}\n]*")
_JSON_ATOM_END = re.compile(r"[^,}\]\n\uff0c]*")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_LITERALS = {"true": True, "false": False, "null": None}
_PY_LITERALS = {"True": True, "False": False, "None": None}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/",
            "\\": "\\", '"': '"', "'": "'", "0": "\0"}



class ReadFailure(Exception):
    """Where and why the reader stopped: ``code`` and ``pos`` as in ``JsonishError``."""

    def __init__(self, code: str, message: str, pos: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.pos = pos


class ItemBudget(Protocol):
    """What the reader spends: container entries left for the turn (``jsonish.Budget``)."""

    items: int


def _number(raw: str) -> Optional[Any]:
    """``raw`` as an int or float when it is exactly a number, else None."""
    if not raw or not (set(raw) <= _NUMBER_CHARS) or not any(c.isdigit() for c in raw):
        return None
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        return float(raw)
    except ValueError:
        return None


class Scanner:
    """The cursor over ``text`` and the lexical reads; :class:`LenientReader` adds the structure.

    Failures raise :class:`ReadFailure`; :mod:`react_text.protocol.jsonish` turns
    them into its public ``JsonishError``."""

    __slots__ = ("text", "n", "pos", "repairs", "boundary", "max_depth", "budget")

    def __init__(self, text: str, pos: int, boundary: Optional[Boundary], max_depth: int,
                 stop: Optional[int], budget: ItemBudget) -> None:
        self.text = text
        self.n = len(text) if stop is None else min(stop, len(text))
        self.pos = pos
        self.repairs: set[str] = set()
        self.boundary = boundary
        self.max_depth = max_depth
        self.budget = budget

    def spend(self) -> None:
        self.budget.items -= 1
        if self.budget.items < 0:
            raise self.fail("too_long", "too long to read leniently")

    # --- low level -------------------------------------------------------
    def fail(self, code: str, message: str) -> ReadFailure:
        return ReadFailure(code, message, self.pos)

    def skip(self) -> bool:
        """Skip whitespace and comments; True when a line break was crossed."""
        text, n = self.text, self.n
        if self.pos < n and not text[self.pos].isspace() and text[self.pos] != "/":
            return False  # nothing to skip (the usual case): no regex call
        crossed = False
        while True:
            start = self.pos
            end = _WS.match(text, start, n).end()
            if text.find("\n", start, end) >= 0:
                crossed = True
            self.pos = end
            if end + 1 < n and text[end] == "/":
                nxt = text[end + 1]
                if nxt == "/":
                    stop = text.find("\n", end, n)
                    self.pos = n if stop < 0 else stop
                    self.repairs.add("comments")
                    continue
                if nxt == "*":
                    stop = text.find("*/", end + 2, n)
                    if stop < 0:
                        self.pos = n
                        raise self.fail("truncated", "a /* comment is never closed")
                    if text.find("\n", end, stop) >= 0:
                        crossed = True
                    self.pos = stop + 2
                    self.repairs.add("comments")
                    continue
            return crossed

    def at_boundary(self) -> bool:
        """True when the cursor starts a line that ends the value (label or fence)."""
        if self.boundary is None:
            return False
        line_start = self.text.rfind("\n", 0, self.pos) + 1
        return self.boundary(self.text, line_start)

    def string(self, quote: str) -> str:
        """The string opened at the cursor by ``quote``, escapes decoded; the cursor goes past its close.

        One regex finds the close (an escape always takes the next character, so
        a quote after a backslash never closes), and the body is decoded in one
        piece when it can be: as is without backslashes, by the C JSON decoder when
        every escape is a JSON one; only others go one at a time. So a
        flood of quotes or escapes is read in a few passes of C, not a loop turn each.
        """
        text, n = self.text, self.n
        i = self.pos + 1
        if quote == "'":
            self.repairs.add("single_quotes")
        elif quote == "\u201c":
            self.repairs.add("smart_quotes")
        end = _STRING_BODY[quote].match(text, i, n).end()
        if end >= n or text[end] == "\\":
            self.pos = n
            raise self.fail("truncated", "a string is never closed")
        self.pos = end + 1
        if text.find("\\", i, end) < 0:
            return text[i:end]
        if quote == '"' and c_scanstring is not None:
            try:  # the C JSON decoder, which reads JSON's escapes exactly as _escape does
                value, after = c_scanstring(text, i, False)
                if after == end + 1:
                    return value
            except ValueError:
                pass  # an escape JSON does not have: read them one by one
        parts: list[str] = []
        while True:
            j = text.find("\\", i, end)
            if j < 0:
                parts.append(text[i:end])
                return "".join(parts)
            parts.append(text[i:j])
            i = self._escape(j, parts)

    def _escape(self, j: int, parts: list[str]) -> int:
        text, n = self.text, self.n
        e = text[j + 1]
        if e in _ESCAPES:
            parts.append(_ESCAPES[e])
            return j + 2
        if e == "u" and j + 6 <= n:
            code = _hex(text[j + 2:j + 6])
            if code is not None:
                if 0xD800 <= code < 0xDC00 and text.startswith("\\u", j + 6):
                    low = _hex(text[j + 8:j + 12])
                    if low is not None and 0xDC00 <= low < 0xE000:
                        parts.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                        return j + 12
                parts.append(chr(code))
                return j + 6
        if e == "x" and j + 4 <= n:
            code = _hex(text[j + 2:j + 4])
            if code is not None:
                parts.append(chr(code))
                return j + 4
        parts.append("\\" + e)
        return j + 2

    def atom(self, call: bool) -> Any:
        """A number, literal, or (lenient) unquoted text up to the next delimiter."""
        text = self.text
        start = self.pos
        end = _call_atom_end(text, start, self.n) if call else _JSON_ATOM_END.match(text, start, self.n).end()
        raw = text[start:end].strip()
        if not raw:
            raise self.fail("syntax", f"unexpected {text[start]!r}")
        self.pos = start + len(text[start:end].rstrip())
        if raw in _LITERALS:
            return _LITERALS[raw]
        if raw in _PY_LITERALS:
            self.repairs.add("python_literals")
            return _PY_LITERALS[raw]
        num = _number(raw)
        if num is not None:
            return num
        if not call:
            self.repairs.add("unquoted_value")
        return raw

def _hex(s: str) -> Optional[int]:
    if len(s) not in (2, 4) or any(c not in "0123456789abcdefABCDEF" for c in s):
        return None
    return int(s, 16)


def _call_atom_end(text: str, start: int, n: int) -> int:
    """End of an unquoted call argument: the next ``,`` or ``)`` outside brackets, or end of line.

    Runs of ordinary characters are skipped by one regex match, so the Python
    loop turns only at brackets and commas."""
    depth = 0
    i = start
    chunk = _CALL_ATOM_CHUNK.match
    while True:
        i = chunk(text, i, n).end()
        if i >= n:
            return n
        c = text[i]
        if c == "\n":
            return i
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0:  # a comma
            return i
        i += 1
