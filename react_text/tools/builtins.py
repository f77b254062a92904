"""The tools every agent gets for free: the calculator, a local text search, the time."""

from __future__ import annotations

import os

from .calculator import calculator
from .clock import current_time
from .search import search_files
from .spec import Tool

__all__ = ["default_tools"]


def default_tools(corpus_dir: str | os.PathLike[str] | None = None) -> list[Tool]:
    """The calculator, a search over ``corpus_dir`` when given, and the current time."""
    tools = [calculator]
    if corpus_dir is not None:
        tools.append(search_files(corpus_dir))
    tools.append(current_time)
    return tools
