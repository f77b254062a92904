"""Tools as a template sees them: data views of a tool's JSON schema, and the notations a prompt
writes them in (JSON argument shapes, Python argument lists, parameter notes).

Why a view: a template is untrusted text, so it gets names, descriptions and types,
never the callable behind a tool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class ParamSpec:
    """One tool parameter as a template sees it (a view of the JSON schema)."""

    name: str
    type: str
    """JSON-schema type (``string``, ``integer``, ..., or ``any``)."""
    pytype: str
    """The same type in Python spelling (``str``, ``int``, ``list[str]``, ...)."""
    required: bool
    description: str = ""
    enum: tuple[Any, ...] | None = None
    has_default: bool = False
    default: Any = None


@dataclass(frozen=True)
class ToolSpec:
    """A tool as a template sees it: data only, never the callable behind it."""

    name: str
    description: str
    parameters: tuple[ParamSpec, ...]
    schema: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The raw parameters schema, for templates that want to print it whole."""


_TYPE_ALIASES = {
    "dict": "object",
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
}
_PYTYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
    "null": "None",
    "any": "any",
}


def _json_type(prop: Mapping[str, Any]) -> str:
    raw = prop.get("type")
    if isinstance(raw, (list, tuple)):
        raw = next((t for t in raw if t != "null"), "null")
    if isinstance(raw, str):
        return _TYPE_ALIASES.get(raw, raw)
    enum = prop.get("enum")
    if isinstance(enum, (list, tuple)) and enum:
        first = enum[0]
        if isinstance(first, bool):
            return "boolean"
        if isinstance(first, int):
            return "integer"
        if isinstance(first, float):
            return "number"
        if isinstance(first, str):
            return "string"
    return "any"


def _pytype(prop: Mapping[str, Any], json_type: str) -> str:
    base = _PYTYPES.get(json_type, json_type)
    if json_type == "array" and isinstance(prop.get("items"), Mapping):
        inner = _json_type(prop["items"])
        if inner != "any":
            return f"list[{_PYTYPES.get(inner, inner)}]"
    return base


def param_specs(schema: Any, tool_name: str) -> tuple[ParamSpec, ...]:
    """The parameters of a JSON-schema object, in its property order; TypeError for a malformed schema."""
    if schema is None:
        return ()
    if not isinstance(schema, Mapping):
        raise TypeError(f"tool {tool_name!r}: parameters must be a JSON-schema object, not {type(schema).__name__}")
    props = schema.get("properties") or {}
    if not isinstance(props, Mapping):
        raise TypeError(f"tool {tool_name!r}: 'properties' must be an object")
    required = set(schema.get("required") or ())
    specs = []
    for name, prop in props.items():
        prop = prop if isinstance(prop, Mapping) else {}
        json_type = _json_type(prop)
        enum = prop.get("enum")
        specs.append(
            ParamSpec(
                name=str(name),
                type=json_type,
                pytype=_pytype(prop, json_type),
                required=name in required,
                description=str(prop.get("description") or "").strip(),
                enum=tuple(enum) if isinstance(enum, (list, tuple)) else None,
                has_default="default" in prop,
                default=prop.get("default"),
            )
        )
    return tuple(specs)


def spec_from_dict(entry: Mapping[str, Any]) -> ToolSpec:
    """An OpenAI-style tool description (wrapped in ``function`` or bare) as a view."""
    if isinstance(entry.get("function"), Mapping):  # OpenAI {"type": "function", "function": {...}}
        entry = entry["function"]
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"tool description has no 'name': {dict(entry)!r:.120}")
    params = entry.get("parameters")
    return ToolSpec(
        name=name.strip(),
        description=str(entry.get("description") or "").strip(),
        parameters=param_specs(params, name),
        schema=dict(params or {}),
    )


# --- notations a prompt writes a tool's arguments in (template filters) -------------------


def json_args(tool: ToolSpec) -> str:
    """``{"query": string, "limit": integer (optional)}``: the JSON argument shape."""
    parts = []
    for p in tool.parameters:
        kind = " | ".join(json.dumps(v, ensure_ascii=False) for v in p.enum) if p.enum else p.type
        note = ""
        if not p.required:
            note = f" (optional, default {json.dumps(p.default, ensure_ascii=False)})" if p.has_default else " (optional)"
        parts.append(f"{json.dumps(p.name, ensure_ascii=False)}: {kind}{note}")
    return "{" + ", ".join(parts) + "}"


def py_args(tool: ToolSpec) -> str:
    """``query: str, limit: int = 5``: the argument list of a Python-style call."""
    parts = []
    for p in tool.parameters:
        kind = " | ".join(json.dumps(v, ensure_ascii=False) for v in p.enum) if p.enum else p.pytype
        text = f"{p.name}: {kind}"
        if not p.required:
            text += f" = {json.dumps(p.default, ensure_ascii=False) if p.has_default else 'None'}"
        parts.append(text)
    return ", ".join(parts)


def param_notes(tool: ToolSpec) -> str:
    """``query: words to look for; limit: how many``: the parameters that carry a description."""
    return "; ".join(f"{p.name}: {p.description.rstrip('.')}" for p in tool.parameters if p.description)
