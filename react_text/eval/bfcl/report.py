"""The BFCL section of a compare report: solved per BFCL category per cell, each with its 95% interval.

``live_*`` categories (user-contributed questions) are marked held out: nothing in react-text was
tuned on them, so they are the figures to quote. Published leaderboard figures for the same model
family (``PUBLISHED``) are shown with where they come from and how they differ from these runs.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from ..metrics import cell_name, wilson_interval
from .data import BFCL_VERSION, CATEGORIES, held_out

PUBLISHED: Mapping[str, Mapping[str, float]] = {
    # BFCL paper (Patil et al., "The Berkeley Function Calling Leaderboard (BFCL): From Tool Use to Agentic
    # Evaluation of Large Language Models", ICML 2025), Table 1. Its "simple" is the mean of Python, Java and
    # JavaScript simple, so it is left out here; the 1.5B Prompt row's Python simple is from the Bielik v2
    # technical report's Table 22, which copies the leaderboard.
    "Qwen2.5-0.5B-Instruct (Prompt)": {"multiple": 68.0, "parallel": 53.5, "parallel_multiple": 33.0,
                                       "irrelevance": 16.4, "live_simple": 53.9, "live_multiple": 34.8,
                                       "live_parallel": 56.2, "live_parallel_multiple": 16.7, "live_relevance": 94.4},
    "Qwen2.5-0.5B-Instruct (FC)": {"multiple": 78.0, "parallel": 60.0, "parallel_multiple": 50.0,
                                   "irrelevance": 46.2, "live_simple": 56.2, "live_multiple": 41.3,
                                   "live_parallel": 56.2, "live_parallel_multiple": 20.8, "live_relevance": 88.9},
    "Qwen2.5-1.5B-Instruct (Prompt)": {"simple_python": 89.0, "multiple": 86.0, "parallel": 70.0,
                                       "parallel_multiple": 66.5, "irrelevance": 63.0, "live_simple": 70.5,
                                       "live_multiple": 59.3, "live_parallel": 56.2, "live_parallel_multiple": 41.7,
                                       "live_relevance": 83.3},
    "Qwen2.5-1.5B-Instruct (FC)": {"multiple": 87.0, "parallel": 81.5, "parallel_multiple": 75.5,
                                   "irrelevance": 62.7, "live_simple": 74.0, "live_multiple": 66.1,
                                   "live_parallel": 50.0, "live_parallel_multiple": 45.8, "live_relevance": 94.4},
}
"""Published leaderboard accuracy (%) per model and category, for the Qwen2.5 family; blank where none was found."""
PUBLISHED_NOTE = ("Published figures (%) for the same model family: the BFCL paper (ICML 2025), Table 1, and for "
                  "Qwen2.5-1.5B-Instruct's Python simple the Bielik v2 technical report, Table 22. They were measured "
                  "on an earlier release of the data (the paper's, 2025; some possible answers were fixed since), with BFCL's own system prompt "
                  "('Prompt', which the `plain` cell speaks too: calls written as Python) or the model's native tool "
                  "calling ('FC', like `native`); the default model here is Qwen2.5-Coder-0.5B at Q4_K_M, a "
                  "sibling, not the same model. Their 'simple' averages Python, Java and JavaScript, so only "
                  "the 1.5B Prompt row has a Python-only figure. No figure was found for Qwen2.5-Coder.")


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
    header = ["model", "cell", *(c + (" (held out)" if held_out(c) else "") for c in categories), "non-live (all items)"]
    rows = [[model, name, *(_share(*cell.get(c, (0, 0))) for c in categories),
             _share(*_sum(v for c, v in cell.items() if not held_out(c)))]
            for (model, name), cell in counts.items()]
    out = ["", f"## BFCL (bfcl-eval {BFCL_VERSION}, AST checker rules)", "",
           "Solved / items per category, with the 95% Wilson interval. Each item is one request: a template cell "
           "goes through the function-calling shim (tool_choice auto, `+c` under the grammar); `plain` is BFCL's own "
           "system prompt (its Prompt mode) in the model's chat template, the reply read as Python calls. *held out*: BFCL's live (user-contributed) categories, "
           "never used to tune react-text.", ""]
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    out += ["", "### Published figures", "", PUBLISHED_NOTE, ""]
    out += ["| model | " + " | ".join(categories) + " |", "|---|" + "---|" * len(categories)]
    out += [f"| {model} | " + " | ".join(f"{figures[c]:.1f}" if c in figures else "–" for c in categories) + " |"
            for model, figures in PUBLISHED.items()]
    return "\n".join(out + [""])


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
