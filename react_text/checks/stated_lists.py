"""List items the request names: passed when the call leaves the list out (the ``stated_list`` check).

Why: a small model writes a call's required arguments and stops, so "a seafood restaurant in Seattle for
a group" comes back without ``cuisine`` although the tool's ``cuisine`` list offers ``Seafood``. A list
parameter says which items it takes by its ``items`` enum; when a call leaves out such an optional list and
the request names some of its items as words of their own (two characters or more: a lone letter is also
an article), the call gets them, in the enum's order. Not when another left-out parameter offers any of
those words too (it may be that one's), when the request negates anything ("not Italian": see
``request_values.negates``), or when the reply calls the tool more than once (the request may share the
items out among the calls). Pure functions over plain data.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from .reading import Calls
from .request_values import negates
from .stated_options import left_out, offered_values, says

__all__ = ["named_items", "stated_lists"]


def named_items(prop: Any, request: str) -> tuple[str, ...]:
    """The items a list parameter's ``items`` enum offers that ``request`` names, in the enum's order."""
    return tuple(v for v in _item_values(prop) if len(v) >= 2 and says(request, v))


def _item_values(prop: Any) -> tuple[str, ...]:
    """The values a list parameter's items say they take (``offered_values`` of its ``items``)."""
    return offered_values(prop.get("items")) if isinstance(prop, Mapping) and prop.get("type") == "array" else ()


def stated_lists(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str) -> Calls:
    """``calls`` with each optional list the request names items of passed (see the module's docstring)."""
    times = Counter(name for name, _ in calls)
    fill = not negates(request)
    return tuple((name, _with_items(dict(args), schemas.get(name), request) if fill and times[name] == 1
                     else dict(args)) for name, args in calls)


def _with_items(args: dict, schema: Any, request: str) -> dict:
    optional = left_out(args, schema)
    offered = Counter(v.casefold() for prop in optional.values() for v in {*offered_values(prop), *_item_values(prop)}
                      if says(request, v))
    for name, prop in optional.items():
        items = named_items(prop, request)
        if items and all(offered[v.casefold()] == 1 for v in items):
            args[name] = list(items)
    return args
