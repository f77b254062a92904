"""A call for each item of a list the request writes, where the calls pass only some (the ``list_rest`` check).

Why: asked for "the factorial of 5, 10 and 15", a small model writes one call, or reads "5,10" as 510 (which the
grounding then leaves out), and the request's other items are never called. A parameter that takes one value
cannot take a list's items at once, so a list written for it asks for a call per item.

So when the calls of a tool pass one argument, and one only, values that are items of one list the request writes
(``request_lists``: items joined by commas, "and", "or", 和 or the same unit), and that list holds items no call of
the turn passes (to any tool, in any argument), the tool is called once per item, in the order the request writes
them, each call the tool's first with the item in place. The argument's schema type must take one value (not an
array, an object or a boolean); the list must be joined by a word somewhere, not by commas alone ("the Tate
Modern, London" is a place), with no comma before the word when it has two items (", and" there joins clauses);
it must not be a range's two ends ("between 1 and 1000"), nor hold a value the calls pass to another argument
("3 and 4, 5 and 12" are pairs). Nothing happens where the request says "respectively". Pure functions over plain
data; in the shim it runs after ``crossed``, on the calls every other step settled.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import regex

from .crossed import MAX_COMBINATIONS
from .reading import Calls
from .request_lists import RequestList, listed, prop_of, ranged, respective, same_value, written_as_list

__all__ = ["list_rest", "plain_values"]

_MANY = frozenset({"array", "object", "dict", "boolean"})
"""Schema types whose parameter takes several values at once, or none of a list's."""


def list_rest(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str) -> Calls:
    """``calls`` with a call for each item of a list the request writes for one argument of a tool (the module's
    docstring says when)."""
    out = [(name, dict(args)) for name, args in calls]
    if respective(request):
        return tuple(out)
    used = [value for _, args in out for value in plain_values(args)]
    for tool in dict.fromkeys(name for name, _ in out):
        mine = [args for name, args in out if name == tool]
        found = _the_list(mine, used, request, schemas.get(tool))
        if found is None:
            continue
        key, items = found
        made = [next((args for args in mine if same_value(item, args.get(key))), {**mine[0], key: _bare(item)})
                for item in items]
        at = next(i for i, (name, _) in enumerate(out) if name == tool)
        rest = [(name, args) for name, args in out if name != tool]
        out = rest[:at] + [(tool, args) for args in made] + rest[at:]
    return tuple(out)


def _the_list(calls: Sequence[dict], used: Sequence[Any], request: str, schema: Any) -> tuple[str, tuple] | None:
    """The one argument of a tool's calls whose values are items of a list with items no call passes, and that
    list's items; None when no argument, or more than one, is such."""
    keys = list(dict.fromkeys(key for args in calls for key in args))
    varying = [k for k in keys if any(args.get(k, None) != calls[0].get(k, None) for args in calls)]
    if len(varying) > 1:
        return None
    found: list[tuple[str, RequestList]] = []
    for key in varying or keys:
        prop, passed = prop_of(schema, key), [args.get(key) for args in calls]
        if (isinstance(prop, Mapping) and prop.get("type") in _MANY) or not all(
                isinstance(v, (int, float, str)) and not isinstance(v, bool) and v != "" for v in passed):
            continue
        passed = list(dict.fromkeys(passed))
        lst = listed(passed, used, request, prop, MAX_COMBINATIONS)
        if lst is None or len(lst.items) == len(passed) or not written_as_list(lst, request) or ranged(lst, request):
            continue
        whole = listed(passed, (), request, prop, MAX_COMBINATIONS)  # the list with the items calls pass too
        others = [v for args in calls for k, v in args.items() if k != key]
        if whole is None or not any(same_value(item, v) for item in whole.items for v in others):
            found.append((key, lst))
    return (found[0][0], found[0][1].items) if len(found) == 1 else None


def _bare(item: Any) -> Any:
    """A list's item without the possessive a request writes on it ("Lyon and Turin's stores")."""
    return regex.sub(r"['’]s$", "", item) if isinstance(item, str) else item


def plain_values(value: Any) -> list[Any]:
    """Every plain value inside an argument (a list's items, an object's values)."""
    if isinstance(value, Mapping):
        return [v for inner in value.values() for v in plain_values(inner)]
    if isinstance(value, (list, tuple)):
        return [v for inner in value for v in plain_values(inner)]
    return [value]
