"""The GBNF term tree: what a grammar is made of, and how it is written out.

Why a tree: ``build_grammar`` assembles one from these terms, renders it to GBNF text
once, and whatever must read the grammar back (``max_bytes``, the recognizer) walks the
same tree instead of reparsing the text. The reader turns hand-written GBNF into the
same terms, so built and read grammars are measured and matched by one piece of code.

Grouping is structure, not a separate term: an ``Alt`` inside a sequence or a
repetition is written in parentheses, and ``group(x)`` (an ``Alt`` of one option) is
how a single term gets parentheses of its own (``( action-search )``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Union

__all__ = [
    "GrammarError", "Lit", "Class", "Ref", "Alt", "Seq", "Rep", "Term",
    "seq", "sequence", "alt", "group", "rep", "opt", "chars", "render_rules", "literal",
]


class GrammarError(ValueError):
    """A grammar (or the tools it was to be built from) cannot be used."""


@dataclass(frozen=True)
class Lit:
    """A string literal."""

    text: str


@dataclass(frozen=True)
class Class:
    """A character class; ``ranges`` keep their written order (it is how they are rendered)."""

    negated: bool
    ranges: tuple[tuple[int, int], ...]

    def has(self, ch: str) -> bool:
        code = ord(ch)
        inside = any(lo <= code <= hi for lo, hi in self.ranges)
        return inside != self.negated


@dataclass(frozen=True)
class Ref:
    """A reference to a named rule."""

    name: str


@dataclass(frozen=True)
class Alt:
    """Alternatives; with one option it is a parenthesised group."""

    options: tuple[Term, ...]


@dataclass(frozen=True)
class Seq:
    """Terms one after another (never directly nested: ``seq`` flattens)."""

    items: tuple[Term, ...]


@dataclass(frozen=True)
class Rep:
    """``item`` repeated ``low``..``high`` times; ``high`` None is unbounded."""

    item: Term
    low: int
    high: int | None


Term = Union[Lit, Class, Ref, Alt, Seq, Rep]


# --------------------------------------------------------------------------------------
# Constructors: keep the tree canonical, so equal text means equal terms (rules are
# shared by comparing their bodies).
# --------------------------------------------------------------------------------------


def seq(*items: Term | None) -> Term | None:
    """``items`` in order, nested sequences flattened, ``None`` (nothing) dropped."""
    flat: list[Term] = []
    for item in items:
        if isinstance(item, Seq):
            flat.extend(item.items)
        elif item is not None:
            flat.append(item)
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def sequence(*items: Term | None) -> Term:
    """``seq`` for a sequence that cannot come out empty."""
    out = seq(*items)
    if out is None:
        raise ValueError("empty sequence")
    return out


def alt(options: Iterable[Term]) -> Term:
    """Alternatives, or the one option itself."""
    opts = tuple(options)
    if not opts:
        raise ValueError("alt() needs at least one option")
    return opts[0] if len(opts) == 1 else Alt(opts)


def group(term: Term) -> Term:
    """``term`` in parentheses where it stands (a lone term gets a one-option group)."""
    return term if isinstance(term, Alt) else Alt((term,))


def _repeatable(item: Term) -> Term:
    """A group of one sequence or one set of alternatives is written in parentheses anyway."""
    if isinstance(item, Alt) and len(item.options) == 1 and isinstance(item.options[0], (Seq, Alt)):
        return item.options[0]
    return item


def rep(item: Term, low: int, high: int) -> Term | None:
    """``item`` repeated ``low``..``high`` times (``high`` >= ``low``); nothing when ``high`` <= 0."""
    if high <= 0:
        return None
    if low == high == 1:
        return group(item) if isinstance(item, Seq) else item  # stays parenthesised, as written
    return Rep(_repeatable(item), low, high)


def opt(item: Term) -> Term:
    """``item`` or nothing."""
    return Rep(_repeatable(item), 0, 1)


def chars(*parts: str | tuple[str, str], negated: bool = False) -> Class:
    """A class from single characters (a string) and ranges (a pair), in written order."""
    ranges: list[tuple[int, int]] = []
    for part in parts:
        if isinstance(part, tuple):
            ranges.append((ord(part[0]), ord(part[1])))
        else:
            ranges.extend((ord(c), ord(c)) for c in part)
    return Class(negated, tuple(ranges))


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------

_LIT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_CLASS_ESCAPES = {"\\": "\\\\", "[": "\\[", "]": "\\]", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _LIT_ESCAPES:
            out.append(_LIT_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02X}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _class_char(code: int, in_range: bool) -> str:
    """One class member; range ends up to space are hex so ``\\x00-\\x20`` reads as a range."""
    ch = chr(code)
    if in_range and code <= 0x20:
        return f"\\x{code:02X}"
    if ch in _CLASS_ESCAPES:
        return _CLASS_ESCAPES[ch]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02X}"
    return ch


def _class_text(node: Class) -> str:
    members = [
        _class_char(lo, False) if lo == hi else f"{_class_char(lo, True)}-{_class_char(hi, True)}"
        for lo, hi in node.ranges
    ]
    return f"[{'^' if node.negated else ''}{''.join(members)}]"


def _suffix(node: Rep) -> str:
    low, high = node.low, node.high
    if high is None:
        return {0: "*", 1: "+"}.get(low, f"{{{low},}}")
    if (low, high) == (0, 1):
        return "?"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def render(term: Term, where: str = "rule") -> str:
    """GBNF for ``term`` standing ``where``: a whole rule body, an option, a sequence item, a repeated item."""
    if isinstance(term, Lit):
        return literal(term.text)
    if isinstance(term, Class):
        return _class_text(term)
    if isinstance(term, Ref):
        return term.name
    if isinstance(term, Alt):
        text = " | ".join(render(option, "option") for option in term.options)
        return text if where == "rule" else f"( {text} )"
    if isinstance(term, Seq):
        text = " ".join(render(item, "item") for item in term.items)
        return text if where in ("rule", "option") else f"( {text} )"
    if isinstance(term, Rep):
        return render(term.item, "repeated") + _suffix(term)
    raise TypeError(f"unknown grammar term {term!r}")  # pragma: no cover


def render_rules(rules: Mapping[str, Term]) -> str:
    """The GBNF text of ``rules``, one ``name ::= body`` line each, in their order."""
    return "".join(f"{name} ::= {render(body)}\n" for name, body in rules.items())
