"""Tools: declaring them, checking a model's arguments, and calling them safely.

A small model's tool call is a guess: wrong types (``"3"`` for 3), a bare
string where a dict was expected, a near-miss argument name. This module turns
such guesses into a real call when the intent is unambiguous, and into an
``ArgumentError`` written *for the model* (which argument, what type, an
example) when it is not. Whatever the tool then does -- raise, hang, return
megabytes or bytes -- ``call_tool`` turns it into an ``Observation`` and never
raises, except for ``KeyboardInterrupt``, which always reaches the caller.

Sections: the ``Tool`` record; building schemas from Python functions
(``@tool``) or JSON schema dicts (``tool_from_schema``); argument binding and
coercion (``bind_args`` / ``coerce_args``); calling (``call_tool``); rendering
results as bounded text.
"""

from __future__ import annotations

import contextvars
import dataclasses
import inspect
import json
import math
import re
import threading
import time
import types
import typing
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from .types import Args, Observation

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
DEFAULT_MAX_CHARS = 2000

_NAME_RE = re.compile(r"^[^\W\d][\w.\-]*$")


class ToolDefinitionError(TypeError):
    """A tool could not be declared (bad name, unsupported annotation, malformed schema).

    Raised at declaration time, for the programmer, never for the model.
    """


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


# --- the Tool record ---------------------------------------------------------

@dataclass(frozen=True)
class Tool:
    """A callable the model may use, described by a JSON schema.

    ``parameters`` is a JSON schema object (``type``, ``properties``,
    ``required``); treat it as read-only. ``timeout`` is in seconds (None: no
    limit, the call runs in the caller's thread); ``max_chars`` bounds the
    observation text. Calling a ``Tool`` calls ``fn`` directly, so a function
    decorated with ``@tool`` still works as a function.
    """

    name: str
    description: str
    parameters: dict[str, Any] = field(hash=False)
    fn: Callable[..., Any] = field(repr=False)
    timeout: float | None = DEFAULT_TIMEOUT
    max_chars: int = DEFAULT_MAX_CHARS

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
        return {key: _example_value(key, schema) for key, schema in self.properties.items()
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
         examples: Mapping[str, Any] | None = None) -> Any:
    """Declare a tool from a function's type hints and docstring; bare or with options.

    ``examples`` maps argument names to a concrete value shown to the model in
    error messages and tool descriptions (a real value teaches better than a
    placeholder, which small models echo back).
    """

    def build(func: Callable[..., Any]) -> Tool:
        doc_description, parameters = schema_from_function(func, examples=examples)
        return Tool(name=name or func.__name__, description=description or doc_description,
                    parameters=parameters, fn=func, timeout=timeout, max_chars=max_chars)

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
                     timeout: float | None = DEFAULT_TIMEOUT, max_chars: int = DEFAULT_MAX_CHARS) -> Tool:
    """Declare a tool from an OpenAI-style schema dict and the function that implements it.

    Accepts ``{"type": "function", "function": {...}}`` or the bare
    ``{"name", "description", "parameters"}``; ``"type": "dict"`` (as in the
    Berkeley function-calling data) is read as ``"object"``.
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
    return Tool(name=name, description=description, parameters=parameters, fn=fn,
                timeout=timeout, max_chars=max_chars)


# --- binding and coercing arguments ----------------------------------------------

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
    except (TypeError, ValueError):
        text = _safe_str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _example_value(name: str, schema: Mapping[str, Any]) -> Any:
    if schema.get("examples"):
        return schema["examples"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    return {"integer": 3, "number": 2.5, "boolean": True, "array": [], "object": {}}.get(kind, "text")


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
    if len(text) > 1_000_000:
        return None
    try:
        return json.loads(text)
    except ValueError:
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


def _mismatch_error(tool: Tool, mismatch: _Mismatch) -> ArgumentError:
    argument = re.split(r"[.\[]", mismatch.path, maxsplit=1)[0]
    why = mismatch.why or f"expected {_expected(mismatch.schema)}, got {_show(mismatch.value)}"
    return _argument_error(tool, f"argument {mismatch.path!r}: {why}", argument)


def _argument_error(tool: Tool, problem: str, argument: str | None = None) -> ArgumentError:
    example = tool.example
    if argument in tool.properties and argument not in example:
        example[argument] = _example_value(argument, tool.properties[argument])
    message = f"Invalid input for tool {tool.name}: {problem}. Example input: " + json.dumps(
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
            raise _argument_error(tool, f"argument {name!r} was given twice", name)
        values[name] = value
    if unknown:
        if len(props) == 1 and len(unknown) == 1 and not values:
            (only,) = props
            values[only] = args[unknown[0]] if unknown[0] in args else next(iter(args.values()))
            repairs.append("renamed_argument")
        else:
            valid = ", ".join(props)
            raise _argument_error(tool, f"unknown argument(s) {', '.join(map(repr, unknown))}; "
                                        f"valid arguments are: {valid}", unknown[0])
    missing = [name for name in required if name not in values]
    if missing:
        raise _argument_error(tool, f"missing required argument(s) {', '.join(map(repr, missing))}", missing[0])
    for name, value in list(values.items()):
        try:
            values[name] = _coerce_value(value, props[name], name, repairs)
        except _Mismatch as mismatch:
            raise _mismatch_error(tool, mismatch) from None
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


# --- calling -------------------------------------------------------------------

Redact = Union[Callable[[str, Any], Any], Collection[str]]

_RETRYABLE_NAMES = ("Timeout", "ConnectionError", "TemporaryFailure", "ServiceUnavailable")


def _retryable(exc: BaseException) -> bool:
    flag = getattr(exc, "retryable", None)
    if isinstance(flag, bool):
        return flag
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return any(any(n in cls.__name__ for n in _RETRYABLE_NAMES) for cls in type(exc).__mro__)


class _Outcome:
    """Where the worker thread leaves its result; read only after the thread finished."""

    __slots__ = ("value", "error")

    def __init__(self) -> None:
        self.value: Any = None
        self.error: BaseException | None = None


def _run(fn: Callable[..., Any], kwargs: dict[str, Any], timeout: float | None) -> tuple[bool, _Outcome]:
    """Run ``fn(**kwargs)``; returns (finished, outcome).

    With a timeout the call runs in a daemon thread. Python cannot kill a
    thread, so a call that overruns is *abandoned*: it keeps running in the
    background until it returns (or the process exits) and its result is
    dropped. Tools that can hang on I/O should set their own socket timeouts.
    """
    outcome = _Outcome()

    def work() -> None:
        try:
            outcome.value = fn(**kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            outcome.error = exc

    if timeout is None or math.isinf(timeout):
        work()
        return True, outcome
    context = contextvars.copy_context()
    worker = threading.Thread(target=context.run, args=(work,), daemon=True,
                              name=f"react-text-tool-{getattr(fn, '__name__', 'fn')}")
    worker.start()
    worker.join(timeout)  # Ctrl-C interrupts this wait and propagates
    return not worker.is_alive(), outcome


def call_tool(tool: Tool, args: Args | None, *, timeout: float | None = None, max_chars: int | None = None,
              redact: Redact | None = None) -> Observation:
    """Call ``tool`` with the model's ``args`` and describe what happened; never raises.

    Codes: ``ok``; ``bad_arguments`` (retryable: the model can fix its call);
    ``tool_error`` (the exception's type and message, no traceback; retryable
    only for timeout/connection-like errors); ``timeout`` (not retryable: the
    abandoned call is still running); ``redaction_error`` (the hook failed, so
    nothing is shown). ``KeyboardInterrupt`` always propagates.
    ``redact`` is either ``hook(tool_name, result) -> result`` or a set of
    field names dropped from dict results at any depth (e.g. api keys).
    """
    started = time.perf_counter()
    limit = max_chars if max_chars is not None else tool.max_chars
    limit = max(1, limit)
    seconds = tool.timeout if timeout is None else timeout

    def observe(ok: bool, text: str, code: str, retryable: bool = False, truncated: bool = False) -> Observation:
        if not truncated and len(text) > limit:
            text, truncated = _cut(text, limit, len(text) - limit), True
        return Observation(ok=ok, text=text, code=code, retryable=retryable, truncated=truncated,
                           seconds=time.perf_counter() - started)

    try:
        bound = bind_args(tool, args)
    except ArgumentError as exc:
        return observe(False, str(exc), "bad_arguments", retryable=True)
    finished, outcome = _run(tool.fn, bound.values, seconds)
    if not finished:
        return observe(False, f"Tool {tool.name} did not finish within {seconds:g} seconds and was abandoned.",
                       "timeout")
    if isinstance(outcome.error, KeyboardInterrupt):
        raise outcome.error
    if outcome.error is not None:
        exc = outcome.error
        message = _safe_str(exc)
        text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
        return observe(False, f"Tool {tool.name} failed: {text}", "tool_error", retryable=_retryable(exc))
    value = outcome.value
    outcome.value = None  # keep a single reference to a possibly huge result
    if redact is not None:
        try:
            if callable(redact):
                value = redact(tool.name, value)
            else:
                value = _strip_fields(value, {redact} if isinstance(redact, str) else redact)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - fail closed: show nothing unredacted
            return observe(False, f"The result of {tool.name} was withheld: redaction failed "
                                  f"({type(exc).__name__}).", "redaction_error")
    text, truncated = render_result(value, limit)
    return observe(True, text, "ok", truncated=truncated)


def _strip_fields(value: Any, names: Any, _depth: int = 0, _seen: set[int] | None = None) -> Any:
    """A copy of ``value``'s containers without dict keys in ``names`` (case-insensitive), at any depth.

    Leaves are shared, not copied, so the cost is one pass over the containers.
    """
    folded = names if _depth else {str(n).casefold() for n in names}
    seen = _seen if _seen is not None else set()
    if not isinstance(value, (dict, list, tuple)):
        return value
    if _depth > 64:
        return "[too deep to check]"  # fail closed: a secret may hide below
    if id(value) in seen:
        return "[circular]"
    seen.add(id(value))
    try:
        if isinstance(value, dict):
            return {k: _strip_fields(v, folded, _depth + 1, seen) for k, v in value.items()
                    if str(k).casefold() not in folded}
        return [_strip_fields(v, folded, _depth + 1, seen) for v in value]
    finally:
        seen.discard(id(value))


# --- rendering results as bounded text ---------------------------------------------

COUNT_LIMIT = 1_000_000
"""Past this many characters of rendered output we stop counting and say "more than"."""

_MAX_DEPTH = 64
_STRING_SLICE = 8192


def _safe_str(value: Any) -> str:
    """``str(value)`` that cannot raise and never shows a bare ``<object at 0x...>``."""
    cls = type(value)
    if cls.__str__ is object.__str__ and cls.__repr__ is object.__repr__:
        return f"<{cls.__name__} object>"
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - an object whose __str__ is broken
        return f"<{cls.__name__} object (unprintable)>"
    return re.sub(r" at 0x[0-9a-fA-F]+>", ">", text)


def _scalar_json(value: Any) -> str | None:
    """JSON text of a small scalar, or None when the value needs the streaming walk."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() < 10_000:
            return str(value)
        return f'"<integer with about {int(value.bit_length() * 0.30103)} digits>"'
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else json.dumps(str(value))
    if isinstance(value, str) and len(value) <= _STRING_SLICE:
        return json.dumps(value, ensure_ascii=False)
    return None


def _json_chunks(value: Any, depth: int, active: set[int]) -> Iterator[str]:
    """Stream ``value`` as compact JSON text, piece by piece, so a caller can stop early."""
    scalar = _scalar_json(value)
    if scalar is not None:
        yield scalar
    elif isinstance(value, str):
        yield '"'
        for start in range(0, len(value), _STRING_SLICE):
            yield json.dumps(value[start:start + _STRING_SLICE], ensure_ascii=False)[1:-1]
        yield '"'
    elif isinstance(value, (bytes, bytearray, memoryview)):
        yield json.dumps(_binary_note(value))
    elif depth >= _MAX_DEPTH:
        yield '"..."'
    elif isinstance(value, (dict, list, tuple, set, frozenset)) or dataclasses.is_dataclass(value):
        marker = id(value)
        if marker in active:
            yield '"[circular]"'
            return
        active.add(marker)
        try:
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                value = {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
            if isinstance(value, dict):
                separator = "{"
                for key, item in value.items():
                    key_text = key if isinstance(key, str) else _safe_str(key)
                    head = separator + json.dumps(key_text[:1000], ensure_ascii=False) + ": "
                    separator = ", "
                    scalar = _scalar_json(item)
                    if scalar is not None:
                        yield head + scalar
                    else:
                        yield head
                        yield from _json_chunks(item, depth + 1, active)
                yield "{}" if separator == "{" else "}"
            else:
                if isinstance(value, (set, frozenset)):
                    value = sorted(value, key=repr) if len(value) <= 10_000 else list(value)
                separator = "["
                for item in value:
                    scalar = _scalar_json(item)
                    if scalar is not None:
                        yield separator + scalar
                    else:
                        yield separator
                        yield from _json_chunks(item, depth + 1, active)
                    separator = ", "
                yield "[]" if separator == "[" else "]"
        finally:
            active.discard(marker)
    else:
        isoformat = getattr(value, "isoformat", None)
        text = _safe_str(value) if not callable(isoformat) else _call_str(isoformat, value)
        yield from _json_chunks(text, depth, active)


def _call_str(method: Callable[[], Any], value: Any) -> str:
    try:
        return str(method())
    except Exception:  # noqa: BLE001
        return _safe_str(value)


def _is_structured(value: Any) -> bool:
    """Values rendered as JSON (containers, dataclasses, plain numbers); others become plain text."""
    return (isinstance(value, (dict, list, tuple, set, frozenset, bool, int, float))
            or (dataclasses.is_dataclass(value) and not isinstance(value, type)))


def _binary_note(data: bytes | bytearray | memoryview) -> str:
    return f"<{memoryview(data).nbytes} bytes of binary data>"


def _cut(text: str, limit: int, dropped: int, more: bool = False) -> str:
    count = f"more than {dropped}" if more else str(dropped)
    return text[:limit] + f"\n…[truncated {count} chars]"


def render_result(value: Any, max_chars: int = DEFAULT_MAX_CHARS) -> tuple[str, bool]:
    """Text the model sees for a tool's return value, cut to ``max_chars``; returns (text, truncated).

    Strings pass through; bytes become a size note; None and empty text say
    so (an empty observation confuses small models); everything else becomes
    JSON, streamed so that a huge result costs at most ``max_chars`` of copy
    and stops being counted after ``COUNT_LIMIT`` characters.
    """
    if isinstance(value, str):
        text = "(empty result)" if not value or value.isspace() else value
        if len(text) > max_chars:
            return _cut(text, max_chars, len(text) - max_chars), True
        return text, False
    if value is None:
        return "(no result)", False
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _binary_note(value), False
    if not _is_structured(value):
        isoformat = getattr(value, "isoformat", None)
        return render_result(_call_str(isoformat, value) if callable(isoformat) else _safe_str(value), max_chars)
    kept: list[str] = []
    size = 0
    total = 0
    stopped = False
    try:
        for chunk in _json_chunks(value, 0, set()):
            total += len(chunk)
            if size < max_chars:
                piece = chunk[:max_chars - size]
                kept.append(piece)
                size += len(piece)
            if total > COUNT_LIMIT:
                stopped = True
                break
    except Exception as exc:  # noqa: BLE001 - e.g. a container mutated while we walked it
        kept.append(f" …[rendering stopped: {type(exc).__name__}]")
    text = "".join(kept)
    if total > max_chars:
        return _cut(text, max_chars, total - max_chars, more=stopped), True
    return text or "(empty result)", False
