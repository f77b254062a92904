"""Checking a model's tool arguments against the tool's schema, mending what is unambiguous.

A small model's tool call is a guess: wrong types (``"3"`` for 3), a bare
string where a dict was expected, a near-miss argument name. Such guesses
become a real call when the intent is unambiguous (each mend is recorded as a
repair code, so a trace shows how forgiving the call was), and an
:class:`ArgumentError` written *for the model* (which argument, what type, a
valid example) when it is not. Coercing each value to its type is
:mod:`react_text.tools.coercion`'s job; this module matches the call to the tool.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..protocol.feedback import fill_value
from ..types import Args
from .coercion import Mismatch, coerce_value, json_or_none, name_key
from .results import safe_str
from .spec import Tool

__all__ = ["ArgumentError", "BoundArgs", "bind_args", "coerce_args", "empty_value"]


class ArgumentError(ValueError):
    """The model's arguments do not fit the tool; ``str(err)`` is written for the model.

    ``argument`` names the offending argument (None when the problem is the
    call as a whole) and ``example`` is a valid argument dict the loop may
    re-render in its own dialect.
    """

    def __init__(self, message: str, *, tool: str, argument: str | None = None,
                 example: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.tool = tool
        self.argument = argument
        self.example = dict(example or {})


@dataclass(frozen=True)
class BoundArgs:
    """Arguments ready for the tool's function, and what had to be mended to get them.

    ``repairs`` uses short stable codes (``bare_string``, ``renamed_argument``,
    ``coerced_type``, ...) so the trace can show how forgiving the call was.
    """

    values: dict[str, Any]
    repairs: tuple[str, ...] = ()


_KIND_WORDS = {"string": "a string", "integer": "an integer", "number": "a number",
               "boolean": "true or false", "array": "a list", "object": "an object", "null": "null"}


def empty_value(value: Any) -> bool:
    """A value that says nothing (``0``, ``""``, ``null``, ``false``, ``[]``, ``{}``): what a small model
    puts under an argument the tool does not take, copied from a look-alike tool (``"attendees": 0``
    for ``room_availability``). Such an argument is dropped here and never questioned (``checks.grounding``)."""
    if value is None or isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value == 0
    return isinstance(value, (str, list, dict)) and not value


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = safe_str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _expected(schema: Mapping[str, Any]) -> str:
    if schema.get("enum"):
        return "one of " + ", ".join(_show(v) for v in schema["enum"])
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    return " or ".join(_KIND_WORDS.get(k, k) for k in kinds) or "any value"


def _mismatch_error(tool: Tool, mismatch: Mismatch, given: Mapping[str, Any] | None = None) -> ArgumentError:
    argument = re.split(r"[.\[]", mismatch.path, maxsplit=1)[0]
    why = mismatch.why or f"expected {_expected(mismatch.schema)}, got {_show(mismatch.value)}"
    return _argument_error(tool, f"argument {mismatch.path!r}: {why}", argument, given)


def _repaired_call(tool: Tool, given: Mapping[str, Any] | None, bad: str | None) -> dict[str, Any]:
    """The model's own arguments with the faulty one blanked and missing required ones added:
    an enum's first value (right whatever was asked) or ``...`` (the parser refuses a copied
    ``...``), never an invented value the model could copy into its next call or its answer."""
    props = tool.properties
    shown = {k: v for k, v in (given or {}).items() if k in props and k != bad}
    for name in [*tool.required, *([bad] if bad in props else [])]:
        if name not in shown:
            shown[name] = fill_value(props[name])
    return shown


def _argument_error(tool: Tool, problem: str, argument: str | None = None,
                    given: Mapping[str, Any] | None = None) -> ArgumentError:
    example = _repaired_call(tool, given, argument)
    message = f"Invalid input for tool {tool.name}: {problem}. Write it like this: " + json.dumps(
        example, ensure_ascii=False)
    return ArgumentError(message, tool=tool.name, argument=argument, example=example)


_NONE = frozenset({"none", "null"})


def bind_args(tool: Tool, args: Args | None) -> BoundArgs:
    """Turn what the model wrote into keyword arguments for ``tool.fn``, or raise ``ArgumentError``.

    Rules: a bare string goes to the single required argument (or the single
    argument); a JSON object string is read as a dict; argument names match
    ignoring case and ``_``/``-``; one unknown key for a one-argument tool is
    taken to mean that argument (models write ``query`` for ``expression``);
    other unknown keys are an error naming the valid ones; values are coerced
    to their schema types; a tool without arguments ignores whatever it gets.
    """
    props = tool.properties
    repairs: list[str] = []
    if args is None:
        args = {}
    if not props:
        if (isinstance(args, str) and args.strip()) or (isinstance(args, Mapping) and args):
            repairs.append("ignored_arguments")
        return BoundArgs({}, tuple(repairs))
    if isinstance(args, str):
        args = _args_from_text(tool, args, repairs)
    if not isinstance(args, Mapping):
        raise _argument_error(tool, f"expected a JSON object of arguments, got {_show(args)}")
    values = _match_names(tool, args, repairs)
    for name, value in list(values.items()):
        try:
            values[name] = coerce_value(value, props[name], name, repairs)
        except Mismatch as mismatch:
            raise _mismatch_error(tool, mismatch, values) from None
    for name, schema in props.items():
        default = schema.get("default")
        if name in values or "default" not in schema or (isinstance(default, str) and default.strip().lower() in _NONE):
            continue  # "None" written as text is no value either
        try:  # a schema may write its default in another type ("false" for a boolean): it goes in as its type
            values[name] = coerce_value(default, schema, name, [])
        except Mismatch:
            pass  # a default that fits no reading of its own type is left to the tool
    return BoundArgs(values, tuple(dict.fromkeys(repairs)))


def _args_from_text(tool: Tool, args: str, repairs: list[str]) -> Any:
    """Arguments the model wrote as text: a JSON object of them, or the value of the one argument."""
    props, required = tool.properties, tool.required
    text = args.strip()
    parsed = json_or_none(text) if text.startswith(("{", '"')) else None
    if isinstance(parsed, dict) and _reads_as_arguments(parsed, props):
        repairs.append("json_string")
        return parsed
    target = required[0] if len(required) == 1 else next(iter(props)) if len(props) == 1 else None
    if target is None:
        names = ", ".join(props)
        raise _argument_error(tool, f"it takes several arguments ({names}); write them as a JSON object")
    value: Any = args
    if isinstance(parsed, str):
        value, text = parsed, parsed
        repairs.append("unquoted")
    if text or target in required:
        repairs.append("bare_string")
        return {target: value}
    return {}  # an empty input for an optional argument: use its default


def _match_names(tool: Tool, args: Mapping[Any, Any], repairs: list[str]) -> dict[str, Any]:
    """The model's arguments under the tool's own names; unknown or missing names are an ``ArgumentError``."""
    props = tool.properties
    by_key = {name_key(name): name for name in props}
    values: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in args.items():
        name = key if key in props else by_key.get(name_key(str(key)))
        if name is None and empty_value(value) and props:
            repairs.append("dropped_empty_argument")  # "attendees": 0 copied from a look-alike tool
            continue
        if name is None:
            unknown.append(str(key))
            continue
        if name != key:
            repairs.append("renamed_argument")
        if name in values:
            raise _argument_error(tool, f"argument {name!r} was given twice", name, values)
        values[name] = value
    if unknown:
        if len(props) == 1 and len(unknown) == 1 and not values:
            (only,) = props
            values[only] = args[unknown[0]] if unknown[0] in args else next(iter(args.values()))
            repairs.append("renamed_argument")
        else:
            valid = ", ".join(props)
            raise _argument_error(tool, f"unknown argument(s) {', '.join(map(repr, unknown))}; "
                                        f"valid arguments are: {valid}", unknown[0], values)
    missing = [name for name in tool.required if name not in values]
    if missing:
        raise _argument_error(tool, f"missing required argument(s) {', '.join(map(repr, missing))}", missing[0],
                              values)
    return values


def _reads_as_arguments(parsed: dict, props: Mapping[str, Any]) -> bool:
    """Is a JSON object the model sent as text the arguments, or the value of a lone text argument?"""
    if len(props) != 1 or next(iter(props.values())).get("type") not in ("string", None):
        return True
    keys = {name_key(name) for name in props}
    return all(name_key(str(k)) in keys for k in parsed)


def coerce_args(tool: Tool, args: Args | None) -> dict[str, Any]:
    """Validated, coerced keyword arguments for ``tool`` (see ``bind_args``); raises ``ArgumentError``."""
    return bind_args(tool, args).values
