"""Whether the agent pays: per model, its best template against the no-agent baselines, and what each costs.

A loop of several model turns is only worth running if it solves clearly more than one search and
one prompt (``baselines``) with the same model. The report answers that per model: the best agent
cell against the best baseline cell on the same tasks (exact McNemar), the cost per task of each,
the categories where the loop wins or loses, and the margin over every baseline ran.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Mapping, Sequence

from .baselines import is_baseline
from .metrics import SIGNIFICANCE, CellSummary, Paired, paired

GOAL_POINTS = 15
"""How far above a baseline the agent aims to be (issue #29): below that, the loop hardly pays its cost."""


@dataclass(frozen=True)
class Cost:
    """What one task costs a cell, on average."""

    seconds: float
    calls: float
    tokens_in: float
    """Prompt tokens the backend evaluated."""
    tokens_out: float

    @classmethod
    def of(cls, s: CellSummary) -> Cost:
        n = s.tasks or 1
        return cls(s.wall_seconds / n, s.turns / n, s.evaluated_tokens / n, s.completion_tokens / n)


@dataclass(frozen=True)
class Payoff:
    """One model's best agent cell against one baseline cell, on the tasks both ran."""

    pair: Paired
    """``a`` is the agent, ``b`` the baseline."""
    categories: tuple[tuple[str, int, int, int], ...]
    """(category, tasks, solved by the agent, solved by the baseline) on the shared tasks."""

    @property
    def points(self) -> float:
        """The agent's lead in percentage points (negative: the baseline is ahead)."""
        return 100 * (self.pair.a.success_rate - self.pair.b.success_rate)

    @property
    def verdict(self) -> str:
        if not self.pair.significant:
            return "no significant difference"
        return "the agent pays" if self.pair.only_a > self.pair.only_b else "the baseline is better"


@dataclass(frozen=True)
class ModelPayoff:
    model: str
    best: Payoff
    """The best agent cell against the best baseline cell."""
    others: tuple[Payoff, ...]
    """The best agent cell against every other baseline cell ran."""


def _rank(s: CellSummary) -> tuple[float, float]:
    return (s.success_rate, -s.format_error_rate)


def payoffs(summaries: Sequence[CellSummary], records: Sequence[Mapping]) -> list[ModelPayoff]:
    """Per model that ran both an agent template and a baseline: how the best of each compare."""
    found = []
    for model in dict.fromkeys(s.model for s in summaries):
        mine = [s for s in summaries if s.model == model]
        agents = sorted((s for s in mine if not is_baseline(s.template)), key=_rank, reverse=True)
        bases = sorted((s for s in mine if is_baseline(s.template)), key=_rank, reverse=True)
        if agents and bases:
            each = [_payoff(agents[0], b, records) for b in bases]
            found.append(ModelPayoff(model, each[0], tuple(each[1:])))
    return found


def _payoff(agent: CellSummary, base: CellSummary, records: Sequence[Mapping]) -> Payoff:
    outcome: dict[tuple[str, str], dict[str, bool]] = defaultdict(dict)
    category: dict[str, str] = {}
    for r in records:
        if r["model"] == agent.model and (r["template"], bool(r.get("constrain"))) in (
                (agent.template, agent.constrain), (base.template, base.constrain)):
            outcome[(r["template"], bool(r.get("constrain")))][r["task_id"]] = bool(r.get("correct"))
            category[r["task_id"]] = r.get("category") or "-"
    mine, theirs = outcome[(agent.template, agent.constrain)], outcome[(base.template, base.constrain)]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for task in mine.keys() & theirs.keys():
        c = counts[category[task]]
        c[0] += 1
        c[1] += mine[task]
        c[2] += theirs[task]
    return Payoff(paired(agent, base, records), tuple((k, *v) for k, v in sorted(counts.items())))


def _p(value: float) -> str:
    return "p < 0.001" if value < 0.001 else f"p = {value:.2f}"


def _cell(s: CellSummary) -> str:
    return f"`{s.name}` {s.solved}/{s.tasks} ({100 * s.success_rate:.0f}%, 95% CI {100 * s.ci_low:.0f}–{100 * s.ci_high:.0f}%)"


def _cost(s: CellSummary) -> str:
    c = Cost.of(s)
    return f"`{s.name}` {c.seconds:.1f} s, {c.calls:.1f} model calls, {c.tokens_in:.0f}/{c.tokens_out:.0f} tokens in/out"


def payoff_markdown(found: Sequence[ModelPayoff]) -> list[str]:
    """The report's "Does the agent pay?" section (Markdown lines)."""
    if not found:
        return []
    out = ["## Does the agent pay?", "",
           "The best agent template against the best no-agent baseline of the same model "
           "(`rag`: one search with the question, one prompt; `rag+calc`: plus one calculator pass; `direct`: "
           "the question alone; `plain`: one prompt asking for the calls as `[func(a=1)]`, BFCL's own on a BFCL suite, its calls run), on the same tasks. Seconds "
           "depend on how busy the machine was; model calls and tokens do not.", ""]
    for m in found:
        b = m.best
        a_cell, base = b.pair.a, b.pair.b
        ratio = Cost.of(a_cell).seconds / max(Cost.of(base).seconds, 1e-9)
        goal = "met" if b.points >= GOAL_POINTS else "not met"
        out += [f"- **{m.model}: {b.verdict}** — {_cell(a_cell)} against {_cell(base)}: {b.points:+.0f} points. "
                f"On the same {b.pair.tasks} tasks the agent solved {b.pair.only_a} the baseline missed and the "
                f"baseline {b.pair.only_b} the agent missed: exact McNemar {_p(b.pair.p_value)} "
                f"(below {SIGNIFICANCE} counts).",
                f"  - Cost per task: {_cost(a_cell)}; {_cost(base)} ({ratio:.1f}× the seconds).",
                f"  - Goal, at least {GOAL_POINTS} points above the best baseline: {goal}."]
        for o in m.others:
            out.append(f"  - Against {_cell(o.pair.b)}: {o.points:+.0f} points, {o.pair.only_a} won / "
                       f"{o.pair.only_b} lost, {_p(o.pair.p_value)}; cost {_cost(o.pair.b)}.")
        out += ["", f"| category | tasks | `{a_cell.name}` | `{base.name}` | the loop |", "|---|---|---|---|---|"]
        for category, n, mine, theirs in b.categories:
            lead = "wins" if mine > theirs else "loses" if mine < theirs else "even"
            out.append(f"| {category} | {n} | {mine} | {theirs} | {lead} ({mine - theirs:+d}) |")
        out.append("")
    return out


def payoff_json(found: Sequence[ModelPayoff]) -> list[dict]:
    def one(p: Payoff) -> dict:
        return {"agent": p.pair.a.name, "baseline": p.pair.b.name, "solved": [p.pair.a.solved, p.pair.b.solved],
                "tasks": [p.pair.a.tasks, p.pair.b.tasks], "points": p.points, "shared_tasks": p.pair.tasks,
                "only_agent": p.pair.only_a, "only_baseline": p.pair.only_b, "p_value": p.pair.p_value,
                "verdict": p.verdict, "cost_per_task": {"agent": vars(Cost.of(p.pair.a)),
                                                         "baseline": vars(Cost.of(p.pair.b))},
                "categories": [{"category": c, "tasks": n, "agent": a, "baseline": b} for c, n, a, b in p.categories]}

    return [{"model": m.model, "goal_points": GOAL_POINTS, "best": one(m.best), "others": [one(o) for o in m.others]}
            for m in found]
