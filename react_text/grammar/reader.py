"""Reading GBNF text into terms: the subset ``build_grammar`` writes, and hand-written grammars.

Why: llama-cpp-python does not validate grammars itself, and a grammar llama.cpp fails
to parse crashes the process when sampling starts; reading it here first turns that
into a ``GrammarError`` with a line and column. The recognizer reads hand-written
grammars through this too (literals, character classes, rule references, groups,
``? * + {m} {m,} {m,n}``, ``#`` comments).
"""

from __future__ import annotations

from collections.abc import Iterable
from .terms import Alt, Class, GrammarError, Lit, Ref, Rep, Seq, Term

__all__ = ["read_gbnf"]

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-", "^": "^"}


class _Reader:
    """Reads the GBNF subset: rules, alternatives, literals, classes, groups, repetition."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, message: str) -> GrammarError:
        line = self.text.count("\n", 0, self.pos) + 1
        col = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return GrammarError(f"GBNF line {line}, column {col}: {message}")

    def space(self, newlines: bool) -> None:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == "#":
                while self.pos < len(text) and text[self.pos] != "\n":
                    self.pos += 1
            elif ch in " \t" or (newlines and ch in "\r\n"):
                self.pos += 1
            else:
                break

    def name(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isascii() and
                                               (self.text[self.pos].isalnum() or self.text[self.pos] in "-_")):
            self.pos += 1
        if start == self.pos:
            raise self.error("expected a rule name")
        return self.text[start:self.pos]

    def char(self, end: str) -> str:
        text = self.text
        if self.pos >= len(text):
            raise self.error("unterminated string" if end == '"' else "unterminated character class")
        ch = text[self.pos]
        if ch != "\\":
            self.pos += 1
            return ch
        self.pos += 1
        if self.pos >= len(text):
            raise self.error("dangling backslash")
        esc = text[self.pos]
        self.pos += 1
        widths = {"x": 2, "u": 4, "U": 8}
        if esc in widths:
            digits = text[self.pos:self.pos + widths[esc]]
            if len(digits) != widths[esc] or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise self.error(f"bad \\{esc} escape")
            self.pos += widths[esc]
            return chr(int(digits, 16))
        if esc not in _ESCAPES:
            raise self.error(f"unknown escape \\{esc}")
        return _ESCAPES[esc]

    def literal(self) -> Lit:
        self.pos += 1
        out = []
        while True:
            if self.pos < len(self.text) and self.text[self.pos] == '"':
                self.pos += 1
                return Lit("".join(out))
            if self.pos < len(self.text) and self.text[self.pos] == "\n":
                raise self.error("newline inside a string literal")
            out.append(self.char('"'))

    def char_class(self) -> Class:
        self.pos += 1
        negated = self.text.startswith("^", self.pos)
        if negated:
            self.pos += 1
        ranges = []
        while True:
            if self.pos >= len(self.text):
                raise self.error("unterminated character class")
            if self.text[self.pos] == "]":
                self.pos += 1
                return Class(negated, tuple(ranges))
            lo = self.char("]")
            hi = lo
            if self.text.startswith("-", self.pos) and not self.text.startswith("-]", self.pos):
                self.pos += 1
                hi = self.char("]")
            if ord(hi) < ord(lo):
                raise self.error("character range out of order")
            ranges.append((ord(lo), ord(hi)))

    def alternatives(self, nested: bool) -> Term:
        options = [self.sequence(nested)]
        while True:
            self.space(nested)
            if self.text.startswith("|", self.pos):
                self.pos += 1
                self.space(True)
                options.append(self.sequence(nested))
            else:
                break
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def sequence(self, nested: bool) -> Term:
        items = []
        while True:
            self.space(nested)
            if self.pos >= len(self.text):
                break
            ch = self.text[self.pos]
            if ch == '"':
                item = self.literal()
            elif ch == "[":
                item = self.char_class()
            elif ch == "(":
                self.pos += 1
                self.space(True)
                item = self.alternatives(True)
                self.space(True)
                if not self.text.startswith(")", self.pos):
                    raise self.error("expected ')'")
                self.pos += 1
            elif ch == ".":
                self.pos += 1
                item = Class(True, ())
            elif ch.isascii() and (ch.isalnum() or ch in "-_"):
                save = self.pos
                name = self.name()
                self.space(False)
                if self.text.startswith("::=", self.pos):  # next rule begins
                    self.pos = save
                    break
                self.pos = save + len(name)
                item = Ref(name)
            else:
                break
            items.append(self.postfix(item))
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def postfix(self, item: Term) -> Term:
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch in "*+?":
                self.pos += 1
                item = Rep(item, 1 if ch == "+" else 0, 1 if ch == "?" else None)
            elif ch == "{":
                end = self.text.find("}", self.pos)
                if end < 0:
                    raise self.error("unterminated repetition")
                parts = self.text[self.pos + 1:end].split(",")
                try:
                    low = int(parts[0])
                    high = low if len(parts) == 1 else (int(parts[1]) if parts[1].strip() else None)
                except ValueError:
                    raise self.error("bad repetition count") from None
                if len(parts) > 2 or low < 0 or (high is not None and high < low):
                    raise self.error("bad repetition count")
                self.pos = end + 1
                item = Rep(item, low, high)
            else:
                break
        return item

    def grammar(self) -> dict[str, Term]:
        rules: dict[str, Term] = {}
        while True:
            self.space(True)
            if self.pos >= len(self.text):
                break
            name = self.name()
            self.space(False)
            if not self.text.startswith("::=", self.pos):
                raise self.error(f"expected '::=' after {name!r}")
            self.pos += 3
            self.space(True)
            rules[name] = self.alternatives(False)
            self.space(False)
            if self.pos < len(self.text) and self.text[self.pos] not in "\r\n":
                raise self.error(f"unexpected {self.text[self.pos]!r}")
        return rules


def _refs(node: Term) -> Iterable[str]:
    if isinstance(node, Ref):
        yield node.name
    elif isinstance(node, (Alt, Seq)):
        for child in node.options if isinstance(node, Alt) else node.items:
            yield from _refs(child)
    elif isinstance(node, Rep):
        yield from _refs(node.item)


def read_gbnf(gbnf: str) -> dict[str, Term]:
    """The rules of ``gbnf`` by name; ``GrammarError`` (with line and column) unless readable and complete."""
    rules = _Reader(gbnf).grammar()
    if "root" not in rules:
        raise GrammarError("GBNF has no 'root' rule")
    for name, node in rules.items():
        for ref in _refs(node):
            if ref not in rules:
                raise GrammarError(f"GBNF rule {name!r} refers to undefined rule {ref!r}")
    return rules
