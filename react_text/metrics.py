"""Scoring a compare run: pure functions over per-task result records.

A result record is one JSON object per (model, template, task) as written by
``react_text.compare``; everything here reads those dicts, so a report can be
rebuilt from a results file alone, long after the run.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion.

    Wilson rather than the normal approximation because suites are small and
    success rates sit near 0 or 1, where the normal interval leaves [0, 1].
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..{n}, got {successes}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, min(p, centre - half))
    high = 1.0 if successes == n else min(1.0, max(p, centre + half))
    return (low, high)


def cell_key(record: Mapping) -> tuple[str, str, bool]:
    return (record["model"], record["template"], bool(record.get("constrain", False)))


@dataclass(frozen=True)
class CellSummary:
    """Everything the report says about one model × template (× constrain) cell."""

    model: str
    template: str
    constrain: bool
    tasks: int
    solved: int
    ci_low: float
    ci_high: float
    turns: int
    format_errors: int
    actions: int
    invalid_tool_calls: int
    avg_steps: float
    prompt_tokens: int
    evaluated_tokens: int
    completion_tokens: int
    wall_seconds: float
    statuses: dict[str, int] = field(default_factory=dict)
    by_category: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def success_rate(self) -> float:
        return self.solved / self.tasks if self.tasks else 0.0

    @property
    def format_error_rate(self) -> float:
        """Share of model turns that did not parse."""
        return self.format_errors / self.turns if self.turns else 0.0

    @property
    def invalid_tool_rate(self) -> float:
        """Share of attempted tool calls naming an unknown tool or bad arguments."""
        return self.invalid_tool_calls / self.actions if self.actions else 0.0

    @property
    def label(self) -> str:
        return f"{self.model} / {self.template}" + (" +constrain" if self.constrain else "")


def summarize(records: Iterable[Mapping]) -> list[CellSummary]:
    """One summary per cell, in the order cells first appear."""
    groups: dict[tuple[str, str, bool], list[Mapping]] = defaultdict(list)
    for record in records:
        groups[cell_key(record)].append(record)
    summaries = []
    for (model, template, constrain), rows in groups.items():
        solved = sum(1 for r in rows if r.get("correct"))
        low, high = wilson_interval(solved, len(rows))
        categories: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in rows:
            counts = categories[r.get("category") or "-"]
            counts[0] += 1 if r.get("correct") else 0
            counts[1] += 1
        summaries.append(
            CellSummary(
                model=model,
                template=template,
                constrain=constrain,
                tasks=len(rows),
                solved=solved,
                ci_low=low,
                ci_high=high,
                turns=sum(int(r.get("turns", 0)) for r in rows),
                format_errors=sum(int(r.get("format_errors", 0)) for r in rows),
                actions=sum(int(r.get("actions", 0)) for r in rows),
                invalid_tool_calls=sum(int(r.get("invalid_tool_calls", 0)) for r in rows),
                avg_steps=sum(int(r.get("steps", 0)) for r in rows) / len(rows),
                prompt_tokens=sum(int(r.get("prompt_tokens", 0)) for r in rows),
                evaluated_tokens=sum(int(r.get("evaluated_tokens", 0)) for r in rows),
                completion_tokens=sum(int(r.get("completion_tokens", 0)) for r in rows),
                wall_seconds=sum(float(r.get("wall_seconds", 0.0)) for r in rows),
                statuses=dict(Counter(str(r.get("status", "?")) for r in rows)),
                by_category={k: (v[0], v[1]) for k, v in sorted(categories.items())},
            )
        )
    return summaries


@dataclass(frozen=True)
class Disagreement:
    """A task that some templates solved and others did not, on one model."""

    model: str
    task_id: str
    solved_by: tuple[str, ...]
    failed_by: tuple[str, ...]


def disagreements(records: Iterable[Mapping]) -> list[Disagreement]:
    outcome: dict[tuple[str, str], dict[str, bool]] = defaultdict(dict)
    for r in records:
        name = r["template"] + (" +constrain" if r.get("constrain") else "")
        outcome[(r["model"], r["task_id"])][name] = bool(r.get("correct"))
    found = []
    for (model, task_id), by_template in outcome.items():
        if len(set(by_template.values())) > 1:
            found.append(
                Disagreement(
                    model=model,
                    task_id=task_id,
                    solved_by=tuple(sorted(t for t, ok in by_template.items() if ok)),
                    failed_by=tuple(sorted(t for t, ok in by_template.items() if not ok)),
                )
            )
    return sorted(found, key=lambda d: (d.model, d.task_id))


@dataclass(frozen=True)
class GrammarEffect:
    """One model × template run both without and with ``--constrain``, on the same tasks."""

    plain: CellSummary
    constrained: CellSummary
    only_constrained: int
    """Tasks solved with the grammar and not without it."""
    only_plain: int
    """Tasks solved without the grammar and not with it."""


def grammar_effects(summaries: Sequence[CellSummary], records: Iterable[Mapping]) -> list[GrammarEffect]:
    """Pair each cell with its constrained twin; the paired counts say which tasks the grammar won or lost."""
    solved: dict[tuple[str, str, bool], dict[str, bool]] = defaultdict(dict)
    for r in records:
        solved[cell_key(r)][str(r["task_id"])] = bool(r.get("correct"))
    cells = {(s.model, s.template, s.constrain): s for s in summaries}
    effects = []
    for (model, template, constrain), plain in cells.items():
        twin = cells.get((model, template, True))
        if constrain or twin is None:
            continue
        off, on = solved[(model, template, False)], solved[(model, template, True)]
        shared = off.keys() & on.keys()
        effects.append(GrammarEffect(
            plain=plain,
            constrained=twin,
            only_constrained=sum(1 for t in shared if on[t] and not off[t]),
            only_plain=sum(1 for t in shared if off[t] and not on[t]),
        ))
    return effects


def best_per_model(summaries: Sequence[CellSummary]) -> dict[str, CellSummary]:
    """The winning cell for each model: highest success, then fewer format errors."""
    best: dict[str, CellSummary] = {}
    for s in summaries:
        current = best.get(s.model)
        if current is None or (s.success_rate, -s.format_error_rate) > (
            current.success_rate,
            -current.format_error_rate,
        ):
            best[s.model] = s
    return best
