"""Coercing one value to its JSON schema: what a small model meant, when that is unambiguous.

``"3"`` for an integer, ``"yes"`` for a boolean, ``"a, b"`` for a list, a
JSON string for an object: each such mend is recorded as a repair code
(``coerced_type``, ``enum_case``) so a trace shows how forgiving the call
was. A value that fits no reading raises :class:`Mismatch`, which carries the
path of the offending (possibly nested) value for the message to the model.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Callable

__all__ = ["Mismatch", "coerce_value", "json_or_none", "name_key"]

_TRUE = {"true", "yes", "y", "on", "1", "t"}
_FALSE = {"false", "no", "n", "off", "0", "f"}
_NULL = {"null", "none", "nil", ""}


class Mismatch(Exception):
    """A value does not fit its schema; carries the path (``items[2].when``) for the message to the model."""

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


_NO_FIT = object()
"""Returned by a kind's coercer when the value does not fit (None is a value: JSON null)."""


def _as_string(value: Any, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        repairs.append("coerced_type")
        return json.dumps(value)
    return _NO_FIT


def _numeric(convert: Callable[[Any], Any]) -> Callable[..., Any]:
    """A coercer for one JSON number type: ``convert``'s value (a repair when it is not the value given)."""

    def coerce(value: Any, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int) -> Any:
        number = convert(value)
        if number is None:
            return _NO_FIT
        if number is not value:
            repairs.append("coerced_type")
        return number

    return coerce


_as_integer = _numeric(_to_int)
_as_number = _numeric(_to_number)


def _as_boolean(value: Any, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        repairs.append("coerced_type")
        return bool(value)
    if isinstance(value, str) and value.strip().casefold() in _TRUE | _FALSE:
        repairs.append("coerced_type")
        return value.strip().casefold() in _TRUE
    return _NO_FIT


def _as_null(value: Any, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int) -> Any:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().casefold() in _NULL:
        repairs.append("coerced_type")
        return None
    return _NO_FIT


def _as_array(value: Any, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int) -> Any:
    items = value
    if isinstance(value, (tuple, set, frozenset)):
        items = list(value)
    elif isinstance(value, str):
        text = value.strip()
        parsed = json_or_none(text) if text.startswith("[") else None
        if isinstance(parsed, list):
            items = parsed
        elif text:
            items = [part.strip() for part in text.split(",")] if "," in text else [text]
        else:
            items = []
        repairs.append("coerced_type")
    if not isinstance(items, list):
        return _NO_FIT
    item_schema = schema.get("items")
    if isinstance(item_schema, dict) and item_schema:
        return [coerce_value(v, item_schema, f"{path}[{i}]", repairs, depth + 1) for i, v in enumerate(items)]
    return list(items)


def _as_object(value: Any, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int) -> Any:
    obj = value
    if isinstance(value, str):
        obj = json_or_none(value.strip())
        if isinstance(obj, dict):
            repairs.append("coerced_type")
    if not isinstance(obj, dict):
        return _NO_FIT
    return _coerce_object(obj, schema, path, repairs, depth + 1)


_COERCERS = {"string": _as_string, "integer": _as_integer, "number": _as_number, "boolean": _as_boolean,
             "null": _as_null, "array": _as_array, "object": _as_object}


def _coerce_kind(value: Any, kind: str, schema: Mapping[str, Any], path: str, repairs: list[str],
                 depth: int) -> Any:
    """Coerce to one JSON schema type, or raise Mismatch."""
    coerce = _COERCERS.get(kind) if isinstance(kind, str) else None
    if coerce is None:  # unknown type keyword: do not guess
        return value
    result = coerce(value, schema, path, repairs, depth)
    if result is _NO_FIT:
        raise Mismatch(path, schema, value)
    return result


def json_or_none(text: str) -> Any:
    """``text`` read as JSON, or None; nesting too deep for Python's recursion limit reads as not JSON."""
    if len(text) > 1_000_000:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _coerce_object(obj: dict, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int) -> dict:
    """An object's keys under the schema's names (matched ignoring case and ``_``/``-``, as top-level
    arguments are), each value coerced. With ``properties`` declared and ``additionalProperties`` not
    allowed outright, an unknown key or a missing required one is a mismatch naming the right keys:
    a tool would otherwise ignore ``{"length_cm": 40}`` and answer for a parcel without a size."""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    extra = schema.get("additionalProperties")
    strict = bool(props) and extra is not True and not isinstance(extra, dict)
    by_key = {name_key(name): name for name in props}
    out: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in obj.items():
        name = key if key in props else by_key.get(name_key(str(key)))
        if name is not None and name != key:
            repairs.append("renamed_key")
        sub = props.get(name) if name is not None else extra if isinstance(extra, dict) else None
        if name is None and strict:
            unknown.append(str(key))
            continue
        if (name or key) in out:
            raise Mismatch(path, schema, obj, f"key {name!r} was given twice")
        out[name or key] = coerce_value(value, sub, f"{path}.{name or key}", repairs, depth) if sub else value
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    missing = [name for name in required if name not in out]
    if unknown or (strict and missing):
        problem = (f"unknown key(s) {', '.join(map(repr, unknown))}" if unknown
                   else f"missing key(s) {', '.join(map(repr, missing))}")
        raise Mismatch(path, schema, obj, f"{problem}; its keys are: {', '.join(props)}")
    return out


def name_key(name: str) -> str:
    """How argument and key names meet: ignoring case, spaces, ``_`` and ``-``."""
    return re.sub(r"[_\-\s]", "", name).casefold()


def coerce_value(value: Any, schema: Mapping[str, Any], path: str, repairs: list[str], depth: int = 0) -> Any:
    """Coerce ``value`` to ``schema`` (type, enum, nested items/properties)."""
    if depth > 32:
        raise Mismatch(path, schema, value, "the value is nested too deeply")
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
            except Mismatch as mismatch:
                if mismatch.path != path or mismatch.why:  # a nested element, or the object's keys: report it
                    raise
                continue
            repairs.extend(trial)
            break
        else:
            raise Mismatch(path, schema, value)
    enum = schema.get("enum")
    if enum is not None and result not in enum:
        folded = [v for v in enum if isinstance(v, str) and isinstance(result, str)
                  and v.casefold() == result.strip().casefold()]
        if len(folded) != 1:
            raise Mismatch(path, schema, value)
        repairs.append("enum_case")
        result = folded[0]
    return result
