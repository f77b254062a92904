"""Checking a model's tool arguments against the tool's schema, mending what is unambiguous.

A small model's tool call is a guess: wrong types (``"3"`` for 3), a bare
string where a dict was expected, a near-miss argument name. Such guesses
become a real call when the intent is unambiguous (each mend is recorded as a
repair code, so a trace shows how forgiving the call was), and an
:class:`ArgumentError` written *for the model* (which argument, what type, a
valid example) when it is not.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..protocol.feedback import fill_value
from ..types import Args
from .results import safe_str
from .spec import Tool

__all__ = ["ArgumentError", "BoundArgs", "bind_args", "coerce_args"]


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


_TRUE = {"true", "yes", "y", "on", "1", "t"}
_FALSE = {"false", "no", "n", "off", "0", "f"}
_NULL = {"null", "none", "nil", ""}
_KIND_WORDS = {"string": "a string", "integer": "an integer", "number": "a number",
               "boolean": "true or false", "array": "a list", "object": "an object", "null": "null"}


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).casefold()


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


class _Mismatch(Exception):
    """Internal: a value does not fit its schema; carries the path for the message."""

    def __init__(self, path: str, schema: Mapping[str, Any], value: Any, why: str = "") -> None:
        super().__init__(path)
        self.path, self.schema, self.value, self.why = path, schema, value, why


def _to_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        if re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+", text):
            text = text.replace(",", "")
        if re.fullmatch(r"[+-]?\d{1,400}", text):
            return int(text)
        number = _to_number(text)
        if isinstance(number, float) and number.is_integer():
            return int(number)
    return None


def _to_number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        if re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?", text):
            text = text.replace(",", "")
        if len(text) > 400 or not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
            return None
        number = float(text)
        return number if math.isfinite(number) else None
    return None


def _coerce_kind(value: Any, kind: str, schema: Mapping[str, Any], path: str, repairs: list[str],
                 depth: int) -> Any:
    """Coerce to one JSON schema type, or raise _Mismatch."""
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            repairs.append("coerced_type")
            return json.dumps(value)
    elif kind == "integer":
        number = _to_int(value)
        if number is not None:
            if number is not value:
                repairs.append("coerced_type")
            return number
    elif kind == "number":
        number = _to_number(value)
        if number is not None:
            if number is not value:
                repairs.append("coerced_type")
            return number
    elif kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            repairs.append("coerced_type")
            return bool(value)
        if isinstance(value, str) and value.strip().casefold() in _TRUE | _FALSE:
            repairs.append("coerced_type")
            return value.strip().casefold() in _TRUE
    elif kind == "null":
        if value is None:
            return None
        if isinstance(value, str) and value.strip().casefold() in _NULL:
            repairs.append("coerced_type")
            return None
    elif kind == "array":
        items = value
        if isinstance(value, (tuple, set, frozenset)):
            items = list(value)
        elif isinstance(value, str):
            text = value.strip()
            parsed = _json_or_none(text) if text.startswith("[") else None
            if isinstance(parsed, list):
                items = parsed
            elif text:
                items = [part.strip() for part in text.split(",")] if "," in text else [text]
            else:
                items = []
            repairs.append("coerced_type")
        if isinstance(items, list):
            item_schema = schema.get("items")
            if isinstance(item_schema, dict) and item_schema:
                return [_coerce_value(v, item_schema, f"{path}[{i}]", repairs, depth + 1)
                        for i, v in enumerate(items)]
            return list(items)
    elif kind == "object":
        obj = value
        if isinstance(value, str):
            obj = _json_or_none(value.strip())
            if isinstance(obj, dict):
                repairs.append("coerced_type")
        if isinstance(obj, dict):
            return _coerce_object(obj, schema, path, repairs, depth + 1)
    else:  # unknown type keyword: do not guess
        return value
    raise _Mismatch(path, schema, value)


def _json_or_none(text: str) -> Any:
    """``text`` read as JSON, or None; nesting too deep for Python's recursion limit reads as not JSON."""
    if len(text) > 1_000_000:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _coerce_object(obj: dict, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int) -> dict:
    props = schema.get("properties")
    extra = schema.get("additionalProperties")
    out: dict[str, Any] = {}
    for key, value in obj.items():
        sub = props.get(key) if isinstance(props, dict) else None
        if sub is None and isinstance(extra, dict):
            sub = extra
        out[key] = _coerce_value(value, sub, f"{path}.{key}", repairs, depth) if sub else value
    return out


def _coerce_value(value: Any, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int = 0) -> Any:
    """Coerce ``value`` to ``schema`` (type, enum, nested items/properties)."""
    if depth > 32:
        raise _Mismatch(path, schema, value, "the value is nested too deeply")
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    result = value
    if kinds:
        # null first only for an actual None, so "none" stays a string for string|null
        order = sorted(kinds, key=lambda k: (k != "null") if value is None else (k == "null"))
        for k in order:
            trial: list[str] = []
            try:
                result = _coerce_kind(value, k, schema, path, trial, depth)
            except _Mismatch as mismatch:
                if mismatch.path != path:  # a nested element failed: report that one
                    raise
                continue
            repairs.extend(trial)
            break
        else:
            raise _Mismatch(path, schema, value)
    enum = schema.get("enum")
    if enum is not None and result not in enum:
        folded = [v for v in enum if isinstance(v, str) and isinstance(result, str)
                  and v.casefold() == result.strip().casefold()]
        if len(folded) != 1:
            raise _Mismatch(path, schema, value)
        repairs.append("enum_case")
        result = folded[0]
    return result


def _mismatch_error(tool: Tool, mismatch: _Mismatch, given: Mapping[str, Any] | None = None) -> ArgumentError:
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
    required = tool.required
    repairs: list[str] = []
    if args is None:
        args = {}
    if not props:
        if (isinstance(args, str) and args.strip()) or (isinstance(args, Mapping) and args):
            repairs.append("ignored_arguments")
        return BoundArgs({}, tuple(repairs))
    if isinstance(args, str):
        text = args.strip()
        parsed = _json_or_none(text) if text.startswith(("{", '"')) else None
        if isinstance(parsed, dict) and _reads_as_arguments(parsed, props):
            args = parsed
            repairs.append("json_string")
        else:
            target = required[0] if len(required) == 1 else next(iter(props)) if len(props) == 1 else None
            if target is None:
                names = ", ".join(props)
                raise _argument_error(tool, f"it takes several arguments ({names}); write them as a JSON object")
            if isinstance(parsed, str):
                args, text = parsed, parsed
                repairs.append("unquoted")
            if text or target in required:
                args = {target: args}
                repairs.append("bare_string")
            else:  # an empty input for an optional argument: use its default
                args = {}
    if not isinstance(args, Mapping):
        raise _argument_error(tool, f"expected a JSON object of arguments, got {_show(args)}")
    by_key = {_key(name): name for name in props}
    values: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in args.items():
        name = key if key in props else by_key.get(_key(str(key)))
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
    missing = [name for name in required if name not in values]
    if missing:
        raise _argument_error(tool, f"missing required argument(s) {', '.join(map(repr, missing))}", missing[0],
                              values)
    for name, value in list(values.items()):
        try:
            values[name] = _coerce_value(value, props[name], name, repairs)
        except _Mismatch as mismatch:
            raise _mismatch_error(tool, mismatch, values) from None
    for name, schema in props.items():
        if name not in values and "default" in schema:
            values[name] = schema["default"]
    return BoundArgs(values, tuple(dict.fromkeys(repairs)))


def _reads_as_arguments(parsed: dict, props: Mapping[str, Any]) -> bool:
    """Is a JSON object the model sent as text the arguments, or the value of a lone text argument?"""
    if len(props) != 1 or next(iter(props.values())).get("type") not in ("string", None):
        return True
    keys = {_key(name) for name in props}
    return all(_key(str(k)) in keys for k in parsed)


def coerce_args(tool: Tool, args: Args | None) -> dict[str, Any]:
    """Validated, coerced keyword arguments for ``tool`` (see ``bind_args``); raises ``ArgumentError``."""
    return bind_args(tool, args).values
