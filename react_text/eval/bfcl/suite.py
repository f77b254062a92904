"""BFCL items as compare tasks: ``--suite bfcl:<categories>`` read into the ``Task``s a compare plans with.

A task keeps only what planning and the report read (id, category, question); the item itself, with
its functions and possible answers, is what the cell runs (``cells``), found by the task's id.
"""

from __future__ import annotations

from typing import Mapping

from ..suites import Suite, Task
from .data import PREFIX, BfclItem, load_items, parse_categories


def is_bfcl(suite: str) -> bool:
    return suite.startswith(PREFIX)


def bfcl_suite(suite: str) -> tuple[Suite, Mapping[str, BfclItem]]:
    """The tasks of ``bfcl:<categories>`` and the items by task id; raises when the data is missing."""
    items = load_items(parse_categories(suite[len(PREFIX):]))
    tasks = tuple(Task(id=item.id, question=item.question, expected=list(item.answers), match="bfcl", tools=(),
                       lang="en", category=item.category, source="bfcl-eval") for item in items)
    return Suite(name=suite, tasks=tasks, sources=("bfcl-eval",)), {item.id: item for item in items}
