"""The structure of the lenient JSON-ish reader: values, objects, lists, tuples and call
arguments, with the repairs a container allows (trailing and missing commas, missing
colons, unquoted keys, braces closed where the turn ends).

Used by :mod:`react_text.protocol.jsonish`, which tries strict JSON first.
Nesting is capped by ``max_depth`` and every container entry is paid from the
turn's budget, so hostile input fails fast instead of recursing or spinning.
"""

from __future__ import annotations

import re
from typing import Any

from .jsonish_scan import ReadFailure, Scanner

_QUOTES = "\"'\u201c"
_IDENT = re.compile(r"[^\W\d][\w$\-]*")
_KEYWORD = re.compile(r"([^\W\d]\w*)[ \t]*(=(?!=)|:(?!=))")
_COMMAS = ",\uff0c"
_COLONS = ":\uff1a"


class LenientReader(Scanner):
    """Recursive-descent reader over ``text`` with a depth cap; state is the cursor."""

    __slots__ = ()

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
            except ReadFailure as err:
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
