"""Flags the request names: passed as true (the ``stated_flag`` check).

Why: a small model writes a boolean parameter as ``false``, or leaves it out, when the request asks for
what it switches on: "hotels in Oslo with free breakfast" comes back with ``free_breakfast=false``, "the
report and its sources" without ``include_sources``. A flag's name says what it is about once the words
that only say "a switch" are set aside (``include``, ``return``, ``is``: ``lexicon.en.FLAG_WORDS``, and the
verbs function names open with); when the request holds every other word of the name and says no "not",
"without" or the like (``lexicon.en.NEGATIONS``, ``lexicon.zh.NEGATION_CHARS``: there it may ask for the
flag off), the flag is passed as true. Pure functions over plain data.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..lexicon.en import FLAG_WORDS, NAME_VERBS
from ..prompting.retrieval import tool_terms
from .reading import Calls
from .request_values import negates

__all__ = ["named_flags", "stated_flags"]

_FLAG_TERMS = frozenset(term for word in FLAG_WORDS | NAME_VERBS for term in tool_terms(word))


def named_flags(schema: Any, request: str) -> tuple[str, ...]:
    """The boolean parameters of ``schema`` whose name the request holds every telling word of, in the
    schema's order; none when the request negates anything."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping) or negates(request):
        return ()
    said = set(tool_terms(request))
    out = []
    for name, prop in properties.items():
        if not isinstance(prop, Mapping) or prop.get("type") not in ("boolean", "bool"):
            continue
        telling = set(tool_terms(name)) - _FLAG_TERMS
        if telling and telling <= said:
            out.append(name)
    return tuple(out)


def stated_flags(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any],
                 request: str) -> Calls:
    """``calls`` with every flag the request names (``named_flags``) passed as true."""
    return tuple((name, {**args, **{flag: True for flag in named_flags(schemas.get(name), request)}})
                 for name, args in calls)
