"""What a grammar needs of a tool: its name and its parameters schema, read duck-typed.

Why not ``react_text.tools``: grammar and tools are sibling layers, so the grammar reads
any tool-like thing by its two attributes (or the two keys of an OpenAI-style dict)
instead of importing the Tool class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..protocol.names import FINAL_NAMES, match_tool
from .terms import GrammarError

__all__ = ["ToolShape", "read_tools"]


@dataclass(frozen=True)
class ToolShape:
    """A tool as the grammar sees it; ``stem`` is the ASCII name its rules are named after."""

    name: str
    parameters: Mapping[str, Any]

    @property
    def stem(self) -> str:
        """``name`` for ASCII names; otherwise each non-ASCII character as ``u<hex>``
        (GBNF rule names are ASCII, the name itself stays literal in the grammar's strings)."""
        if self.name.isascii():
            return self.name
        parts: list[str] = []
        for ch in self.name:
            if ch.isascii():
                parts.append(ch)
            else:
                parts += ["-", f"u{ord(ch):04x}", "-"]
        return "".join(parts).replace("--", "-").strip("-")


def read_tools(tools: Any) -> list[ToolShape]:
    """Tool objects (``.name``, ``.parameters``), OpenAI tool dicts, {name, parameters} dicts or a
    name -> schema map, as checked ``ToolShape``s (``GrammarError`` for what cannot be offered)."""
    if tools is None:
        shapes: list[ToolShape] = []
    elif isinstance(tools, Mapping):
        shapes = [ToolShape(str(name), schema or {}) for name, schema in tools.items()]
    else:
        shapes = [_shape(item) for item in tools]
    _check_names([shape.name for shape in shapes])
    return shapes


def _shape(item: Any) -> ToolShape:
    if isinstance(item, Mapping):
        inner = item.get("function") if isinstance(item.get("function"), Mapping) else item
        name, params = inner.get("name"), inner.get("parameters")
    else:
        name, params = getattr(item, "name", None), getattr(item, "parameters", None)
    if not isinstance(name, str):
        raise GrammarError(f"tool {item!r} has no name")
    if params is not None and not isinstance(params, Mapping):
        raise GrammarError(f"tool {name!r}: parameters must be a JSON schema object")
    return ToolShape(name, params or {})


def _writable(name: str) -> bool:
    """Letters and digits (any script, as the Tool class allows), ``_``, ``-``, ``.``; starting
    with a letter or digit, not ending with ``.``, and printable."""
    return (bool(name) and all(ch.isalnum() or ch in "_-." for ch in name) and name[0].isalnum()
            and name[-1] != "." and name.isprintable())


def _check_names(names: list[str]) -> None:
    """Every tool name must be writable and must read back as itself through the parser."""
    finals = {_fold(name) for name in FINAL_NAMES}
    for name in names:
        if not _writable(name):
            raise GrammarError(
                f"tool name {name!r} cannot be written in a text protocol; start with a letter or digit, "
                "then use letters, digits, '_', '-' or '.'")
        if _fold(name) in finals:
            raise GrammarError(f"tool name {name!r} means 'final answer' to the parser; rename the tool")
        if names.count(name) > 1:
            raise GrammarError(f"tool {name!r} is offered twice")
        if match_tool(name, names)[0] != name:
            raise GrammarError(f"tool name {name!r} is too close to another tool's name to be told apart")


def _fold(name: str) -> str:
    """Case and separators folded away, as the parser compares tool names."""
    return "".join(ch for ch in name.casefold() if ch not in " \t\n_-")
