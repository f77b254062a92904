"""Each call of a tool keeps the list items the request writes in its own part (the ``own_items`` check).

Why: asked for the ratings "on Netflix for 'Friends', and Hulu for 'The Office' and 'Stranger Things'", a small
model passes every show to Netflix's call and the Hulu shows to Hulu's as well. The request writes each show once,
after the service it belongs to: the request is cut into parts, one for each call, and an item written once belongs
to the call whose part holds it.

So where a tool is called twice or more and each call passes one value of its own (no other call of the tool passes
it) that the request writes once, the request is cut at those values, each call's part running from its value to the
next call's. A list argument of those calls is read in those parts when every item any of them passes is written in
the request, none before the first part, and every part writes an item: each call then passes the items its part
writes, in the request's order ("Tennis Court" written in the parts of both calls goes to both). Items written
before the first part ("a Yamaha guitar and a Kawai piano in San Francisco and Chicago") or a part that writes none
("in Paris and Rome … amenities like free WiFi") leave the calls as they are, and nothing happens where the
request says "respectively". It changes none of BFCL's 2,351 right call lists (live among them), and gives back
each of the 3 where it reads the parts when every call is given every item (``results/bfcl/own_items/``). Pure
functions over plain data; in the shim it runs after ``unit_groups``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .reading import Calls
from .request_lists import Span, respective, spans_of

__all__ = ["own_items"]


def own_items(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str) -> Calls:
    """``calls`` with each call of a tool passing the list items its part of the request writes (the module's
    docstring says when). ``schemas`` is unused: the calls' values say which arguments are lists."""
    out = tuple((name, dict(args)) for name, args in calls)
    if respective(request):
        return out
    for tool in dict.fromkeys(name for name, _ in out):
        mine = [args for name, args in out if name == tool]
        parts = _parts(mine, request)
        if parts is not None:
            for key in dict.fromkeys(k for args in mine for k, v in args.items() if isinstance(v, list)):
                _keep_own(mine, key, parts, request)
    return out


def _parts(calls: Sequence[dict], request: str) -> list[Span] | None:
    """Each call's part of the request (from its own value to the next call's), or None where a call has no value
    of its own the request writes once, or more than one."""
    if len(calls) < 2:
        return None
    starts = []
    for args in calls:
        own = [spans[0][0] for key, value in args.items()
               if isinstance(value, (str, int, float)) and not isinstance(value, bool)
               and not any(other.get(key) == value for other in calls if other is not args)
               and len(spans := spans_of(value, request)) == 1]
        if len(own) != 1:
            return None
        starts.append(own[0])
    if len(set(starts)) < len(starts):
        return None
    ends = {start: end for start, end in zip(sorted(starts), [*sorted(starts)[1:], len(request) + 1])}
    return [(start, ends[start]) for start in starts]


def _keep_own(calls: Sequence[dict], key: str, parts: Sequence[Span], request: str) -> None:
    """Give each call, as ``key``, the items any of the calls pass that its part writes, in the request's order."""
    lists = [args.get(key) for args in calls]
    if not all(isinstance(items, list) and items and all(isinstance(x, str) for x in items) for items in lists):
        return
    items = list(dict.fromkeys(x for listed in lists for x in listed))
    where = {x: [start for start, _ in spans_of(x, request)] for x in items}
    first = min(start for start, _ in parts)
    if any(not at or min(at) < first for at in where.values()):
        return
    held = [sorted((min(at for at in where[x] if start <= at < end), x) for x in items
                   if any(start <= at < end for at in where[x])) for start, end in parts]
    if all(held):
        for args, own in zip(calls, held):
            args[key] = [x for _, x in own]
