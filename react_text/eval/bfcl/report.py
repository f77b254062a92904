"""The BFCL section of a compare report: solved per BFCL category per cell, each with its 95% interval.

``live_*`` categories (user-contributed questions) are marked held out: nothing in react-text was
tuned on them, so they are the figures to quote. Published leaderboard figures for the same model
family go beside ours only when a source for them is recorded in ``PUBLISHED``; none is invented.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from ..metrics import cell_name, wilson_interval
from .data import BFCL_VERSION, CATEGORIES, held_out

PUBLISHED: Mapping[str, Mapping[str, str]] = {}
"""Leaderboard accuracy per model and category (``{"Qwen2.5-1.5B-Instruct (Prompt)": {"simple_python": "…"}}``),
with the source in ``PUBLISHED_SOURCE``; empty while no source has been found."""
PUBLISHED_SOURCE = ("No published BFCL figures for Qwen2.5-0.5B/1.5B-Instruct could be found from this machine "
                    "(no internet; the stored copies searched held none), so none are shown. Compare with the live "
                    "leaderboard's '(Prompt)' rows, which read replies the way the `plain` cell does.")


def markdown(records: Sequence[Mapping]) -> str:
    """The section, or "" when no record is a BFCL one."""
    if not records:
        return ""
    counts: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for r in records:
        tally = counts[(r["model"], cell_name(r["template"], bool(r.get("constrain"))))][r["category"]]
        tally[0] += 1 if r.get("correct") else 0
        tally[1] += 1
    present = {c for cell in counts.values() for c in cell}
    categories = [c for c in CATEGORIES if c in present] + sorted(present - set(CATEGORIES))
    header = ["model", "cell", *(c + (" (held out)" if held_out(c) else "") for c in categories), "non-live"]
    rows = [[model, name, *(_share(*cell.get(c, (0, 0))) for c in categories),
             _share(*_sum(v for c, v in cell.items() if not held_out(c)))]
            for (model, name), cell in counts.items()]
    out = ["", f"## BFCL (bfcl-eval {BFCL_VERSION}, AST checker rules)", "",
           "Solved / items per category, with the 95% Wilson interval. Each item is one request: a template cell "
           "goes through the function-calling shim (tool_choice auto, `+c` under the grammar); `plain` is one "
           "prompt whose reply is read as Python calls. *held out*: BFCL's live (user-contributed) categories, "
           "never used to tune react-text.", ""]
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    out += ["", "### Published figures", ""]
    if PUBLISHED:
        out += [f"- {model}: " + ", ".join(f"{c} {v}" for c, v in figures.items()) for model, figures in PUBLISHED.items()]
    out += [PUBLISHED_SOURCE, ""]
    return "\n".join(out)


def _sum(tallies: Iterable[Sequence[int]]) -> tuple[int, int]:
    solved = total = 0
    for s, n in tallies:
        solved, total = solved + s, total + n
    return solved, total


def _share(solved: int, total: int) -> str:
    if not total:
        return "–"
    low, high = wilson_interval(solved, total)
    return f"{solved}/{total} ({low:.0%}–{high:.0%})"
