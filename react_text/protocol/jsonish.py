"""A lenient reader for the JSON and Python literals small models write.

Models write JSON that a person reads without thinking twice but ``json.loads``
rejects: single quotes, ``True``/``None``, trailing commas, comments, unquoted
keys, a missing closing brace at the end of the turn. This module reads those
and says what it mended (``Value.repairs``), so the parser can report it.

It never guesses past what is written: text that ends inside a string, or
right after a ``,`` or ``:``, is ``truncated`` (the token limit cut it off),
not silently shortened. Reading is linear in the text (the lenient reader is
:mod:`react_text.protocol.jsonish_reader`), nesting capped by ``max_depth``
(deeper input fails fast instead of recursing).

Repairs reported: ``single_quotes``, ``smart_quotes``, ``python_literals``,
``trailing_comma``, ``comments``, ``unquoted_keys``, ``unquoted_value``,
``fullwidth_punctuation``, ``closed_braces`` / ``closed_parens`` (closed at the
end of the text or before a label line), ``colon_keyword`` (``f(query: "x")``),
``missing_colon`` / ``missing_comma`` (``{"a" "x" "b": "y"}``), ``python_tuples``.

Work is bounded whatever the input: strict JSON runs in C; the lenient reader
spends at most ``Budget.items`` container entries per turn (shared by every
read of that turn through one ``Budget``) and then fails with ``too_long``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Optional

from .jsonish_reader import LenientReader
from .jsonish_scan import Boundary, ReadFailure

MAX_DEPTH = 64
LENIENT_ITEMS = 5_000
"""Container entries the lenient reader may read per ``Budget`` (a turn): far more
than any real tool call holds, few enough that hostile input stays cheap."""

_STRICT = json.JSONDecoder(strict=False)
_SMALL_WINDOW = 512
_FAST_WINDOW = 8192
_WS = re.compile(r"[\s\u3000]*")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")


class JsonishError(ValueError):
    """The text is not a value a person would read.

    ``code`` is ``truncated`` (the text ends inside a string or before a value
    was complete), ``too_deep`` (nesting beyond the cap), ``too_long`` (the
    turn's reading budget is spent) or ``syntax``;
    ``pos`` is the offset where reading stopped.
    """

    def __init__(self, code: str, message: str, pos: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.pos = pos


class Budget:
    """What one turn may still spend on reading: lenient container entries and
    characters decoded strictly beyond the first window (both linear in the turn)."""

    __slots__ = ("items", "strict")

    def __init__(self, items: int = LENIENT_ITEMS, strict: int = 1 << 62) -> None:
        self.items = items
        self.strict = strict


@dataclass(frozen=True, init=False)
class Value:
    """A value read from ``text[start:end]`` and what had to be mended."""

    value: Any
    start: int
    end: int
    repairs: tuple[str, ...] = ()

    def __init__(self, value: Any, start: int, end: int, repairs: tuple[str, ...] = ()) -> None:
        fields = self.__dict__  # frozen: filled at once (one per value read), as react_text.types.Step
        fields["value"], fields["start"], fields["end"], fields["repairs"] = value, start, end, repairs


@dataclass(frozen=True, init=False)
class CallArgs:
    """The arguments of ``name(...)``: positional (raw text, value) pairs and keywords.

    ``end`` is the offset just after the closing parenthesis.
    """

    positional: tuple[tuple[str, Any], ...]
    keywords: dict
    end: int
    repairs: tuple[str, ...] = ()

    def __init__(self, positional: tuple[tuple[str, Any], ...], keywords: dict, end: int,
                 repairs: tuple[str, ...] = ()) -> None:
        fields = self.__dict__  # frozen: filled at once (one per call read), as Value
        fields["positional"], fields["keywords"], fields["end"], fields["repairs"] = positional, keywords, end, repairs


def read_value(text: str, pos: int, *, boundary: Optional[Boundary] = None,
               max_depth: int = MAX_DEPTH, stop: Optional[int] = None,
               budget: Optional[Budget] = None) -> Value:
    """Read one JSON-ish value starting exactly at ``pos``.

    Strict JSON takes the C fast path; anything else goes through the lenient
    reader. Nothing at or after ``stop`` is read. Raises ``JsonishError`` when
    a person could not read a value here.
    """
    limit = len(text) if stop is None else min(stop, len(text))
    if pos < limit and text[pos] in '{["':
        got = _strict(text, pos, limit, max_depth, budget)
        if got is not None:
            return Value(got[0], pos, got[1])
    reader = LenientReader(text, pos, boundary, max_depth, limit, budget if budget is not None else Budget())
    try:
        value = reader.value(0)
    except ReadFailure as failure:
        raise _public(failure) from None
    return Value(value, pos, reader.pos, tuple(sorted(reader.repairs)))


def _strict(text: str, pos: int, limit: int, max_depth: int, budget: Optional[Budget]) -> Optional[tuple[Any, int]]:
    """Strict JSON at ``pos`` in C: (value, end), or None to read leniently.

    json's errors count the lines before the failure, so it decodes a small
    window first; only a value that runs off the window's end gets a bigger
    one, and the whole rest of the text is tried once per value at most, paid
    from the turn's budget, so repeated tries stay linear.
    """
    size = _SMALL_WINDOW
    while True:
        end = min(limit, pos + size)
        window = text[pos:end]
        try:
            value, used = _STRICT.raw_decode(window, 0)
        except json.JSONDecodeError as err:
            cut = err.pos >= len(window) - 1 or err.msg.startswith("Unterminated string")
            if not cut or end >= limit:
                return None
            if size < _FAST_WINDOW:
                size = _FAST_WINDOW
                continue
            if budget is not None:
                if budget.strict < limit - pos:
                    return None
                budget.strict -= limit - pos
            size = limit - pos
            continue
        except (ValueError, RecursionError):
            return None
        if window.count("[", 0, used) + window.count("{", 0, used) <= max_depth:  # _too_deep's first test,
            return value, pos + used  # inlined: most values nest no deeper than this, with no slice and no call
        return None if _too_deep(window[:used], max_depth) else (value, pos + used)


def _too_deep(raw: str, max_depth: int) -> bool:
    """True when strictly decoded JSON ``raw`` nests deeper than the cap (kept consistent with the lenient path).

    Judged on the text, not the value: brackets outside strings, so a long flat
    list costs a few C-level passes rather than a Python loop over its items."""
    if raw.count("[") + raw.count("{") <= max_depth:
        return False
    depth = 0
    for ch in _BRACKET.findall(_JSON_STRING.sub("", raw)):
        if ch == "[" or ch == "{":
            depth += 1
            if depth > max_depth:
                return True
        else:
            depth -= 1
    return False


_ENCODER = json.JSONEncoder(ensure_ascii=False)


_QUOTE = json.encoder.encode_basestring  # the string encoder _ENCODER uses (C), non-ASCII kept


def dumps(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)`` with one encoder built once (``json.dumps`` builds one
    a call when given options)."""
    if type(value) is dict and len(value) <= 4:  # the arguments a format error shows: written directly
        parts = []
        for k, v in value.items():
            if type(k) is not str or type(v) is not str:
                return _ENCODER.encode(value)
            parts.append(f"{_QUOTE(k)}: {_QUOTE(v)}")
        return "{" + ", ".join(parts) + "}"
    return _ENCODER.encode(value)


def loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Read a whole string as one lenient value (only whitespace may follow)."""
    start = _WS.match(text, 0).end()
    if start >= len(text):
        raise JsonishError("syntax", "empty text", start)
    got = read_value(text, start, max_depth=max_depth)
    rest = _WS.match(text, got.end).end()
    if rest < len(text):
        raise JsonishError("syntax", f"unexpected text after the value: {text[rest:rest + 20]!r}", rest)
    return got.value


def read_call_args(text: str, pos: int, *, boundary: Optional[Boundary] = None,
                   max_depth: int = MAX_DEPTH, stop: Optional[int] = None,
                   budget: Optional[Budget] = None) -> CallArgs:
    """Read the arguments of a call, ``pos`` just after its ``(``.

    Values are Python or JSON literals; a value that is neither (``2+3*4``,
    ``Paris``) is kept as its raw text.
    """
    reader = LenientReader(text, pos, boundary, max_depth, stop, budget if budget is not None else Budget())
    try:
        positional, keywords = reader.call_args()
    except ReadFailure as failure:
        raise _public(failure) from None
    return CallArgs(tuple(positional), keywords, reader.pos, tuple(sorted(reader.repairs)))


def _public(failure: ReadFailure) -> JsonishError:
    """The reader's failure as the error callers catch."""
    return JsonishError(failure.code, failure.message, failure.pos)
