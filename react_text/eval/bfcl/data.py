"""BFCL's items, read from the data files inside the installed ``bfcl-eval`` distribution.

Only the JSON(L) files are read: importing ``bfcl_eval``'s checker or handlers would pull its
heavy dependencies (faiss, sentence-transformers, pinned numpy), so the package is located with
``importlib.resources`` (its ``__init__`` is empty) and its ``data/`` folder read as files. A folder
laid out the same way (``BFCL_v4_<category>.json`` and ``possible_answer/``) can stand in for it,
which is how the tests read the committed sample.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Sequence
from ..records import load_results

BFCL_VERSION = "2026.3.23"
INSTALL = f"pip install --no-deps bfcl-eval=={BFCL_VERSION}"
DATA_ENV = "REACT_TEXT_BFCL_DATA"
"""A folder with BFCL's files to read instead of the installed package's (the tests' sample)."""

PREFIX = "bfcl:"
"""How a compare names BFCL: ``--suite bfcl:simple_python,multiple`` (``bfcl:all`` for every category);
a category may name a range of its items, ``parallel@20-40`` (items 20 to 39, in file order)."""

CATEGORIES: tuple[str, ...] = (
    "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance",
)
"""The single-turn Python categories BFCL judges by its AST checker (or by call / no call)."""

NO_CALL = frozenset({"irrelevance", "live_irrelevance"})
"""Categories where the right reply makes no call."""
ANY_CALL = frozenset({"live_relevance"})
"""Categories where any call is right (no possible answers are given)."""


def held_out(category: str) -> bool:
    """BFCL's ``live_*`` categories (user-contributed questions) stay out of any tuning: the report marks them."""
    return category.startswith("live_")


class BfclDataMissing(RuntimeError):
    """BFCL's data is not installed (or a category file is absent)."""


@dataclass(frozen=True)
class BfclItem:
    """One BFCL question: its chat messages, the functions offered and the possible answers.

    ``answers`` holds one ``{function: {param: [allowed values]}}`` per expected call, in BFCL's shape
    (``""`` among the allowed values: the parameter may be left out); it is empty where no call is
    expected or no answer is given (``NO_CALL``, ``ANY_CALL``).
    """

    id: str
    category: str
    messages: tuple[dict, ...]
    functions: tuple[dict, ...]
    answers: tuple[dict, ...] = ()

    @property
    def question(self) -> str:
        """The last user message: what the report shows as the task's question."""
        users = [m.get("content") for m in self.messages if m.get("role") == "user"]
        return str(users[-1]) if users else ""


def data_dir() -> Path:
    """The folder holding BFCL's data files: ``$REACT_TEXT_BFCL_DATA`` or the installed package's ``data/``."""
    override = os.environ.get(DATA_ENV)
    if override:
        return Path(override).expanduser()
    try:
        root = resources.files("bfcl_eval").joinpath("data")
    except ModuleNotFoundError:
        raise BfclDataMissing(f"BFCL's data is not installed: {INSTALL}") from None
    return Path(str(root))


def parse_categories(spec: str) -> tuple[str, ...]:
    """``simple_python,multiple@20-40`` (or ``all``) -> the categories, each checked against ``CATEGORIES``
    (and its range, if it names one, read by ``item_range``)."""
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if names == ["all"]:
        return CATEGORIES
    unknown = [n for n in names if item_range(n)[0] not in CATEGORIES]
    if unknown or not names:
        raise ValueError(f"unknown BFCL categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown) or '(none)'}; "
                         f"known: {', '.join(CATEGORIES)}, or all")
    return tuple(dict.fromkeys(names))


def item_range(entry: str) -> tuple[str, int, int | None]:
    """``parallel@20-40`` -> ("parallel", 20, 40): a category and the items it keeps, start included, end not
    (``parallel`` alone keeps all). Why: tuning reads items apart from those a report is made on."""
    name, at, span = entry.partition("@")
    if not at:
        return name, 0, None
    found = re.fullmatch(r"(\d+)-(\d+)", span.strip())
    if found is None or int(found[1]) >= int(found[2]):
        raise ValueError(f"BFCL range {entry!r}: write category@START-END with START < END, e.g. parallel@20-40")
    return name.strip(), int(found[1]), int(found[2])


def load_items(categories: Sequence[str], root: Path | None = None) -> tuple[BfclItem, ...]:
    """Every item of ``categories`` (or of its range, ``parallel@20-40``), in BFCL's file order, answers aligned
    by position as BFCL aligns them."""
    folder = root if root is not None else data_dir()
    items: list[BfclItem] = []
    for ranged in categories:
        category, start, stop = item_range(ranged)
        questions = _read_lines(folder / f"BFCL_v4_{category}.json")
        answers = ([] if category in NO_CALL | ANY_CALL
                   else _read_lines(folder / "possible_answer" / f"BFCL_v4_{category}.json"))
        if answers and len(answers) < len(questions):
            raise BfclDataMissing(f"{category}: {len(questions)} questions but {len(answers)} possible answers")
        for i, entry in list(enumerate(questions))[start:stop]:
            items.append(_item(category, entry, answers[i] if answers else None))
    return tuple(items)


def _item(category: str, entry: dict, answer: dict | None) -> BfclItem:
    turns = entry["question"]
    if len(turns) != 1:
        raise ValueError(f"{entry['id']}: {len(turns)} turns; only single-turn categories are read")
    return BfclItem(id=str(entry["id"]), category=category, messages=tuple(turns[0]),
                    functions=tuple(entry["function"]),
                    answers=tuple(answer["ground_truth"]) if answer is not None else ())


def _read_lines(path: Path) -> list[Any]:
    if not path.is_file():
        raise BfclDataMissing(f"no BFCL file {path}: {INSTALL}")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def recorded(paths: Sequence[str | Path], keep: Callable[[dict], bool] | None = None,
             ) -> tuple[dict[str, dict], dict[str, BfclItem]]:
    """The BFCL records of compare results files that ``keep`` accepts (a later file's record of a task replaces
    an earlier one's), and each recorded task's item: what the scripts that re-read a run's replies offline start
    from."""
    records = {r["task_id"]: r for path in paths for r in load_results(Path(path)) if keep is None or keep(r)}
    items = {it.id: it for it in load_items(sorted({t.rsplit("_", 1)[0] for t in records})) if it.id in records}
    return records, items
