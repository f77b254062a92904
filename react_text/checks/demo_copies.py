"""Calls that pass what the demo call made up (the ``demo_copy`` check).

Why: a tool no written episode uses gets a demo call in the prompt, written from its schema with values that
are plainly nobody's answer (``prompting.demo_values``: 2.5 for a number, 7 or 12 for an integer, "Lisbon" for a
location, "Ada Lovelace" for a name). Asked something no offered tool serves ("What's the mass of an
electron?" with a magnetic-field tool), a small model calls the tool anyway with the demo's values
(``current=2.5, distance=2.5``), and it keeps them after the ``ungrounded`` correction. Such a call is invented
by construction: its value is the engine's own, not the request's.

So a finished call is left out when it passes, to an argument, the value a shown example call passes to an
argument of that name, and neither the request, the instructions nor a result holds it
(``grounding.ungrounded_values``), nor the tool's schema offers it (an enum, a default, an example, its
description: the demo takes those from there, and so may the request). With every call left out, the turn has
no usable reply. Pure functions over plain data.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from ..lexicon.messages import joined, message
from .grounding import ungrounded_values
from .reading import Calls

__all__ = ["demo_copies", "without_copies"]


def without_copies(calls: Calls, examples: Sequence[str], schemas: Mapping[str, Any], grounds: Sequence[str],
                   lang: str) -> tuple[Calls, str | None]:
    """``calls`` less those that pass a value the demo made up (``demo_copies``), and the problem to report
    when that leaves none (None: some call stands, or none was left out)."""
    kept, last = [], ()
    for name, args in calls:
        copied = demo_copies(name, args, examples, schemas, grounds)
        if copied:
            last = (name, copied)
        else:
            kept.append((name, args))
    if kept or not last:
        return tuple(kept), None
    values = joined(lang, (message(lang, "value.quoted", value=v) for _, v in last[1][:3]), "values.separator")
    return (), message(lang, "demo_copy", tool=last[0], values=values)


def demo_copies(name: str, args: Mapping[str, Any], examples: Sequence[str], schemas: Mapping[str, Any],
                grounds: Sequence[str]) -> tuple[tuple[str, Any], ...]:
    """(argument, value) for each value of the call ``name(args)`` copied from the shown calls' arguments
    (``examples``, as JSON text: ``Situation.example_arguments``) that ``grounds`` and the tool's schema do not
    hold."""
    shown = [example for example in map(_read, examples) if isinstance(example, Mapping)]
    schema = schemas.get(name) if isinstance(schemas.get(name), Mapping) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    found = []
    for key, value in args.items():
        if isinstance(value, (bool, dict)) or value in ("", 0, []) or value is None:
            continue
        if not any(key in example and _same(example[key], value) for example in shown):
            continue
        if str(value) in json.dumps(props.get(key, {}), ensure_ascii=False):
            continue
        if ungrounded_values({key: value}, schema, grounds, examples):
            found.append((key, value))
    return tuple(found)


def _same(shown: Any, passed: Any) -> bool:
    """Equal as values: 12 and 12.0 alike, a list item by item, but a flag is no number."""
    if isinstance(shown, list) and isinstance(passed, list):
        return len(shown) == len(passed) and all(map(_same, shown, passed))
    if isinstance(shown, bool) or isinstance(passed, bool):
        return shown is passed
    if isinstance(shown, (int, float)) and isinstance(passed, (int, float)):
        return float(shown) == float(passed)
    return type(shown) is type(passed) and shown == passed


def _read(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
