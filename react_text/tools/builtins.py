"""The tools every agent gets for free: the calculator, a local text search, the time."""

from __future__ import annotations

import os

from .calculator import calculator
from .clock import current_time
from .search import RANKINGS, search_files
from .spec import Tool

__all__ = ["BUILTIN_ALIASES", "BUILTIN_NAMES", "builtin_tool", "default_tools"]

BUILTIN_NAMES = ("calculator", "search", "current_time")
BUILTIN_ALIASES = {"time": "current_time"}
"""What users may type for a built-in tool; the tool keeps its one name (the model sees ``current_time``)."""


def default_tools(corpus_dir: str | os.PathLike[str] | None = None, *, search_ranking: str = RANKINGS[0]) -> list[Tool]:
    """The calculator, a search over ``corpus_dir`` when given (ranked by ``search_ranking``), and the current time."""
    tools = [calculator]
    if corpus_dir is not None:
        tools.append(search_files(corpus_dir, ranking=search_ranking))
    tools.append(current_time)
    return tools


def builtin_tool(name: str, corpus_dir: str | os.PathLike[str] | None = None, *,
                 search_ranking: str = RANKINGS[0]) -> Tool:
    """A built-in tool by name (an alias such as ``time`` too); ``search`` needs ``corpus_dir``, the folder it
    searches, and ranks by ``search_ranking`` (``react_text.tools.passages``)."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    key = BUILTIN_ALIASES.get(key, key)
    if key == "search":
        if corpus_dir is None:
            raise ValueError("the search tool needs a folder to search: "
                             "pass react_text.tools.search.search_files('DIR')")
        return search_files(corpus_dir, ranking=search_ranking)
    if key == "calculator":
        return calculator
    if key == "current_time":
        return current_time
    raise ValueError(f"unknown built-in tool {name!r}: the built-in tools are calculator and current_time "
                     "(search needs a folder); pass a function for a tool of your own")
