"""The checks that fill in what the request states, applied to a reply's calls in the registry's order.

Why one entry: ``stated_option``, ``stated_flag``, ``stated_list``, ``swapped``, ``percent``, ``zeros`` and ``years``
each read only the calls, their schemas and the request, after every call is made, and they touch arguments of
different kinds (a left-out string option, a boolean, a left-out list, numbers passed to each other's argument, a
number the request writes as a percentage, a large one passed with its zeros miscounted, a date with another year);
the shim applies them as one step and records which acted.
"""

from __future__ import annotations

from typing import Any, Callable, Container, Mapping, Sequence

from .percents import as_fractions
from .reading import Calls
from .registry import CheckName, in_order
from .stated_flags import stated_flags
from .stated_lists import stated_lists
from .stated_options import stated_options
from .swapped import swapped
from .years import with_request_years
from .zeros import with_request_zeros

__all__ = ["stated_values"]

_FILLS: dict[CheckName, Callable[[Sequence[tuple[str, Mapping[str, Any]]], Mapping[str, Any], str], Calls]] = {
    "stated_option": stated_options, "stated_flag": stated_flags, "stated_list": stated_lists, "swapped": swapped,
    "percent": as_fractions, "zeros": with_request_zeros, "years": with_request_years}


def stated_values(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str,
                  checks: Container[str]) -> tuple[Calls, tuple[CheckName, ...]]:
    """``calls`` with each switched-on fill applied, and the names of those that changed something."""
    out, acted = tuple((name, dict(args)) for name, args in calls), []
    for name in in_order("call"):
        fill = _FILLS.get(name)
        if fill is None or name not in checks:
            continue
        filled = fill(out, schemas, request)
        if filled != out:
            acted.append(name)
        out = filled
    return out, tuple(acted)
