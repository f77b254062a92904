"""Reading what an OpenAI chat request asks of the shim, and refusing it precisely when it cannot be served.

The checks name the exact field (``tools[2].function.name``) so a client's
author sees at once what to fix; the server passes ``param`` on unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

__all__ = ["ShimRequestError", "ToolChoice", "read_tool_choice"]


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
