"""JSON schemas read from a Python function: its type hints and its docstring.

A description written once, beside the code, cannot drift from what the
function accepts. Hints without a JSON-schema reading (a class, a callable)
fail here, at declaration, for the programmer, rather than confusing the
model later.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Union

from .schemas import ToolDefinitionError, jsonable

__all__ = ["parse_docstring", "schema_from_function"]

_SECTION_RE = re.compile(
    r"^(args|arguments|parameters|params|keyword args|returns?|yields?|raises?|examples?|notes?|"
    r"see also|attributes|warnings?|references)\s*:?\s*$", re.IGNORECASE)
_ARG_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args"}
_GOOGLE_ARG_RE = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ARG_RE = re.compile(r"^\*{0,2}(\w+)\s*(?::\s*.*)?$")
_SPHINX_ARG_RE = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into (first paragraph, per-argument descriptions).

    Reads Google (``Args:``), numpy (``Parameters`` + dashes) and Sphinx
    (``:param x:``) styles; anything else is left out rather than guessed.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or _SECTION_RE.match(stripped) or stripped.startswith(":param"):
            break
        summary.append(stripped)
    params: dict[str, str] = {}
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        sphinx = _SPHINX_ARG_RE.match(stripped)
        if sphinx:
            params[sphinx.group(1)] = sphinx.group(2).strip()
            i += 1
            continue
        header = _SECTION_RE.match(stripped)
        if not header or header.group(1).lower() not in _ARG_SECTIONS:
            i += 1
            continue
        i += 1
        numpy_style = i < len(lines) and set(lines[i].strip()) == {"-"}
        if numpy_style:
            i += 1
        base: int | None = None
        current: str | None = None
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if not stripped:
                i += 1
                if numpy_style and i < len(lines) and set(lines[i].strip()) == {"-"}:
                    break
                continue
            indent = len(line) - len(line.lstrip())
            if base is None:
                base = indent
            if indent < base or (_SECTION_RE.match(stripped) and indent <= base):
                break
            if numpy_style and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
                break
            if indent == base:
                m = (_NUMPY_ARG_RE if numpy_style else _GOOGLE_ARG_RE).match(stripped)
                if m:
                    current = m.group(1)
                    params[current] = m.group(2).strip() if not numpy_style else ""
                else:
                    current = None
            elif current is not None:
                params[current] = (params[current] + " " + stripped).strip()
            i += 1
    return " ".join(summary), {k: v for k, v in params.items() if v}


_SIMPLE_TYPES: dict[Any, str] = {str: "string", bool: "boolean", int: "integer", float: "number",
                                 type(None): "null"}


def _schema_for_annotation(annotation: Any, where: str) -> dict[str, Any]:
    """JSON schema for one parameter annotation; unsupported types fail loudly."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        schema = _schema_for_annotation(args[0], where)
        notes = [a for a in args[1:] if isinstance(a, str)]
        if notes:
            schema["description"] = " ".join(notes)
        return schema
    if isinstance(annotation, type) and annotation in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[annotation]}
    if origin is Literal:
        values = list(args)
        kinds = {_SIMPLE_TYPES.get(type(v)) for v in values}
        schema: dict[str, Any] = {"enum": values}
        if len(kinds) == 1 and None not in kinds:
            schema = {"type": kinds.pop(), "enum": values}
        return schema
    if origin in (Union, types.UnionType):
        return _merge_union([_schema_for_annotation(a, where) for a in args], where)
    if annotation in (list, tuple, set, frozenset) or origin in (list, tuple, set, frozenset, Sequence):
        item_args = [a for a in args if a is not Ellipsis]
        schema = {"type": "array"}
        if len(set(item_args)) == 1:
            schema["items"] = _schema_for_annotation(item_args[0], where)
        return schema
    if annotation in (dict, Mapping) or origin in (dict, Mapping):
        schema = {"type": "object"}
        if len(args) == 2 and args[1] is not Any:
            schema["additionalProperties"] = _schema_for_annotation(args[1], where)
        return schema
    raise ToolDefinitionError(
        f"{where}: unsupported annotation {annotation!r}; use str, int, float, bool, list[...], "
        "dict, Literal[...], Optional[...] or Annotated[..., 'description']")


def _merge_union(members: list[dict[str, Any]], where: str) -> dict[str, Any]:
    if any(not m for m in members):
        return {}
    kinds: list[str] = []
    merged: dict[str, Any] = {}
    for member in members:
        kind = member.get("type")
        if kind is None:
            raise ToolDefinitionError(f"{where}: a union may only combine simple typed members")
        for k in ([kind] if isinstance(kind, str) else kind):
            if k not in kinds:
                kinds.append(k)
        for key, value in member.items():
            if key != "type" and merged.setdefault(key, value) != value:
                raise ToolDefinitionError(f"{where}: union members disagree on {key!r}")
    merged["type"] = kinds[0] if len(kinds) == 1 else kinds
    if "enum" in merged and "null" in kinds and None not in merged["enum"]:
        merged["enum"] = [*merged["enum"], None]
    return merged



def schema_from_function(fn: Callable[..., Any], *,
                         examples: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """(description, parameters schema) of a Python function, from its hints and docstring."""
    where = getattr(fn, "__qualname__", repr(fn))
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"{where}: cannot read its signature ({exc})") from None
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # unresolvable forward refs: fall back to raw annotations
        hints = dict(getattr(fn, "__annotations__", {}))
    description, arg_docs = parse_docstring(inspect.getdoc(fn))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for pname, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(f"{where}: *{pname} / **{pname} cannot be described to a model; "
                                      "name every argument")
        if param.kind is param.POSITIONAL_ONLY:
            raise ToolDefinitionError(f"{where}: positional-only argument {pname!r} is not supported")
        schema = _schema_for_annotation(hints.get(pname, param.annotation), f"{where}({pname})")
        if pname in arg_docs and "description" not in schema:
            schema["description"] = arg_docs[pname]
        if param.default is param.empty:
            required.append(pname)
        elif jsonable(param.default):
            schema["default"] = param.default
        if examples and pname in examples:
            schema["examples"] = [examples[pname]]
        properties[pname] = schema
    unknown = set(examples or ()) - set(properties)
    if unknown:
        raise ToolDefinitionError(f"{where}: examples for unknown argument(s) {sorted(unknown)}")
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return description, parameters
