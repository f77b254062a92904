"""A call for each further group of numbers the request writes with the same units (the ``unit_groups`` check).

Why: asked for "the time a car at 50 m/s takes over 600 m, and a bullet at 400 m/s over 1000 m", a small model
calls the tool for the car and stops. The request writes a second group of numbers in the same units, in the same
order, that no call passes: the same call, asked again.

So when a tool's first call passes 2 numbers or more, each written in the request with a unit after it ("50 m/s",
"600 m", "10年") or a currency sign before it ("$5000"), each further run of numbers that no call of the turn passes,
with those units in that order, becomes one more call of the tool: the first call with those numbers in place
(whole where the parameter is an integer). A number in the units of the group that does not fit the order starts
the run again; a number a call passes ends it. At most ``MAX_GROUPS`` such calls for a tool, or none. Pure
functions over plain data; in the shim it runs after ``list_rest``, before ``own_items``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import regex

from ..lexicon.cjk import CJK
from ..lexicon.en import LIST_JOINERS, STOPWORDS
from ..lexicon.numbers import numbers_at
from .list_rest import plain_values
from .reading import Calls
from .request_lists import prop_of

__all__ = ["unit_groups", "MAX_GROUPS"]

MAX_GROUPS = 7
"""More runs than this and the units are too common to tell groups by (the shim writes 8 calls at most)."""
_AFTER = regex.compile(rf"\s?([{CJK}](?:/[{CJK}])?|[^\s\d{CJK},.;:!?()\[\]'\"，。；：！？（）、]+)")
_SIGN = regex.compile(r"([$€£¥])\s?$")
_NOT_UNITS = STOPWORDS | frozenset(LIST_JOINERS)
Place = tuple[int, float, str | None]
"""Where the request writes a number, its value and its unit."""


def unit_groups(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str) -> Calls:
    """``calls`` with a call for each further group of numbers in the units of a tool's first call (the module's
    docstring says when)."""
    out = [(name, dict(args)) for name, args in calls]
    used = {float(v) for _, args in out for v in plain_values(args) if _is_number(v)}
    places = [(start, value, _unit(request, start, end)) for start, end, value in numbers_at(request)]
    for tool in dict.fromkeys(name for name, _ in out):
        first = next(args for name, args in out if name == tool)
        order = _order(first, places)
        groups = _groups([unit for _, unit in order], places, used) if order else []
        if not groups or len(groups) > MAX_GROUPS:
            continue
        schema = schemas.get(tool)
        made = [{**first, **{key: _typed(value, prop_of(schema, key), first[key])
                             for (key, _), value in zip(order, group)}} for group in groups]
        last = max(i for i, (name, _) in enumerate(out) if name == tool)
        out = out[:last + 1] + [(tool, args) for args in made] + out[last + 1:]
    return tuple(out)


def _order(call: Mapping[str, Any], places: Sequence[Place]) -> list[tuple[str, str]]:
    """The call's number arguments with their units, in the order the request writes them; empty unless there are
    2 at least, each written once with a unit."""
    found = {}
    for key, value in call.items():
        if not _is_number(value):
            continue
        place = next((p for p in places if p[1] == float(value)), None)
        if place is None or place[2] is None:
            return []
        found[key] = place
    if len(found) < 2 or len({p[0] for p in found.values()}) < len(found):
        return []
    return [(key, found[key][2]) for key in sorted(found, key=lambda k: found[k][0])]  # type: ignore[misc]


def _groups(units: Sequence[str], places: Sequence[Place], used: set[float]) -> list[list[float]]:
    """Each run of numbers no call passes, written with ``units`` in that order."""
    groups: list[list[float]] = []
    run: list[float] = []
    for _, value, unit in places:
        if value in used or unit not in units:
            run = [] if unit in units else run
            continue
        if unit == units[len(run)]:
            run.append(value)
            if len(run) == len(units):
                groups.append(run)
                run = []
        else:
            run = [value] if unit == units[0] else []
    return groups


def _unit(text: str, start: int, end: int) -> str | None:
    """The unit the request writes after a number, or the currency sign before it; None for neither."""
    after = _AFTER.match(text, end)
    if after and after[1].casefold() not in _NOT_UNITS:
        return after[1].casefold()
    sign = _SIGN.search(text, max(start - 2, 0), start)
    return sign[1] if sign else None


def _typed(value: float, prop: Any, passed: Any) -> int | float:
    whole = isinstance(passed, int) or (isinstance(prop, Mapping) and prop.get("type") == "integer")
    return int(value) if whole and value.is_integer() else value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
