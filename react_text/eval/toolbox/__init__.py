"""A box of sixty small deterministic tools, for the ``many_tools`` suite.

Real agents are handed dozens of tools; this box is how the project measures
what that does to a small model and what tool retrieval buys back
(``suites/many_tools/``). Every tool is local and deterministic: unit
conversions, look-ups in fixed tables (some invented, so no model can answer
from memory), string utilities, date arithmetic and number functions. Each
reports bad input as a short message for the model rather than raising.

The tools live in one module per theme; this file is the registry, the one
place that says which themes make up the box and in what order.
"""

from __future__ import annotations

from types import ModuleType

from ...tools.calculator import calculator
from ...tools.spec import Tool
from . import codes, dates, lookups, numbers, text, units

__all__ = ["TOOLBOX", "toolbox_tools"]

TOOLBOX = "toolbox"
"""The name a suite task lists (``"tools": ["toolbox"]``) to be offered every tool of the box."""

_THEMES: tuple[ModuleType, ...] = (units, lookups, codes, text, dates, numbers)
"""In the order the tools are offered: the prompt lists them so, and retrieval breaks ties by it."""


def toolbox_tools() -> list[Tool]:
    """Every tool of the box, the calculator included, in a fixed order."""
    return [calculator] + [value for theme in _THEMES for value in vars(theme).values() if isinstance(value, Tool)]
