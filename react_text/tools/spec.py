"""Tools: the one model of a tool (``Tool``) and the ways to declare one.

A ``Tool`` is what the model is told about (name, description, a JSON schema
of its arguments) plus the function behind it. It is declared from a Python
function (``@tool``: the schema comes from type hints and docstring, see
:mod:`react_text.tools.signature`), from an OpenAI-style or bare schema dict
(``tool_from_schema``), or from whichever of these a caller was handed
(``Tool.from_any``). Every route ends in ``Tool.__post_init__``, so every
entry point -- the agent, prompt templates, the function-calling shim --
accepts and refuses the same tools.

What happens to a tool after it is declared lives beside this module, one job
each: :mod:`react_text.tools.arguments` checks and mends the model's arguments,
:mod:`react_text.tools.calling` calls the tool safely (timeout, redaction) and
:mod:`react_text.tools.results` renders what it returned as bounded text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .results import DEFAULT_MAX_CHARS
from .schemas import ToolDefinitionError, check_parameters, example_value, normalise_schema
from .signature import schema_from_function

__all__ = ["DEFAULT_TIMEOUT", "Tool", "tool", "tool_from_schema"]

DEFAULT_TIMEOUT = 10.0

_NAME_RE = re.compile(r"^[^\W\d][\w.\-]*$")
_NAME_RULE = "letters, digits, '_', '.' or '-', starting with a letter or '_'"


def _not_callable(**_: Any) -> Any:
    raise RuntimeError("this tool was described without a function, so it cannot be called")


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
    runs in a persistent cache, keyed by ``name``, the function's module and
    qualified name, ``version`` (without one, a hash of the function's code)
    and the arguments; bump ``version`` when the tool's behaviour changes.
    ``aliases`` are other names a model may write for it (its name in another
    language: ``计算器``); the parser reads them as ``name``, the prompt shows ``name``.
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
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ToolDefinitionError(
                f"tool name {self.name!r} is not usable: use {_NAME_RULE} (the model has to write it)",
                field="name", problem=f"must be {_NAME_RULE} (the model has to write it), got {self.name!r}")
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
        if not isinstance(self.aliases, tuple) or not all(isinstance(a, str) and a.strip() for a in self.aliases):
            raise ToolDefinitionError(f"tool {self.name!r}: aliases must be a tuple of names")
        check_parameters(self.name, self.parameters)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    @classmethod
    def from_any(cls, source: Any, *, name: str | None = None, fn: Callable[..., Any] | None = None) -> Tool:
        """The ``Tool`` for whatever a caller was handed, checked the same way whatever its shape.

        ``source`` may be a ``Tool`` (returned as is), a Python function (read
        as ``@tool`` reads it), an OpenAI ``{"type": "function", "function":
        {...}}`` dict, a bare ``{"name", "description", "parameters"}`` dict,
        a JSON schema of the arguments named by ``name``, a bare name (a tool
        without declared arguments), or an object with ``name``,
        ``description`` and ``parameters`` attributes. ``fn`` is the function
        behind a described tool; without one, calling it raises.
        """
        if isinstance(source, Tool):
            return source
        if isinstance(source, str):
            return tool_from_schema({"name": source}, fn or _not_callable)
        if isinstance(source, Mapping):
            if name is not None and not ({"parameters", "function"} & set(source)):
                source = {"name": name, "description": source.get("description") or "", "parameters": source}
            elif name is not None:
                source = {"name": name, **source}
            return tool_from_schema(source, fn or _not_callable)
        if callable(source) and not hasattr(source, "parameters"):
            return tool(source, name=name)
        if isinstance(getattr(source, "name", None), str):
            described = {"name": source.name, "description": getattr(source, "description", "") or "",
                         "parameters": getattr(source, "parameters", None)}
            return tool_from_schema(described, fn or getattr(source, "fn", None) or _not_callable)
        raise ToolDefinitionError(f"cannot read a tool from {type(source).__name__}")

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


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None,
         timeout: float | None = DEFAULT_TIMEOUT, max_chars: int = DEFAULT_MAX_CHARS,
         examples: Mapping[str, Any] | None = None, side_effects: bool = False, cacheable: bool = False,
         version: str = "", aliases: tuple[str, ...] = ()) -> Any:
    """Declare a tool from a function's type hints and docstring; bare or with options.

    ``examples`` maps argument names to a concrete value shown to the model in
    error messages and tool descriptions (a real value teaches better than a
    placeholder, which small models echo back). ``side_effects``,
    ``cacheable``, ``version`` and ``aliases``: see :class:`Tool`.
    """

    def build(func: Callable[..., Any]) -> Tool:
        doc_description, parameters = schema_from_function(func, examples=examples)
        return Tool(name=name or func.__name__, description=description or doc_description,
                    parameters=parameters, fn=func, timeout=timeout, max_chars=max_chars,
                    side_effects=side_effects, cacheable=cacheable, version=version, aliases=aliases)

    return build(fn) if fn is not None else build


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
        raise ToolDefinitionError(f"tool schema must be a dict, got {type(schema).__name__}",
                                  problem=f"must be an object, got {type(schema).__name__}")
    spec = schema.get("function") if schema.get("type") == "function" else schema
    if not isinstance(spec, Mapping):
        raise ToolDefinitionError("tool schema of type \"function\" needs a \"function\" object",
                                  field="function", problem="must be an object with a 'name'")
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise ToolDefinitionError(f"tool schema needs a \"name\" string, got {name!r}",
                                  field="name", problem=f"must be a non-empty string, got {name!r}")
    description = spec.get("description") or ""
    if not isinstance(description, str):
        raise ToolDefinitionError(f"tool {name!r}: \"description\" must be a string",
                                  field="description", problem="must be a string")
    parameters = spec.get("parameters")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, Mapping):
        raise ToolDefinitionError(f"tool {name!r}: \"parameters\" must be a JSON schema object",
                                  field="parameters", problem="must be a JSON schema object")
    parameters = normalise_schema(dict(parameters))
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    if side_effects is None:
        side_effects = bool(spec.get("x-side-effects") or schema.get("x-side-effects"))
    return Tool(name=name, description=description, parameters=parameters, fn=fn,
                timeout=timeout, max_chars=max_chars, side_effects=side_effects, cacheable=cacheable,
                version=version)
