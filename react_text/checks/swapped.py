"""Number arguments put back beside the names the request writes them with (the ``swapped`` check).

Why: asked about "a flow of 20 and efficiency 0.7 and head of 0.3" where ``flow`` and ``head`` are required, a
small model can pass ``head=0.7, efficiency=0.3``: the values in the order written, the names in another (BFCL's
requests show it). The request says which
is which by the words it writes beside each value. Where an argument's name stands nearest a value is a weak
sign on its own (English writes "3 bedrooms, 2 bathrooms", so the word before "2" names the other argument),
but a pair of values that each stand nearest the other's name is not: counted over BFCL's answers before this was
built (every call of the non-live categories, 1,747, and of the live ones, 1,405, counts only), such a pair
occurs in none of the right calls.

So a pair of a call's number arguments is swapped when the request writes each value once and the word nearest it
(up to 4 words away, on either side, within its clause; the word before it when both are as near) names
the other argument and no other (``prompting.retrieval.tool_terms`` of the word against those of the
argument names). Pure functions over plain data.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import regex

from ..lexicon.numbers import numbers_at
from ..prompting.retrieval import tool_terms
from .reading import Calls

__all__ = ["nearest_name", "swapped"]

_WINDOW = 4
"""How many words on each side of a value are read for the name it is written with."""
_WORD = regex.compile(r"\p{L}+|[.;:?!,()]")
"""A word, or a mark that ends the clause a value's name must share with it."""


def swapped(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str) -> Calls:
    """``calls`` with each pair of number arguments the request labels the other way round put back."""
    return tuple((name, _put_back(dict(args), request)) for name, args in calls)


def _put_back(args: dict[str, Any], request: str) -> dict[str, Any]:
    numbers = [k for k, v in args.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    out = dict(args)
    for i, a in enumerate(numbers):
        for b in numbers[i + 1:]:
            if args[a] != args[b] and nearest_name(request, args[a], list(args)) == b \
                    and nearest_name(request, args[b], list(args)) == a:
                out[a], out[b] = args[b], args[a]
    return out


def nearest_name(text: str, value: float, names: Sequence[str]) -> str | None:
    """The argument of ``names`` whose name ``text`` writes nearest the number ``value`` (written once there),
    or None: no word within reach names exactly one of them."""
    at = [(start, end) for start, end, n in numbers_at(text) if n == float(value)]
    if len(at) != 1:
        return None
    words = [(m.start(), m[0]) for m in _WORD.finditer(text)]
    before = [w for start, w in words if start < at[0][0]][::-1]
    after = [w for start, w in words if start >= at[0][1]]
    terms = {name: set(tool_terms(name)) for name in names}
    found: tuple[int, str] | None = None
    for side in (before, after):
        for distance, word in enumerate(side[:_WINDOW]):
            if not word[0].isalpha():
                break
            named = [name for name in names if set(tool_terms(word)) & terms[name]]
            if len(named) == 1:
                if found is None or distance < found[0]:
                    found = (distance, named[0])
                break
    return found[1] if found else None
