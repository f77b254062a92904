"""Tools: declaring them, from a Python function (``@tool``) or a JSON schema dict (``tool_from_schema``).

A ``Tool`` is what the model is told about (name, description, a JSON schema
of its arguments) plus the function behind it. Schemas come from type hints
and docstrings because a description written once, beside the code, cannot
drift from what the function accepts; unsupported hints fail at declaration,
for the programmer, rather than confusing the model later.

What happens to a tool after it is declared lives beside this module, one job
each: :mod:`react_text.tools.arguments` checks and mends the model's arguments,
:mod:`react_text.tools.calling` calls the tool safely (timeout, redaction) and
:mod:`react_text.tools.results` renders what it returned as bounded text. Their
public names are re-exported here, so ``from react_text.tools.spec import ...``
stays the one import a user needs.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from .arguments import ArgumentError, BoundArgs, bind_args, coerce_args, example_value
from .calling import Redact, _strip_fields, call_tool  # noqa: F401 - re-exported (the redaction rule is tested here)
from .results import COUNT_LIMIT, DEFAULT_MAX_CHARS, render_result  # noqa: F401 - re-exported

__all__ = [
    "ArgumentError",
    "BoundArgs",
    "Tool",
    "ToolDefinitionError",
    "bind_args",
    "call_tool",
    "coerce_args",
    "parse_docstring",
    "render_result",
    "schema_from_function",
    "tool",
    "tool_from_schema",
]

DEFAULT_TIMEOUT = 10.0

_NAME_RE = re.compile(r"^[^\W\d][\w.\-]*$")


class ToolDefinitionError(TypeError):
    """A tool could not be declared (bad name, unsupported annotation, malformed schema).

    Raised at declaration time, for the programmer, never for the model.
    """


# --- the Tool record ---------------------------------------------------------

@dataclass(frozen=True)
class Tool:
    """A callable the model may use, described by a JSON schema.

    ``parameters`` is a JSON schema object (``type``, ``properties``,
    ``required``); treat it as read-only. ``timeout`` is in seconds (None: no
    limit, the call runs in the caller's thread); ``max_chars`` bounds the
    observation text. Calling a ``Tool`` calls ``fn`` directly, so a function
    decorated with ``@tool`` still works as a function.

    ``side_effects`` marks a tool that changes the world (writes, sends, pays):
    the loop never runs it alongside other calls of the same turn, and runs
    the turn's calls in the order written around it. ``cacheable`` marks a
    pure tool (same arguments, same result) whose results may be kept across
    runs in a persistent cache, keyed by ``name``, ``version`` and the
    arguments; bump ``version`` when the tool's behaviour changes.
    """

    name: str
    description: str
    parameters: dict[str, Any] = field(hash=False)
    fn: Callable[..., Any] = field(repr=False)
    timeout: float | None = DEFAULT_TIMEOUT
    max_chars: int = DEFAULT_MAX_CHARS
    side_effects: bool = False
    cacheable: bool = False
    version: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ToolDefinitionError(
                f"tool name {self.name!r} is not usable: use letters, digits, '_', '.' or '-', "
                "starting with a letter or '_' (the model has to write it)")
        if not callable(self.fn):
            raise ToolDefinitionError(f"tool {self.name!r}: fn must be callable, got {type(self.fn).__name__}")
        if self.timeout is not None and not (self.timeout > 0):
            raise ToolDefinitionError(f"tool {self.name!r}: timeout must be positive seconds or None")
        if not isinstance(self.max_chars, int) or self.max_chars < 1:
            raise ToolDefinitionError(f"tool {self.name!r}: max_chars must be a positive integer")
        if self.side_effects and self.cacheable:
            raise ToolDefinitionError(f"tool {self.name!r}: a tool with side effects cannot be cacheable "
                                      "(a cached call would skip the effect)")
        if not isinstance(self.version, str):
            raise ToolDefinitionError(f"tool {self.name!r}: version must be a string, got {self.version!r}")
        _check_parameters(self.name, self.parameters)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    @property
    def properties(self) -> dict[str, dict[str, Any]]:
        return self.parameters.get("properties", {})

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(self.parameters.get("required", ()))

    @property
    def example(self) -> dict[str, Any]:
        """A concrete, valid argument dict: schema ``examples``/``default`` first, else by type."""
        return {key: example_value(key, schema) for key, schema in self.properties.items()
                if key in self.required or "examples" in schema or len(self.properties) == 1}

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI function-calling form of this tool (for prompts and the shim)."""
        return {"type": "function",
                "function": {"name": self.name, "description": self.description,
                             "parameters": self.parameters}}


def _check_parameters(name: str, parameters: Any) -> None:
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise ToolDefinitionError(f"tool {name!r}: parameters must be a JSON schema with \"type\": \"object\"")
    props = parameters.get("properties", {})
    if not isinstance(props, dict) or not all(isinstance(v, dict) for v in props.values()):
        raise ToolDefinitionError(f"tool {name!r}: \"properties\" must map each argument name to a schema dict")
    required = parameters.get("required", [])
    if not isinstance(required, (list, tuple)) or not all(isinstance(r, str) for r in required):
        raise ToolDefinitionError(f"tool {name!r}: \"required\" must be a list of argument names")
    missing = [r for r in required if r not in props]
    if missing:
        raise ToolDefinitionError(f"tool {name!r}: required argument(s) {missing} have no entry in \"properties\"")


# --- schemas from Python functions ----------------------------------------------

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


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


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
        elif _jsonable(param.default):
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


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None,
         timeout: float | None = DEFAULT_TIMEOUT, max_chars: int = DEFAULT_MAX_CHARS,
         examples: Mapping[str, Any] | None = None, side_effects: bool = False, cacheable: bool = False,
         version: str = "") -> Any:
    """Declare a tool from a function's type hints and docstring; bare or with options.

    ``examples`` maps argument names to a concrete value shown to the model in
    error messages and tool descriptions (a real value teaches better than a
    placeholder, which small models echo back). ``side_effects``,
    ``cacheable`` and ``version``: see :class:`Tool`.
    """

    def build(func: Callable[..., Any]) -> Tool:
        doc_description, parameters = schema_from_function(func, examples=examples)
        return Tool(name=name or func.__name__, description=description or doc_description,
                    parameters=parameters, fn=func, timeout=timeout, max_chars=max_chars,
                    side_effects=side_effects, cacheable=cacheable, version=version)

    return build(fn) if fn is not None else build


_TYPE_ALIASES = {"dict": "object", "float": "number", "int": "integer", "str": "string",
                 "bool": "boolean", "list": "array", "tuple": "array", "double": "number",
                 "long": "integer", "any": None}


def _normalise_schema(schema: Any, depth: int = 0) -> Any:
    """Copy a schema, mapping Python-ish type names (``dict``, ``float``...) to JSON schema."""
    if depth > 32:
        raise ToolDefinitionError("schema is nested too deeply")
    if isinstance(schema, list):
        return [_normalise_schema(s, depth + 1) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            kinds = [_TYPE_ALIASES.get(k, k) if isinstance(k, str) else k
                     for k in (value if isinstance(value, list) else [value])]
            kinds = [k for k in kinds if k is not None]
            if kinds:
                out["type"] = kinds if isinstance(value, list) else kinds[0]
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: _normalise_schema(v, depth + 1) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf"):
            out[key] = _normalise_schema(value, depth + 1)
        else:
            out[key] = json.loads(json.dumps(value)) if _jsonable(value) else value
    return out


def tool_from_schema(schema: Mapping[str, Any], fn: Callable[..., Any], *,
                     timeout: float | None = DEFAULT_TIMEOUT, max_chars: int = DEFAULT_MAX_CHARS,
                     side_effects: bool | None = None, cacheable: bool = False, version: str = "") -> Tool:
    """Declare a tool from an OpenAI-style schema dict and the function that implements it.

    Accepts ``{"type": "function", "function": {...}}`` or the bare
    ``{"name", "description", "parameters"}``; ``"type": "dict"`` (as in the
    Berkeley function-calling data) is read as ``"object"``. A truthy
    ``"x-side-effects"`` beside ``"name"`` (or on the outer object) marks a
    tool with side effects unless ``side_effects`` says otherwise.
    """
    if not isinstance(schema, Mapping):
        raise ToolDefinitionError(f"tool schema must be a dict, got {type(schema).__name__}")
    spec = schema.get("function") if schema.get("type") == "function" else schema
    if not isinstance(spec, Mapping):
        raise ToolDefinitionError("tool schema of type \"function\" needs a \"function\" object")
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise ToolDefinitionError(f"tool schema needs a \"name\" string, got {name!r}")
    description = spec.get("description") or ""
    if not isinstance(description, str):
        raise ToolDefinitionError(f"tool {name!r}: \"description\" must be a string")
    parameters = spec.get("parameters")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, Mapping):
        raise ToolDefinitionError(f"tool {name!r}: \"parameters\" must be a JSON schema object")
    parameters = _normalise_schema(dict(parameters))
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    if side_effects is None:
        side_effects = bool(spec.get("x-side-effects") or schema.get("x-side-effects"))
    return Tool(name=name, description=description, parameters=parameters, fn=fn,
                timeout=timeout, max_chars=max_chars, side_effects=side_effects, cacheable=cacheable,
                version=version)
