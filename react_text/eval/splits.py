"""The fixed dev / test split of suite tasks: figures come from ``test``, building reads ``dev``.

The rule, applied once and written into each shipped task as ``"split"``: within every
(category, language) group the tasks are ordered by the SHA-256 of their id, the first half
(rounded down) is ``dev`` and the rest ``test``. Hashing the id makes the split independent of
file order and of what a task asks; ranking within the group keeps every kind of task on both
sides. The written field is what counts: a task added later takes a side and no other task moves.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Iterable, Literal, Mapping

Split = Literal["dev", "test"]
SPLITS: tuple[Split, ...] = ("dev", "test")
SELECTIONS: tuple[str, ...] = (*SPLITS, "all")
"""What ``compare --split`` accepts: one side, or every task (with or without a split)."""


def _rank_key(task_id: str) -> str:
    return hashlib.sha256(task_id.encode("utf-8")).hexdigest()


def assign_splits(tasks: Iterable[Mapping]) -> dict[str, Split]:
    """Each task's side by the rule above; ``tasks`` are suite records (``id``, ``category``, ``lang``)."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for task in tasks:
        groups[(str(task["category"]), str(task["lang"]))].append(str(task["id"]))
    sides: dict[str, Split] = {}
    for ids in groups.values():
        ranked = sorted(ids, key=_rank_key)
        half = len(ranked) // 2
        for i, task_id in enumerate(ranked):
            sides[task_id] = "dev" if i < half else "test"
    return sides


def in_selection(split: str | None, selection: str) -> bool:
    """Whether a task of ``split`` (None: the suite gives none) is run under ``compare --split selection``."""
    if selection not in SELECTIONS:
        raise ValueError(f"split must be one of {', '.join(SELECTIONS)}, not {selection!r}")
    return selection == "all" or split == selection
