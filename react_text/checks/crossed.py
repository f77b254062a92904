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

from .reading import Calls
from .request_lists import listed, prop_of, respective

__all__ = ["crossed", "MAX_COMBINATIONS"]

MAX_COMBINATIONS = 8
"""At most this many calls come out of one product (the shim's limit of calls in a reply)."""


def crossed(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any], request: str) -> Calls:
    """``calls`` with each tool's calls made the product of the lists the request writes (the module's
    docstring says when)."""
    out = tuple((name, dict(args)) for name, args in calls)
    if respective(request):
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
    lists: dict[str, tuple[int, tuple[Any, ...]]] = {}
    for key in keys:
        passed = [args.get(key) for args in calls]
        if all(isinstance(v, (int, float, str)) and not isinstance(v, bool) and v != "" for v in passed):
            found = listed(list(dict.fromkeys(passed)), used, request, prop_of(schema, key), MAX_COMBINATIONS)
            if found is not None:
                lists[key] = (found.start, found.items)
    if len(lists) < 2 or any(k not in lists for k in keys if k not in shared):
        return None
    order = sorted(lists, key=lambda k: lists[k][0])
    combos = list(product(*(lists[k][1] for k in order)))
    if len(combos) > MAX_COMBINATIONS:
        return None
    made = [{k: (dict(zip(order, combo))[k] if k in lists else shared[k]) for k in keys} for combo in combos]
    same = sorted(map(_key, made)) == sorted(map(_key, calls))
    return None if same else made


def _key(args: Mapping[str, Any]) -> str:
    return repr(sorted(args.items(), key=lambda kv: kv[0]))
