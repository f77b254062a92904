"""Optional arguments whose value only the parameter's description gives: left out (the ``described_option`` check).

Why: a small model fills an optional parameter with a value its description holds up as an example, where the
request says nothing of it. Asked for "all movies starring Leonardo DiCaprio in 2010", it passes ``category="Drama"``
because the description reads "(e.g. Drama, Comedy, etc)"; asked for the calories of a recipe, it passes
``optional_meal_time="Lunch"`` from "could be 'Breakfast', 'Lunch', 'Dinner'". The call then asks for less than
the user did. Such an argument is left out, so the tool's own default applies. It is the counterpart of
``stated_option``, which passes an optional value the request does state.

An argument goes only when all of these hold: the parameter is optional and not an enum (a model maps the
request's words onto an enum's labels: "suitable for kids" is ``"True"``), the value is a string the description
spells as a word or words of its own, it is not the parameter's default, and none of its words is in the
request or a result (``grounding.ungrounded_values``). On BFCL's right calls, 1 of 4,817 non-live arguments and
none of 4,987 live ones must be passed with such a value (``results/bfcl/described_option/``). Pure functions
over plain data; in the shim it runs on the finished calls, last.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .grounding import ungrounded_values
from .reading import Calls
from .stated_options import says

__all__ = ["without_described"]


def without_described(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any],
                      grounds: Sequence[str]) -> Calls:
    """``calls`` without the optional arguments whose value only their parameter's description gives (the module's
    docstring says when); ``grounds`` are the texts a value may come from (the request, the results so far)."""
    return tuple((name, _kept(args, schemas.get(name), grounds)) for name, args in calls)


def _kept(args: Mapping[str, Any], schema: Any, grounds: Sequence[str]) -> dict:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return dict(args)
    required = set(schema.get("required") or ())
    return {key: value for key, value in args.items()
            if key in required or not _described(key, value, properties.get(key), grounds)}


def _described(key: str, value: Any, prop: Any, grounds: Sequence[str]) -> bool:
    """Whether ``value`` is one the description of ``prop`` spells and nothing in ``grounds`` holds."""
    if not isinstance(value, str) or not value.strip() or not isinstance(prop, Mapping) or "enum" in prop:
        return False
    description = str(prop.get("description") or "")
    return says(description, value) and bool(
        ungrounded_values({key: value}, {"properties": {key: prop}}, grounds, [description]))
