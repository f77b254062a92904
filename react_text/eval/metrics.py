"""Scoring a compare run: pure functions over per-task result records.

A result record is one JSON object per (model, template, task) as written by
``react_text.eval.records``; everything here reads those dicts, so a report can be
rebuilt from a results file alone, long after the run.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from .baselines import is_baseline


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
    copied: int = 0
    """Answers holding a value from a shown few-shot episode that neither the question nor any tool
    result holds (the record's ``example_value``)."""

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
        return f"{self.model} / {self.name}"

    @property
    def name(self) -> str:
        """The template as the report names it: ``classic``, or ``classic +c`` under the grammar."""
        return cell_name(self.template, self.constrain)


def cell_name(template: str, constrain: bool) -> str:
    """One spelling of a cell everywhere in a report, so a template never seems to beat itself."""
    return template + (" +c" if constrain else "")


def _steps(record: Mapping) -> int:
    """Model turns of one task, the number ``replay`` prints as "N steps".

    Read from ``turns``: records written before the fix counted only the turns
    that called a tool under ``steps``, which disagreed with the trace.
    """
    return int(record.get("turns", record.get("steps", 0)))


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
                avg_steps=sum(_steps(r) for r in rows) / len(rows),
                prompt_tokens=sum(int(r.get("prompt_tokens", 0)) for r in rows),
                evaluated_tokens=sum(int(r.get("evaluated_tokens", 0)) for r in rows),
                completion_tokens=sum(int(r.get("completion_tokens", 0)) for r in rows),
                wall_seconds=sum(float(r.get("wall_seconds", 0.0)) for r in rows),
                statuses=dict(Counter(str(r.get("status", "?")) for r in rows)),
                by_category={k: (v[0], v[1]) for k, v in sorted(categories.items())},
                copied=sum(1 for r in rows if r.get("example_value") is not None),
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
        name = cell_name(r["template"], bool(r.get("constrain")))
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
    """The winning cell for each model: highest success, then fewer format errors, then a no-agent
    baseline (one or two model calls) over a template that only ties it."""
    best: dict[str, CellSummary] = {}
    for s in summaries:
        current = best.get(s.model)
        if current is None or _choice(s) > _choice(current):
            best[s.model] = s
    return best


def _choice(s: CellSummary) -> tuple[float, float, bool]:
    return (s.success_rate, -s.format_error_rate, is_baseline(s.template))


# --- how sure: paired comparisons -------------------------------------------------

SMALL_SAMPLE = 10
"""Fewer tasks than this per cell and the report refuses to conclude anything."""

SIGNIFICANCE = 0.05


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs.

    On the same tasks, only the tasks that one cell solved and the other did
    not say anything about which is better; under "no difference" each such
    task goes either way with probability 1/2 (a binomial test). Exact rather
    than chi-squared because discordant counts in these suites are small.
    """
    if only_a < 0 or only_b < 0:
        raise ValueError("counts must be non-negative")
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1))
    return min(1.0, 2 * tail / 2 ** n)


@dataclass(frozen=True)
class Paired:
    """Two cells of one model on the tasks both ran: who solved what the other did not."""

    a: CellSummary
    b: CellSummary
    tasks: int
    only_a: int
    only_b: int

    @property
    def p_value(self) -> float:
        return mcnemar_exact(self.only_a, self.only_b)

    @property
    def significant(self) -> bool:
        return self.p_value < SIGNIFICANCE


def _outcomes(records: Iterable[Mapping]) -> dict[tuple[str, str, bool], dict[str, bool]]:
    solved: dict[tuple[str, str, bool], dict[str, bool]] = defaultdict(dict)
    for r in records:
        solved[cell_key(r)][str(r["task_id"])] = bool(r.get("correct"))
    return solved


def paired(a: CellSummary, b: CellSummary, records: Iterable[Mapping]) -> Paired:
    outcomes = _outcomes(records)
    on_a = outcomes[(a.model, a.template, a.constrain)]
    on_b = outcomes[(b.model, b.template, b.constrain)]
    shared = on_a.keys() & on_b.keys()
    return Paired(a=a, b=b, tasks=len(shared),
                  only_a=sum(1 for t in shared if on_a[t] and not on_b[t]),
                  only_b=sum(1 for t in shared if on_b[t] and not on_a[t]))


@dataclass(frozen=True)
class Verdict:
    """What the report tells a user to pick for one model, and how sure it is."""

    model: str
    best: CellSummary
    runner_up: Paired | None
    """The best cell against the best cell of any *other* template."""
    ties: tuple[str, ...]
    """Other templates not significantly worse than the best (paired test)."""
    grammar: Paired | None
    """The best template without (a) and with (b) the grammar, when both ran."""
    weak_categories: tuple[tuple[str, int, int], ...]
    """(category, solved, tasks) where the best cell does worse than overall, worst first."""

    @property
    def small_sample(self) -> bool:
        return self.best.tasks < SMALL_SAMPLE


def _rank(s: CellSummary) -> tuple[float, float]:
    return (s.success_rate, -s.format_error_rate)


def verdicts(summaries: Sequence[CellSummary], records: Sequence[Mapping]) -> list[Verdict]:
    """Per model: the best cell, its closest rival from another template, the grammar's effect, weak spots."""
    found = []
    for model, best in best_per_model(summaries).items():
        mine = [s for s in summaries if s.model == model]
        by_template: dict[str, CellSummary] = {}
        for s in mine:
            if s.template != best.template and (s.template not in by_template
                                                or _rank(s) > _rank(by_template[s.template])):
                by_template[s.template] = s
        rivals = sorted(by_template.values(), key=_rank, reverse=True)
        runner_up = paired(best, rivals[0], records) if rivals else None
        ties = tuple(r.name for r in rivals if not paired(best, r, records).significant)
        twins = {s.constrain: s for s in mine if s.template == best.template}
        grammar = paired(twins[False], twins[True], records) if len(twins) == 2 else None
        weak = sorted(((c, k, n) for c, (k, n) in best.by_category.items() if n and k / n < best.success_rate),
                      key=lambda x: (x[1] / x[2], x[0]))
        found.append(Verdict(model=model, best=best, runner_up=runner_up, ties=ties, grammar=grammar,
                             weak_categories=tuple(weak)))
    return found
