"""A large number the request writes, passed with zeros too many or too few: put back (the ``zeros`` check).

Why: a small model copying "shareholder's equity of $10,000,000" or "a payout of 50 million USD" loses count of
the zeros and passes 1000000 or 500000000. The value is then ten or a hundred times one the request writes, or a
tenth or a hundredth of it, and no other value of the request.

So a number argument goes in as the request's number when it is not a number the request writes, both it and the
request's number are large (1,000 or more; the request's in digits or with a scale word: "10,000,000", "50
million"), the one is the other times 10 or 100 or divided by them, for exactly one of the request's numbers, and no
argument of the call already passes that number. A factor of 1,000 and small values are left alone: they are
conversions ("5,000 g" as 5 kg, "50mH" as 0.05), not slips. Pure functions over plain data.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from ..lexicon.numbers import scaled_numbers
from .reading import Calls
from .request_values import read_request

__all__ = ["with_request_zeros"]

_LARGE = 1000.0
_FACTORS = (10.0, 100.0, 0.1, 0.01)


def with_request_zeros(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any],
                       request: str) -> Calls:
    """``calls`` with each large number that is a large request number off by ten or a hundred put back (the
    module's docstring says when). ``schemas`` is unused: the values say which arguments are numbers."""
    written = {*read_request(request).numbers, *scaled_numbers(request)}
    large = sorted(n for n in written if abs(n) >= _LARGE)
    if not large:
        return tuple((name, dict(args)) for name, args in calls)
    return tuple((name, _put_back(dict(args), written, large)) for name, args in calls)


def _put_back(args: dict, written: set[float], large: Sequence[float]) -> dict:
    passed = {float(v) for v in args.values() if _number(v)}
    for key, value in args.items():
        if not _number(value) or abs(value) < _LARGE or any(math.isclose(value, n) for n in written):
            continue
        meant = [n for n in large if any(math.isclose(value, n * f) for f in _FACTORS)]
        if len(meant) == 1 and not any(math.isclose(meant[0], p) for p in passed):
            args[key] = int(meant[0]) if isinstance(value, int) and meant[0].is_integer() else meant[0]
    return args


def _number(value: Any) -> bool:
    """Whether ``value`` is a finite number a float can hold (a model may write an integer of 400 digits)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False
