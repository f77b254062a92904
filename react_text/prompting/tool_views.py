"""Tools as a template sees them: data views of a tool's JSON schema, and the notations a prompt
writes them in (JSON argument shapes, Python argument lists, parameter notes).

Why a view: a template is untrusted text, so it gets names, descriptions and types,
never the callable behind a tool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Union

from ..tools.spec import Tool


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
    """The parameters of a JSON-schema object, the required ones first, each part in property order;
    TypeError for a malformed schema.

    Why required first: that is the order a grammar-constrained call writes them in
    (``grammar.schema.RuleSet.fields``); listed otherwise, a model whose first key is refused
    writes the required one and closes the object, leaving out an optional value the request gave."""
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
    return tuple(sorted(specs, key=lambda spec: not spec.required))


# --- notations a prompt writes a tool's arguments in (template filters) -------------------


def _value_shape(prop: Any, depth: int = 0) -> str:
    """A schema value in the JSON notation: its enum members, ``array of <items>``, or an object's own
    fields (``{"weight_kg": number, ...}``), so nested values are shown, not just ``object``."""
    if not isinstance(prop, Mapping):
        return "any"
    enum = prop.get("enum")
    if isinstance(enum, (list, tuple)) and enum:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in enum)
    kind = _json_type(prop)
    if depth < 2 and kind == "array" and isinstance(prop.get("items"), Mapping):
        return f"array of {_value_shape(prop['items'], depth + 1)}"
    fields = prop.get("properties")
    if depth < 2 and kind in ("object", "any") and isinstance(fields, Mapping) and fields:
        required = set(prop.get("required") or ())
        parts = [f"{json.dumps(str(k), ensure_ascii=False)}: {_value_shape(v, depth + 1)}"
                 + ("" if k in required else " (optional)") for k, v in fields.items()]
        return "{" + ", ".join(parts) + "}"
    return kind


def _param_schema(tool: ToolSpec, p: ParamSpec) -> Any:
    props = tool.schema.get("properties") if isinstance(tool.schema, Mapping) else None
    return props.get(p.name) if isinstance(props, Mapping) else None


def json_args(tool: ToolSpec) -> str:
    """``{"query": string, "limit": integer (optional)}``: the JSON argument shape."""
    parts = []
    for p in tool.parameters:
        kind = _value_shape(_param_schema(tool, p)) if _param_schema(tool, p) is not None else p.type
        note = ""
        if not p.required:
            note = f" (optional, default {json.dumps(p.default, ensure_ascii=False)})" if p.has_default else " (optional)"
        parts.append(f"{json.dumps(p.name, ensure_ascii=False)}: {kind}{note}")
    return "{" + ", ".join(parts) + "}"


_NEEDS = {
    "en": ("required", "optional", "default"),
    "zh": ("必填", "可选", "默认"),
}


def param_lines(tool: ToolSpec, lang: str = "en") -> str:
    """One indented line per parameter -- ``  - location (string, required): The city and state, e.g.
    Berkeley, CA`` -- or nothing when no parameter has a description.

    Why: a description that says what form a value takes ("city and state", a date format) is read
    beside the parameter it shapes, with its type, enum members, and whether it may be left out (and
    at what default), instead of trailing after the whole argument list where a small model loses it.
    Starts with a newline so a template writes it straight after the tool's line."""
    if not any(p.description for p in tool.parameters):
        return ""
    need, optional, default = _NEEDS.get(lang, _NEEDS["en"])
    comma = "，" if lang == "zh" else ", "
    lines = []
    for p in tool.parameters:
        schema = _param_schema(tool, p)
        kind = _value_shape(schema) if schema is not None else p.type
        said = need if p.required else optional
        if not p.required and p.has_default:
            said += f"{comma}{default} {json.dumps(p.default, ensure_ascii=False)}"
        text = f"  - {p.name} ({kind}{comma}{said})"
        lines.append(text + (f": {p.description}" if p.description else ""))
    return "\n" + "\n".join(lines)


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


def signatures(tools: ToolsLike) -> str:
    """The tools as Python signatures, one a line: ``name(a: int, b: str = "x"): description``."""
    return "\n".join(f"{t.name}({py_args(t)}): {t.description}" for t in describe_tools(tools))


def param_notes(tool: ToolSpec) -> str:
    """``query: words to look for; limit: how many``: the parameters that carry a description."""
    return "; ".join(f"{p.name}: {p.description.rstrip('.')}" for p in tool.parameters if p.description)


ToolsLike = Union[Iterable[Any], Mapping[str, Mapping[str, Any]], None]


def describe_tools(tools: ToolsLike) -> tuple[ToolSpec, ...]:
    """Read tools in any accepted shape into the views a template sees.

    Accepts ``Tool`` objects (anything with ``name``, ``description``,
    ``parameters``), OpenAI-style dicts (``{"type": "function", "function": ...}``
    or bare ``{"name", "description", "parameters"}``), plain functions, bare
    names, or a mapping of name to parameters schema (the shape ``parse``
    takes). Each is read by ``Tool.from_any``, so a template is offered exactly
    the tools the agent and the shim accept.
    """
    if tools is None:
        return ()
    if isinstance(tools, Mapping):
        read = [Tool.from_any(schema or {}, name=str(name)) for name, schema in tools.items()]
    else:
        read = [item if isinstance(item, ToolSpec) else Tool.from_any(item) for item in tools]
    specs = [item if isinstance(item, ToolSpec) else
             ToolSpec(item.name, item.description.strip(), param_specs(item.parameters, item.name),
                      dict(item.parameters))
             for item in read]
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise ValueError(f"two tools are named {spec.name!r}")
        seen.add(spec.name)
    return tuple(specs)
