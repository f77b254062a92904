"""A lenient reader for the JSON and Python literals small models write.

Models write JSON that a person reads without thinking twice but ``json.loads``
rejects: single quotes, ``True``/``None``, trailing commas, comments, unquoted
keys, a missing closing brace at the end of the turn. This module reads those
and says what it mended (``Value.repairs``), so the parser can report it.

It never guesses past what is written: text that ends inside a string, or
right after a ``,`` or ``:``, is ``truncated`` (the token limit cut it off),
not silently shortened. Reading is linear in the text: one pass, string
chunks skipped with single-quantifier regexes, nesting capped by ``max_depth``
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
from dataclasses import dataclass
from typing import Any, Callable, Optional

import re

MAX_DEPTH = 64
LENIENT_ITEMS = 5_000
"""Container entries the lenient reader may read per ``Budget`` (a turn): far more
than any real tool call holds, few enough that hostile input stays cheap."""

Boundary = Callable[[str, int], bool]
"""``boundary(text, line_start)`` is True when the line starting there ends the
value (a label line such as ``Observation:`` or a closing code fence)."""

_STRICT = json.JSONDecoder(strict=False)
_SMALL_WINDOW = 512
_FAST_WINDOW = 8192
_WS = re.compile(r"[\s\u3000]*")
_DQ_CHUNK = re.compile(r'[^"\\]*')
_SQ_CHUNK = re.compile(r"[^'\\]*")
_SMART_CHUNK = re.compile(r"[^\u201d\\]*")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_CALL_ATOM_CHUNK = re.compile(r"[^,()\[\]{}\n]*")
_QUOTES = "\"'\u201c"
_IDENT = re.compile(r"[^\W\d][\w$\-]*")
_KEYWORD = re.compile(r"([^\W\d]\w*)[ \t]*(=(?!=)|:(?!=))")
_JSON_ATOM_END = re.compile(r"[^,}\]\n\uff0c]*")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_LITERALS = {"true": True, "false": False, "null": None}
_PY_LITERALS = {"True": True, "False": False, "None": None}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/",
            "\\": "\\", '"': '"', "'": "'", "0": "\0"}
_COMMAS = ",\uff0c"
_COLONS = ":\uff1a"


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


@dataclass(frozen=True)
class Value:
    """A value read from ``text[start:end]`` and what had to be mended."""

    value: Any
    start: int
    end: int
    repairs: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallArgs:
    """The arguments of ``name(...)``: positional (raw text, value) pairs and keywords.

    ``end`` is the offset just after the closing parenthesis.
    """

    positional: tuple[tuple[str, Any], ...]
    keywords: dict
    end: int
    repairs: tuple[str, ...] = ()


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


class _Reader:
    """Recursive-descent reader over ``text`` with a depth cap; state is the cursor."""

    __slots__ = ("text", "n", "pos", "repairs", "boundary", "max_depth", "budget")

    def __init__(self, text: str, pos: int, boundary: Optional[Boundary], max_depth: int,
                 stop: Optional[int] = None, budget: Optional[Budget] = None) -> None:
        self.text = text
        self.n = len(text) if stop is None else min(stop, len(text))
        self.pos = pos
        self.repairs: set[str] = set()
        self.boundary = boundary
        self.max_depth = max_depth
        self.budget = budget if budget is not None else Budget()

    def spend(self) -> None:
        self.budget.items -= 1
        if self.budget.items < 0:
            raise self.fail("too_long", "too long to read leniently")

    # --- low level -------------------------------------------------------
    def fail(self, code: str, message: str) -> JsonishError:
        return JsonishError(code, message, self.pos)

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

    # --- values ----------------------------------------------------------
    def value(self, depth: int, call: bool = False) -> Any:
        self.skip()
        if self.pos >= self.n:
            raise self.fail("truncated", "the text ends where a value should be")
        c = self.text[self.pos]
        if c == "{":
            return self.obj(depth + 1)
        if c == "[":
            return self.arr(depth + 1)
        if c == '"' or c == "'" or c == "\u201c":
            return self.string(c)
        if c == "(":
            start, repairs = self.pos, set(self.repairs)
            try:
                return self.tup(depth + 1)
            except JsonishError as err:
                if not call or err.code in ("too_long", "too_deep"):
                    raise
                self.pos, self.repairs = start, repairs  # "(1+2)*3": an expression, kept as text
        return self.atom(call)

    def tup(self, depth: int) -> list:
        """A Python tuple, read as a list."""
        out: list = []
        self.container(depth, ")", "tuple", lambda: out.append(self.value(depth, call=True)), lambda: bool(out))
        self.repairs.add("python_tuples")
        return out

    def string(self, quote: str) -> str:
        text, n = self.text, self.n
        i = self.pos + 1
        if quote == "'":
            chunk_re, close = _SQ_CHUNK, "'"
            self.repairs.add("single_quotes")
        elif quote == "\u201c":
            chunk_re, close = _SMART_CHUNK, "\u201d"
            self.repairs.add("smart_quotes")
        else:
            chunk_re, close = _DQ_CHUNK, '"'
        parts: list[str] = []
        while True:
            j = chunk_re.match(text, i, n).end()
            parts.append(text[i:j])
            if j >= n:
                self.pos = n
                raise self.fail("truncated", "a string is never closed")
            c = text[j]
            if c == "\\":
                if j + 1 >= n:
                    self.pos = n
                    raise self.fail("truncated", "a string is never closed")
                i = self._escape(j, parts)
                continue
            # c is the closing quote candidate
            if close == "'" and not self._closes_single(j):
                parts.append("'")
                i = j + 1
                continue
            self.pos = j + 1
            return "".join(parts)

    def _closes_single(self, j: int) -> bool:
        """A ``'`` ends a single-quoted string only before a delimiter (so "it's" stays whole)."""
        text, n = self.text, self.n
        k = j + 1
        while k < n and text[k] in " \t":
            k += 1
        return k >= n or text[k] in ",:}])\n\r\uff0c\uff1a"

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

    def obj(self, depth: int) -> dict:
        out: dict = {}

        def entry() -> None:
            key = self.key()
            self.skip()
            if self.pos >= self.n:
                raise self.fail("truncated", "the text ends after a key")
            c = self.text[self.pos]
            if c in _QUOTES and self.text[self.pos - 1] in " \t":
                self.repairs.add("missing_colon")  # {"task" "Research"}
            else:
                if c not in _COLONS:
                    raise self.fail("syntax", f"expected ':' after key {key!r}")
                if c != ":":
                    self.repairs.add("fullwidth_punctuation")
                self.pos += 1
            out[key] = self.value(depth)

        self.container(depth, "}", "object", entry, lambda: bool(out))
        return out

    def arr(self, depth: int) -> list:
        out: list = []
        self.container(depth, "]", "list", lambda: out.append(self.value(depth)), lambda: bool(out))
        return out

    def container(self, depth: int, close: str, noun: str, entry, has_items) -> None:
        """The comma-separated body shared by objects and lists, with the repairs both allow.

        A container left open where the turn (or the line of an action) ends
        is closed for the model; one that stops right after a comma was cut off
        by the token limit and is an error, not a shorter value.
        """
        if depth > self.max_depth:
            raise self.fail("too_deep", f"nested deeper than {self.max_depth} levels")
        article = "an" if noun == "object" else "a"
        spend = self.spend
        text = self.text
        self.pos += 1
        need_sep = False
        after_comma = False
        last_end = self.pos
        while True:
            crossed = self.skip()
            if self.pos >= self.n:
                if need_sep:
                    self.repairs.add("closed_braces")
                    self.pos = last_end
                    return
                raise self.fail("truncated", f"the text ends inside {article} {noun}")
            c = text[self.pos]
            if c == close:
                if after_comma:
                    self.repairs.add("trailing_comma")
                self.pos += 1
                return
            if need_sep:
                if c in _COMMAS:
                    if c != ",":
                        self.repairs.add("fullwidth_punctuation")
                    self.pos += 1
                    need_sep, after_comma = False, True
                    continue
                if crossed and self.at_boundary():
                    self.repairs.add("closed_braces")
                    self.pos = last_end
                    return
                if c in _QUOTES and not crossed and text[self.pos - 1] in " \t":
                    self.repairs.add("missing_comma")  # {"a": "x" "b": "y"}
                else:
                    raise self.fail("syntax", f"expected ',' or '{close}' but found {c!r}")
            elif crossed and (has_items() or after_comma) and self.at_boundary():
                raise self.fail("truncated", f"the {noun} stops after a comma")
            spend()
            entry()
            last_end = self.pos
            need_sep, after_comma = True, False

    def key(self) -> str:
        text = self.text
        c = text[self.pos]
        if c == '"' or c == "'" or c == "\u201c":
            return self.string(c)
        m = _IDENT.match(text, self.pos, self.n)
        if m is None:
            start = end = self.pos
            while end < self.n and text[end].isdigit():
                end += 1
            if end == start:
                raise self.fail("syntax", f"expected a key but found {c!r}")
            self.pos = end
            self.repairs.add("unquoted_keys")
            return text[start:end]
        self.pos = m.end()
        self.repairs.add("unquoted_keys")
        return m.group()

    # --- call arguments ------------------------------------------------------
    def call_args(self) -> tuple[list[tuple[str, Any]], dict]:
        """Read ``a, k=v, k2: v2)`` with the cursor just after ``(``."""
        text = self.text
        positional: list[tuple[str, Any]] = []
        keywords: dict = {}
        need_sep = False
        after_comma = False
        last_end = self.pos
        while True:
            crossed = self.skip()
            if self.pos >= self.n:
                if need_sep:
                    self.repairs.add("closed_parens")
                    self.pos = last_end
                    return positional, keywords
                raise self.fail("truncated", "the text ends inside the call's parentheses")
            c = text[self.pos]
            if c == ")":
                self.pos += 1
                return positional, keywords
            if need_sep:
                if c in _COMMAS:
                    self.pos += 1
                    need_sep, after_comma = False, True
                    continue
                if crossed and self.at_boundary():
                    self.repairs.add("closed_parens")
                    self.pos = last_end
                    return positional, keywords
                raise self.fail("syntax", f"expected ',' or ')' but found {c!r}")
            if crossed and (positional or keywords or after_comma) and self.at_boundary():
                raise self.fail("truncated", "the call stops after a comma")
            self.spend()
            m = _KEYWORD.match(text, self.pos, self.n)
            if m is not None:
                if m.group(2) == ":":
                    self.repairs.add("colon_keyword")
                self.pos = m.end()
                keywords[m.group(1)] = self.value(1, call=True)
            else:
                start = self.pos
                value = self.value(1, call=True)
                positional.append((text[start:self.pos].strip(), value))
            last_end = self.pos
            need_sep, after_comma = True, False


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
    reader = _Reader(text, pos, boundary, max_depth, limit, budget)
    value = reader.value(0)
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


def dumps(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)`` with one encoder built once (``json.dumps`` builds one
    a call when given options)."""
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
    reader = _Reader(text, pos, boundary, max_depth, stop, budget)
    positional, keywords = reader.call_args()
    return CallArgs(tuple(positional), keywords, reader.pos, tuple(sorted(reader.repairs)))
