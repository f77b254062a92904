"""Percentages passed as fractions (the ``percent`` check).

Why: asked about "an annual interest rate of 5%", a small model passes ``annual_interest_rate=5``, where a
number parameter for a share takes 0.05 unless it says it takes a percentage. Counted over BFCL's possible
answers before this was built (non-live items, the reported ones left out; ``results/bfcl/percent/``): where a
request writes N% and the answer passes N or N/100 to a ``number`` parameter whose name and description do not
speak of a percentage, or that asks for a decimal or a fraction, 65 take N/100 and none N (but for two that
only happen to equal a bare N); of those that speak of a percentage, 6 take N/100 and 3 take N, so they keep
the model's value, and so does every ``integer`` parameter (18 take N).

So a call's value N goes in as N/100 when the request writes N as a percentage and never as a number on its
own ("5% for 5 years" says nothing about which 5 is the rate), and the parameter is a ``number`` that does not
say it takes a percentage (``lexicon.en.PERCENT_WORDS``, or the sign) unless it also asks for a decimal or a
fraction (``lexicon.en.FRACTION_WORDS``). Pure functions over plain data.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import regex

from ..lexicon.en import FRACTION_WORDS, PERCENT_WORDS
from ..lexicon.numbers import percentages
from .reading import Calls

__all__ = ["as_fractions", "takes_fraction"]

_PERCENT = regex.compile(rf"%|\b(?:{'|'.join(PERCENT_WORDS)})\b", regex.IGNORECASE)
_FRACTION = regex.compile(rf"\b(?:{'|'.join(FRACTION_WORDS)})s?\b|(?<![\d.])0\.\d*[1-9]", regex.IGNORECASE)
"""A description that asks for a fraction: a word for one, or an example such as "0.05"."""


def takes_fraction(name: str, prop: Any) -> bool:
    """Whether the parameter ``name`` (schema ``prop``) is a number that takes a share as a fraction: it does
    not say it takes a percentage, or it says decimal or fraction (or shows one) all the same."""
    if not isinstance(prop, Mapping) or prop.get("type") not in ("number", "float"):
        return False
    said = f"{name.replace('_', ' ')} {prop.get('description') or ''}"
    return _FRACTION.search(said) is not None or _PERCENT.search(said) is None


def as_fractions(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str) -> Calls:
    """``calls`` with each value the request writes only as a percentage passed as a fraction to a parameter that
    takes one (see the module's docstring)."""
    shares, bare = percentages(request)
    only = frozenset(shares) - frozenset(bare)
    return tuple((name, _converted(dict(args), schemas.get(name), only) if only else dict(args))
                 for name, args in calls)


def _converted(args: dict, schema: Any, shares: frozenset[float]) -> dict:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return args
    for key, value in args.items():
        if (isinstance(value, (int, float)) and not isinstance(value, bool) and float(value) in shares
                and takes_fraction(key, properties.get(key))):
            args[key] = round(float(value) / 100, 12)
    return args
