"""Where the request writes a list of values, and which of its items are the ones a call passed.

Why a module of its own: ``crossed`` (every combination of two lists) and ``list_rest`` (a call for each item of one
list) read lists the same way. A list's items are joined only by commas, "and", "or" and the like (``lexicon``'s
``LIST_JOINERS``), or by the same unit after each ("5 kg and 10 kg", "2019年和2021年"). Pure functions over plain
data, linear in the request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import regex

from ..lexicon.cjk import CJK
from ..lexicon.en import LIST_JOINERS as EN_JOINERS, RANGE_WORDS as EN_RANGE, RESPECTIVE_WORDS as EN_RESPECTIVE
from ..lexicon.numbers import numbers_at
from ..lexicon.zh import LIST_JOINERS as ZH_JOINERS, RANGE_WORDS as ZH_RANGE, RESPECTIVE_WORDS as ZH_RESPECTIVE
from .request_values import kind_of, read_request

__all__ = ["RequestList", "Span", "listed", "prop_of", "ranged", "respective", "same_value", "spans_of",
           "written_as_list"]

Span = tuple[int, int]

_QUOTES = "'\"‘’“”「」"
_JOINER = "|".join(regex.escape(w) for w in sorted(EN_JOINERS, key=len, reverse=True))
_GAP = regex.compile(rf"[\s{_QUOTES}]*(?:[,，{ZH_JOINERS}]|(?:,\s*)?(?<![\p{{L}}])(?:{_JOINER})(?![\p{{L}}]))"
                     rf"[\s{_QUOTES}]*", regex.IGNORECASE)
"""What may stand between two items of one list: a comma or a joining word, spaces and quotes around it."""
_RESPECTIVE = regex.compile("|".join([rf"\b{regex.escape(w)}\b" for w in EN_RESPECTIVE]
                                     + [regex.escape(w) for w in ZH_RESPECTIVE]), regex.IGNORECASE)

_WORD_GAP = regex.compile(rf"(?<![\p{{L}}])(?:{_JOINER})(?![\p{{L}}])|[{ZH_JOINERS}]", regex.IGNORECASE)
"""A joining word in a gap between items (a comma alone also sets a place off: "the Tate Modern, London")."""
_COMMA = regex.compile("[,，]")
_RANGE_BEFORE = regex.compile(rf"(?<![\p{{L}}])(?:{'|'.join(map(regex.escape, EN_RANGE))})[\s{_QUOTES}$€£¥]*$",
                              regex.IGNORECASE)
"""A range word just before a list's first item ("between 1 and 1000")."""
_RANGE_AFTER = regex.compile(rf"\P{{P}}{{0,3}}?(?:{'|'.join(map(regex.escape, ZH_RANGE))})")
"""A range word just after a list's last item, a unit between ("1和1000米之间")."""

_UNIT_GAP = regex.compile(r"(\s*\p{L}{1,12}?)" + _GAP.pattern, regex.IGNORECASE)
"""A unit after a list's item (a word of its own, or a character straight after it), then a joiner."""
_UNSPACED = regex.compile(f"[{CJK}]")
_NOT_AFTER_WORD = rf"(?<!(?![{CJK}])[\p{{L}}\p{{N}}])"
_NOT_BEFORE_WORD = rf"(?!(?![{CJK}])[\p{{L}}\p{{N}}])"
_REACH = 48
"""How far apart two items of one list may stand: a joiner, quotes and a unit between them."""


@dataclass(frozen=True)
class RequestList:
    """One list the request writes: its items, typed as the argument takes them, and where each stands."""

    items: tuple[Any, ...]
    spans: tuple[Span, ...]

    @property
    def start(self) -> int:
        return self.spans[0][0]


def written_as_list(found: RequestList, request: str) -> bool:
    """Whether the request writes the items as a list: a joining word ("and", 和, 、) between two of them, not
    commas alone, and no comma before it when there are only two (", and" there joins two clauses)."""
    gaps = [request[a[1]:b[0]] for a, b in zip(found.spans, found.spans[1:])]
    return any(_WORD_GAP.search(gap) for gap in gaps) and (len(gaps) > 1 or not _COMMA.search(gaps[0]))


def ranged(found: RequestList, request: str) -> bool:
    """Whether the request writes the list as a range's two ends ("between 1 and 1000", "在1和1000之间")."""
    start, end = found.start, found.spans[-1][1]
    return (_RANGE_BEFORE.search(request, max(start - 16, 0), start) is not None
            or _RANGE_AFTER.match(request, end, end + 8) is not None)


def respective(request: str) -> bool:
    """Whether the request says its lists pair off item by item ("respectively", 依次)."""
    return _RESPECTIVE.search(request) is not None


def listed(values: Sequence[Any], used: Sequence[Any], request: str, prop: Any, limit: int) -> RequestList | None:
    """The list ``values`` (one argument's, as the calls passed them) are items of, of two items at least, with the
    items no call passed (none of ``used``) that the request writes next to them; None when they are not one list
    or it would hold more than ``limit`` items."""
    spans = [_span(v, request) for v in values]
    if any(s is None for s in spans):
        return None
    chain = sorted(zip(spans, values), key=lambda pair: pair[0])  # type: ignore[arg-type]
    if any(not _joined(request, a[0], b[0]) for a, b in zip(chain, chain[1:])):
        return None
    kind = kind_of(values[0], read_request(request))
    others = [pair for pair in _candidates(kind, request, prop) if all(not same_value(pair[1], u) for u in used)] \
        if kind is not None else []
    longest = sorted(others, key=lambda pair: pair[0][1] - pair[0][0])  # a name over the words in it ("Buenos Aires")
    ending = {span[1]: (span, value) for span, value in longest}
    starting = {span[0]: (span, value) for span, value in longest}
    while len(chain) <= limit:  # each step looks only as far as a joiner reaches: linear in the request
        start, end = chain[0][0][0], chain[-1][0][1]
        before = next((ending.pop(at) for at in range(start - 1, max(start - _REACH, -1), -1)
                       if at in ending and _joined(request, ending[at][0], chain[0][0])), None)
        after = None if before else next((starting.pop(at) for at in range(end + 1, end + _REACH)
                                          if at in starting and _joined(request, chain[-1][0], starting[at][0])), None)
        if before is None and after is None:
            break
        chain = [before, *chain] if before else [*chain, after]
    if len(chain) < 2:
        return None
    return RequestList(tuple(value for _, value in chain), tuple(span for span, _ in chain))  # type: ignore[misc]


def _joined(text: str, first: Span, second: Span) -> bool:
    """Whether the request writes ``second`` as the item after ``first`` in one list: only a joiner between
    them, or the same unit after each ("5 kg and 10 kg", "2019年和2021年")."""
    end, start = first[1], second[0]
    if start <= end:
        return False
    if _GAP.fullmatch(text, end, start) is not None:
        return True
    unit = _UNIT_GAP.fullmatch(text, end, start)
    return unit is not None and text.startswith(unit[1], second[1])


def _span(value: Any, text: str) -> Span | None:
    """Where ``text`` first writes ``value``: a number by its value, a string as written (case aside)."""
    return next(iter(spans_of(value, text)), None)


def spans_of(value: Any, text: str) -> list[Span]:
    """Everywhere ``text`` writes ``value``, in order: a number by its value, a string as written (case aside,
    its words apart by spaces, ``_`` or ``-``)."""
    if isinstance(value, (int, float)):
        return [(start, end) for start, end, n in numbers_at(text) if n == float(value)]
    words = [regex.escape(w) for w in regex.split(r"[\s_-]+", str(value).strip()) if w]
    if not words:
        return []
    ends = str(value).strip()
    before = "" if _UNSPACED.match(ends[0]) else _NOT_AFTER_WORD  # Chinese writes no space between words,
    after = "" if _UNSPACED.match(ends[-1]) else _NOT_BEFORE_WORD  # nor around a Latin name ("Netflix上")
    return [m.span() for m in regex.finditer(before + r"[\s_-]+".join(words) + after, text, regex.IGNORECASE)]


def _candidates(kind: str, text: str, prop: Any) -> list[tuple[Span, Any]]:
    """The request's values of ``kind`` where it writes them, typed as the argument takes them."""
    if kind == "number":
        whole = isinstance(prop, Mapping) and prop.get("type") == "integer"
        return [((start, end), int(n) if n.is_integer() else n) for start, end, n in numbers_at(text)
                if n.is_integer() or not whole]
    spans = ((_span(v, text), v) for v in read_request(text).of(kind))  # type: ignore[arg-type]
    return [(s, v) for s, v in spans if s is not None]


def same_value(a: Any, b: Any) -> bool:
    """Whether a call's value ``b`` is the candidate ``a``: equal numbers, or strings one of which holds the
    other (a name's tail such as "Angeles" is part of the "Los Angeles" a call passed)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return float(a) == float(b)
    return isinstance(a, str) and isinstance(b, str) and (a.casefold() in b.casefold() or b.casefold() in a.casefold())


def prop_of(schema: Any, key: str) -> Any:
    """The schema's property ``key``, or None."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    return props.get(key) if isinstance(props, Mapping) else None
