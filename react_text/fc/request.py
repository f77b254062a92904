"""Reading what an OpenAI chat request asks of the shim, and refusing it precisely when it cannot be served.

The checks name the exact field (``tools[2].function.name``) so a client's
author sees at once what to fix; the server passes ``param`` on unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..tools.schemas import ToolDefinitionError
from ..tools.spec import Tool

__all__ = ["ShimRequestError", "ToolChoice", "read_tool_choice", "read_tools"]


class ShimRequestError(ValueError):
    """The request cannot be served as written; ``param`` names the bad field.

    A ``ValueError`` so library callers can catch it plainly; the server turns
    it into an OpenAI-shaped ``invalid_request_error``.
    """

    def __init__(self, message: str, param: str | None = None, *, unsupported: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.unsupported = unsupported
        """True when the request is well formed but asks for something the shim does not do."""


@dataclass(frozen=True)
class ToolChoice:
    """``mode`` is ``auto``, ``none``, ``required`` or ``named`` (then ``name`` is set)."""

    mode: str = "auto"
    name: str | None = None

    @property
    def forced(self) -> bool:
        """True when the turn must be a call (``required`` or ``named``)."""
        return self.mode in ("required", "named")


def read_tool_choice(tool_choice: Any, tools: Sequence[Any]) -> ToolChoice:
    """Validate OpenAI's ``tool_choice`` against the offered tools."""
    names = [t.name for t in tools]
    if tool_choice is None or tool_choice == "auto":
        return ToolChoice("auto")
    if tool_choice == "none":
        return ToolChoice("none")
    if tool_choice == "required":
        if not names:
            raise ShimRequestError("tool_choice 'required' needs at least one tool in 'tools'", "tool_choice")
        return ToolChoice("required")
    if isinstance(tool_choice, Mapping):
        function = tool_choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if tool_choice.get("type", "function") == "function" and isinstance(name, str):
            if name not in names:
                raise ShimRequestError(
                    f"tool_choice names {name!r}, which is not in 'tools' ({', '.join(names) or 'none given'})",
                    "tool_choice",
                )
            return ToolChoice("named", name)
    raise ShimRequestError(
        "tool_choice must be 'auto', 'none', 'required' or {\"type\": \"function\", \"function\": {\"name\": ...}}",
        "tool_choice",
    )


def _never_called(**_: Any) -> Any:
    raise RuntimeError("the function-calling shim never runs tools; the client does")


def read_tools(tools: Sequence[Mapping[str, Any]] | None) -> tuple[Any, ...]:
    """OpenAI ``tools`` → react-text ``Tool`` objects (with a placeholder ``fn``).

    The request's envelope (a list of ``{"type": "function", ...}``) is checked
    here; each tool is read by ``Tool.from_any``, the check every other entry
    point uses, and its complaint is re-labelled with the exact request field.
    """
    if tools is None:
        return ()
    if not isinstance(tools, (list, tuple)):
        raise ShimRequestError("'tools' must be a list of {\"type\": \"function\", \"function\": {...}} objects", "tools")
    out = []
    seen: set[str] = set()
    for i, entry in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(entry, Mapping):
            raise ShimRequestError(f"{where} must be an object", where)
        kind = entry.get("type", "function")
        if kind != "function":
            raise ShimRequestError(f"{where}.type must be 'function', got {kind!r}", f"{where}.type")
        try:
            read = Tool.from_any({**entry, "type": "function"}, fn=_never_called)
        except ToolDefinitionError as exc:
            if exc.field is None:
                raise ShimRequestError(f"{where}.function: {exc}", f"{where}.function") from exc
            field = f"{where}.function" if exc.field == "function" else f"{where}.function.{exc.field}"
            raise ShimRequestError(f"{field} {exc.problem}", field) from exc
        if read.name in seen:
            raise ShimRequestError(f"{where}: duplicate tool name {read.name!r}", f"{where}.function.name")
        seen.add(read.name)
        out.append(read)
    return tuple(out)
