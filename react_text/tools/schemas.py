"""Argument schemas of declared tools: the one check, the one normalisation, a sample value.

Every way of declaring a tool (a function, an OpenAI dict, a bare JSON
schema, a request to the function-calling shim) ends in the same
:func:`check_parameters`, so a schema one entry point accepts is never
refused by another, and each complaint names the field at fault
(``parameters.required``) for callers that report fields rather than prose.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["ToolDefinitionError", "check_parameters", "example_value", "jsonable", "normalise_schema"]


class ToolDefinitionError(TypeError):
    """A tool could not be declared (bad name, unsupported annotation, malformed schema).

    Raised at declaration time, for the programmer, never for the model.
    ``field`` names the part of the declaration at fault (``name``,
    ``parameters.type``, ...; None when it is not one field) and ``problem``
    says what is wrong with it, worded to follow the field's name, so a
    caller with its own notion of where (``tools[2].function``) can say it
    in its own terms.
    """

    def __init__(self, message: str, *, field: str | None = None, problem: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.problem = problem if problem is not None else message


def _schema_error(name: str, field: str, problem: str) -> ToolDefinitionError:
    return ToolDefinitionError(f"tool {name!r}: {field} {problem}", field=field, problem=problem)


def check_parameters(name: str, parameters: Any) -> None:
    """Raise ``ToolDefinitionError`` unless ``parameters`` is a usable JSON schema of an argument object."""
    if not isinstance(parameters, Mapping):
        raise _schema_error(name, "parameters", "must be a JSON schema object")
    kind = parameters.get("type")
    if kind != "object":
        raise _schema_error(name, "parameters.type", f"must be \"object\", got {kind!r}")
    props = parameters.get("properties", {})
    if not isinstance(props, Mapping) or not all(isinstance(v, Mapping) for v in props.values()):
        raise _schema_error(name, "parameters.properties", "must map each argument name to a schema object")
    required = parameters.get("required", [])
    if not isinstance(required, (list, tuple)) or not all(isinstance(r, str) for r in required):
        raise _schema_error(name, "parameters.required", "must be a list of argument names")
    missing = [r for r in required if r not in props]
    if missing:
        raise _schema_error(name, "parameters.required", f"names unknown parameters: {', '.join(missing)}")


def jsonable(value: Any) -> bool:
    """Can ``value`` be written as JSON (a default shown to the model must be)?"""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


_TYPE_ALIASES = {"dict": "object", "float": "number", "int": "integer", "str": "string",
                 "bool": "boolean", "list": "array", "tuple": "array", "double": "number",
                 "long": "integer", "any": None}


def normalise_schema(schema: Any, depth: int = 0) -> Any:
    """Copy a schema, mapping Python-ish type names (``dict``, ``float``...) to JSON schema."""
    if depth > 32:
        raise ToolDefinitionError("schema is nested too deeply")
    if isinstance(schema, list):
        return [normalise_schema(s, depth + 1) for s in schema]
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
            out[key] = {k: normalise_schema(v, depth + 1) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf"):
            out[key] = normalise_schema(value, depth + 1)
        else:
            out[key] = json.loads(json.dumps(value)) if jsonable(value) else value
    return out


def example_value(name: str, schema: Mapping[str, Any]) -> Any:
    """A concrete value for one argument: a real value teaches a small model better than a placeholder."""
    if schema.get("examples"):
        return schema["examples"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    return {"integer": 3, "number": 2.5, "boolean": True, "array": [], "object": {}}.get(kind, "text")
