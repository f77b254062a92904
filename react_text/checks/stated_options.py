"""Optional arguments the request states: passed when the call leaves them out (the ``stated_option`` check).

Why: a small model writes a call's required arguments and stops. "What is the prime factorization of 60?
Return them in the form of dictionary" comes back as ``prime_factorize(number=60)`` although the tool's
``return_type`` is described as "Can be 'list' ... or 'dictionary'": the one choice the request made is
lost. A parameter says which values it takes by its ``enum`` or by the values its description quotes;
when the request names exactly one of them as a word and no other parameter left out offers that word,
the call gets it. Pure functions over plain data.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import regex

from .reading import Calls
from .request_values import read_request

__all__ = ["left_out", "offered_values", "says", "stated_options"]


def offered_values(prop: Any) -> tuple[str, ...]:
    """The string values a parameter says it takes: its ``enum``, else the values its description quotes
    (two or more distinct ones; a single quoted value is an example, not a choice)."""
    if not isinstance(prop, Mapping):
        return ()
    if isinstance(prop.get("enum"), list):
        return tuple(dict.fromkeys(v for v in prop["enum"] if isinstance(v, str) and v.strip()))
    if prop.get("type") not in ("string", "str"):
        return ()
    quoted = tuple(dict.fromkeys(read_request(str(prop.get("description") or "")).quoted))
    return quoted if len(quoted) >= 2 else ()


def stated_options(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any],
                   request: str) -> Calls:
    """``calls`` with each optional argument left out that the request states (see the module's docstring)."""
    return tuple((name, _with_stated(dict(args), schemas.get(name), request)) for name, args in calls)


def left_out(args: Mapping[str, Any], schema: Any) -> dict[str, Any]:
    """The optional parameters of ``schema`` that ``args`` does not pass, by name: what a fill may add."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    required = set(schema.get("required") or ())
    return {name: prop for name, prop in properties.items() if name not in args and name not in required}


def _with_stated(args: dict, schema: Any, request: str) -> dict:
    stated_by = {name: [v for v in offered_values(prop) if says(request, v)]
                 for name, prop in left_out(args, schema).items()}
    said = [v for stated in stated_by.values() for v in stated]
    for name, stated in stated_by.items():
        if len(stated) == 1 and said.count(stated[0]) == 1:
            args[name] = stated[0]
    return args


def says(request: str, value: str) -> bool:
    """Whether ``request`` names ``value`` as a word or words of its own (letter case aside)."""
    return regex.search(rf"(?<![\p{{L}}\p{{N}}]){regex.escape(value)}(?![\p{{L}}\p{{N}}])", request,
                        regex.IGNORECASE) is not None
