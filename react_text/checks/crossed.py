"""Every combination of the lists the request writes apart (the ``crossed`` check).

Why: asked for "the rainfall of Oslo and Bergen in 2019 and 2021", a small model pairs the lists off (Oslo
2019, Bergen 2021) or reuses a value (2021 for both), where the request asks for each city in each year. What
tells a product from pairs is how the request writes the values: each argument's values as a list of their own
("Oslo and Bergen", "2019 and 2021") ask for each combination; values written in turns with their partners
("Oslo in 2019, and Bergen in 2021") or tied by "respectively" are pairs. Counted over BFCL's answers before this was built (parallel and parallel_multiple, every item; a tool
the answer calls several times with several arguments varying): where every varying argument's values are
written as a list each, the answer is the product in 5 of 5 once "respectively" is read (5 of 7 without
it); where they are written in turns, pairs in 112 of 115; the other 85 pass values the request does not
spell as passed.

So when a reply calls a tool several times and every argument that varies among those calls takes its values
from a list the request writes (its items joined only by commas, "and", "or" and the like, ``lexicon``'s
``LIST_JOINERS``, or by the same unit after each: "2019年和2021年"), and such lists hold the values of 2
arguments at least, the tool's calls become the product of the lists in the order the request writes them,
each with the arguments all the calls share. A list's other items the request writes next to a used value
join it when no call passed them ("2019 and 2021" where both calls passed 2021). Nothing happens with a word
for "respectively" in the request. It runs last, after ``own_options``, on the values every other fill
settled. Pure functions over plain data.
"""

from __future__ import annotations

from itertools import product
from typing import Any, Mapping, Sequence

import regex

from ..lexicon.cjk import CJK
from ..lexicon.en import LIST_JOINERS as EN_JOINERS, RESPECTIVE_WORDS as EN_RESPECTIVE
from ..lexicon.numbers import numbers_at
from ..lexicon.zh import LIST_JOINERS as ZH_JOINERS, RESPECTIVE_WORDS as ZH_RESPECTIVE
from .reading import Calls
from .request_values import kind_of, read_request

__all__ = ["crossed", "MAX_COMBINATIONS"]

MAX_COMBINATIONS = 8
"""At most this many calls come out of one product (the shim's limit of calls in a reply)."""

_QUOTES = "'\"‘’“”「」"
_JOINER = "|".join(regex.escape(w) for w in sorted(EN_JOINERS, key=len, reverse=True))
_GAP = regex.compile(rf"[\s{_QUOTES}]*(?:[,，{ZH_JOINERS}]|(?:,\s*)?(?<![\p{{L}}])(?:{_JOINER})(?![\p{{L}}]))"
                     rf"[\s{_QUOTES}]*", regex.IGNORECASE)
"""What may stand between two items of one list: a comma or a joining word, spaces and quotes around it."""
_RESPECTIVE = regex.compile("|".join([rf"\b{regex.escape(w)}\b" for w in EN_RESPECTIVE]
                                     + [regex.escape(w) for w in ZH_RESPECTIVE]), regex.IGNORECASE)

_UNIT_GAP = regex.compile(r"(\s*\p{L}{1,12}?)" + _GAP.pattern, regex.IGNORECASE)
"""A unit after a list's item (a word of its own, or a character straight after it), then a joiner."""
_UNSPACED = regex.compile(f"[{CJK}]")
_REACH = 48
"""How far apart two items of one list may stand: a joiner, quotes and a unit between them."""
Span = tuple[int, int]


def crossed(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str) -> Calls:
    """``calls`` with each tool's calls made the product of the lists the request writes (the module's
    docstring says when)."""
    out = tuple((name, dict(args)) for name, args in calls)
    if _RESPECTIVE.search(request):
        return out
    for tool in dict.fromkeys(name for name, _ in out):
        mine = [args for name, args in out if name == tool]
        combined = _product(mine, request, schemas.get(tool))
        if combined is not None:
            at = next(i for i, (name, _) in enumerate(out) if name == tool)
            rest = [(name, args) for name, args in out if name != tool]
            out = tuple(rest[:at] + [(tool, args) for args in combined] + rest[at:])
    return out


def _product(calls: Sequence[dict], request: str, schema: Any) -> list[dict] | None:
    """The calls of one tool as the product of the request's lists, or None where the rule does not hold."""
    if len(calls) < 2:
        return None
    keys = list(dict.fromkeys(key for args in calls for key in args))
    shared = {k: calls[0][k] for k in keys if all(k in args and args[k] == calls[0][k] for args in calls)}
    used = [v for args in calls for v in args.values()]
    lists: dict[str, tuple[int, list[Any]]] = {}
    for key in keys:
        passed = [args.get(key) for args in calls]
        if all(isinstance(v, (int, float, str)) and not isinstance(v, bool) and v != "" for v in passed):
            found = _listed(list(dict.fromkeys(passed)), used, request, _prop(schema, key))
            if found is not None:
                lists[key] = found
    if len(lists) < 2 or any(k not in lists for k in keys if k not in shared):
        return None
    order = sorted(lists, key=lambda k: lists[k][0])
    combos = list(product(*(lists[k][1] for k in order)))
    if len(combos) > MAX_COMBINATIONS:
        return None
    made = [{k: (dict(zip(order, combo))[k] if k in lists else shared[k]) for k in keys} for combo in combos]
    same = sorted(map(_key, made)) == sorted(map(_key, calls))
    return None if same else made


def _listed(values: Sequence[Any], used: Sequence[Any], request: str, prop: Any) -> tuple[int, list[Any]] | None:
    """Where the list starts and its items, when ``values`` (one argument's, as the calls passed them) are items
    of one list the request writes, of two items at least, with the items no call passed next to them."""
    spans = [_span(v, request) for v in values]
    if any(s is None for s in spans):
        return None
    chain = sorted(zip(spans, values), key=lambda pair: pair[0])  # type: ignore[arg-type]
    if any(not _joined(request, a[0], b[0]) for a, b in zip(chain, chain[1:])):
        return None
    kind = kind_of(values[0], read_request(request))
    others = [pair for pair in _candidates(kind, request, prop) if all(not _same(pair[1], u) for u in used)] \
        if kind is not None else []
    ending = {span[1]: (span, value) for span, value in others}
    starting = {span[0]: (span, value) for span, value in others}
    while len(chain) <= MAX_COMBINATIONS:  # each step looks only as far as a joiner reaches: linear in the request
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
    return chain[0][0][0], [value for _, value in chain]


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
    if isinstance(value, (int, float)):
        return next(((start, end) for start, end, n in numbers_at(text) if n == float(value)), None)
    words = [regex.escape(w) for w in regex.split(r"[\s_-]+", value.strip()) if w]
    if not words:
        return None
    ends = value.strip()
    before = "" if _UNSPACED.match(ends[0]) else r"(?<![\p{L}\p{N}])"  # Chinese writes no space between words
    after = "" if _UNSPACED.match(ends[-1]) else r"(?![\p{L}\p{N}])"
    m = regex.search(before + r"[\s_-]+".join(words) + after, text, regex.IGNORECASE)
    return (m.start(), m.end()) if m else None


def _candidates(kind: str, text: str, prop: Any) -> list[tuple[Span, Any]]:
    """The request's values of ``kind`` where it writes them, typed as the argument takes them."""
    if kind == "number":
        whole = isinstance(prop, Mapping) and prop.get("type") == "integer"
        return [((start, end), int(n) if n.is_integer() else n) for start, end, n in numbers_at(text)
                if n.is_integer() or not whole]
    spans = ((_span(v, text), v) for v in read_request(text).of(kind))  # type: ignore[arg-type]
    return [(s, v) for s, v in spans if s is not None]


def _same(a: Any, b: Any) -> bool:
    """Whether a call's value ``b`` is the candidate ``a``: equal numbers, or strings one of which holds the
    other (a name's tail such as "Angeles" is part of the "Los Angeles" a call passed)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return float(a) == float(b)
    return isinstance(a, str) and isinstance(b, str) and (a.casefold() in b.casefold() or b.casefold() in a.casefold())


def _prop(schema: Any, key: str) -> Any:
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    return props.get(key) if isinstance(props, Mapping) else None


def _key(args: Mapping[str, Any]) -> str:
    return repr(sorted(args.items(), key=lambda kv: kv[0]))
