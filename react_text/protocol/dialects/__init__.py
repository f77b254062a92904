"""How each protocol style writes an action, a final answer and an observation.

One registry serves the templates (to render few-shot examples in any style), the
feedback messages (to show the fix in the model's own style), the grammar builder
(to constrain a turn to a style) and the parser's round-trip tests (what we
render, we must read back). The parser itself reads far more than these
canonical forms.

Each dialect is one module in this package defining ``DIALECT`` (see
:mod:`.base`); adding a module adds the dialect, nothing here changes.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Union

from ...types import Args
from .base import Dialect

DialectLike = Union[str, Dialect]
"""A dialect or its name: templates and callers pass names, the registry turns them into dialects."""


def _discover() -> dict[str, Dialect]:
    """Every module of this package that defines ``DIALECT``, by the dialect's name."""
    found: dict[str, Dialect] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        dialect = getattr(importlib.import_module(f"{__name__}.{info.name}"), "DIALECT", None)
        if isinstance(dialect, Dialect):
            if dialect.name in found:
                raise RuntimeError(f"two dialects are named {dialect.name!r}")
            found[dialect.name] = dialect
    return found


DIALECTS: dict[str, Dialect] = _discover()


def dialect_named(dialect: DialectLike) -> Dialect:
    """The dialect called ``dialect`` (a dialect is returned as it is); ValueError for an unknown name."""
    if isinstance(dialect, Dialect):
        return dialect
    found = DIALECTS.get(dialect) if isinstance(dialect, str) else None
    if found is None:
        raise ValueError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
    return found


def format_action(dialect: DialectLike, tool: str, args: Args, n: int = 1) -> str:
    """The canonical text of one action (without the thought) in ``dialect``."""
    return dialect_named(dialect).write_action(tool, args, n)


def format_final(dialect: DialectLike, answer: str, n: int = 1) -> str:
    """The canonical text of a final answer in ``dialect``."""
    return dialect_named(dialect).write_final(answer, n)


def format_thought(dialect: DialectLike, thought: str, n: int = 1) -> str:
    return dialect_named(dialect).write_thought(thought, n)


def format_observation(dialect: DialectLike, text: str, n: int = 1) -> str:
    return dialect_named(dialect).write_observation(text, n)
