"""Matching and measuring grammars as term trees, without llama.cpp.

Why: tests check what a grammar admits without loading a model, and the loop sizes a
constrained turn by the longest text its grammar admits. Both walk the term tree: the
one ``build_grammar`` made (``remember``), or, for any other GBNF text, the one the
reader makes from it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping

from .reader import read_gbnf
from .terms import Alt, Class, GrammarError, Lit, Ref, Rep, Seq, Term

__all__ = ["remember", "rules_of", "matches", "longest"]

Rules = Mapping[str, Term]

_KEEP = 64
_known: OrderedDict[str, Rules] = OrderedDict()
_lock = threading.Lock()


def _keep(gbnf: str, rules: Rules) -> None:
    with _lock:
        _known[gbnf] = rules
        _known.move_to_end(gbnf)
        while len(_known) > _KEEP:
            _known.popitem(last=False)


def remember(gbnf: str, rules: Rules) -> None:
    """Record the tree ``gbnf`` was rendered from, so reading it back needs no parsing."""
    _keep(gbnf, rules)


def rules_of(gbnf: str) -> Rules:
    """The rules of ``gbnf``: the remembered tree, else read from the text (``GrammarError`` if unreadable)."""
    with _lock:
        rules = _known.get(gbnf)
        if rules is not None:
            _known.move_to_end(gbnf)
            return rules
    rules = read_gbnf(gbnf)
    _keep(gbnf, rules)
    return rules


class _Matcher:
    """Memoised recursive descent: every end position of a term from a start position."""

    def __init__(self, rules: Rules, text: str) -> None:
        self.rules = rules
        self.text = text
        self.memo: dict[tuple[str, int], frozenset[int]] = {}
        self.active: set[tuple[str, int]] = set()

    def ends(self, node: Term, pos: int) -> frozenset[int]:
        """Every position where a match of ``node`` starting at ``pos`` can end."""
        text = self.text
        if isinstance(node, Lit):
            return frozenset((pos + len(node.text),)) if text.startswith(node.text, pos) else frozenset()
        if isinstance(node, Class):
            return frozenset((pos + 1,)) if pos < len(text) and node.has(text[pos]) else frozenset()
        if isinstance(node, Ref):
            return self.rule(node.name, pos)
        if isinstance(node, Alt):
            out: set[int] = set()
            for option in node.options:
                out |= self.ends(option, pos)
            return frozenset(out)
        if isinstance(node, Seq):
            current = {pos}
            for item in node.items:
                current = {end for p in current for end in self.ends(item, p)}
                if not current:
                    break
            return frozenset(current)
        if isinstance(node, Rep):
            return self.repeated(node, pos)
        raise TypeError(f"unknown grammar node {node!r}")  # pragma: no cover

    def rule(self, name: str, pos: int) -> frozenset[int]:
        key = (name, pos)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:
            raise GrammarError(f"left recursion through rule {name!r}")
        self.active.add(key)
        result = self.ends(self.rules[name], pos)
        self.active.discard(key)
        self.memo[key] = result
        return result

    def repeated(self, node: Rep, pos: int) -> frozenset[int]:
        done: set[int] = {pos} if node.low == 0 else set()
        frontier, seen, count = {pos}, {pos}, 0
        while frontier and (node.high is None or count < node.high):
            count += 1
            frontier = {end for p in frontier for end in self.ends(node.item, p)}
            if node.high is None:
                frontier -= seen  # a nullable item cannot loop forever
                seen |= frontier
            if count >= node.low:
                done |= frontier
        return frozenset(done)


def matches(rules: Rules, text: str) -> bool:
    """Whether the ``root`` rule matches all of ``text``."""
    return len(text) in _Matcher(rules, text).ends(Ref("root"), 0)


def _class_bytes(node: Class) -> int:
    """The longest UTF-8 encoding of a character the class admits."""
    top = 0x10FFFF if node.negated else max((hi for _, hi in node.ranges), default=0)
    return len(chr(min(top, 0x10FFFF)).encode("utf-8", "surrogatepass"))


def longest(rules: Rules) -> int | None:
    """The most UTF-8 bytes a text ``root`` admits can have; ``None`` if unbounded
    (recursion, or an unbounded repetition of something non-empty)."""
    memo: dict[str, int | None] = {}
    active: set[str] = set()

    def size(node: Term) -> int | None:
        if isinstance(node, Lit):
            return len(node.text.encode("utf-8", "surrogatepass"))
        if isinstance(node, Class):
            return _class_bytes(node)
        if isinstance(node, Ref):
            if node.name in active:
                return None
            if node.name not in memo:
                active.add(node.name)
                memo[node.name] = size(rules[node.name])
                active.discard(node.name)
            return memo[node.name]
        if isinstance(node, (Alt, Seq)):
            sizes = [size(child) for child in (node.options if isinstance(node, Alt) else node.items)]
            known = [s for s in sizes if s is not None]
            if len(known) < len(sizes):
                return None
            return max(known, default=0) if isinstance(node, Alt) else sum(known)
        if isinstance(node, Rep):
            one = size(node.item)
            if one is None or (node.high is None and one > 0):
                return None
            return one * (node.high or 0)
        raise TypeError(f"unknown grammar node {node!r}")  # pragma: no cover

    return size(Ref("root"))
