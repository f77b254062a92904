"""A check ablation without rerunning what cannot change: which checks fired in a run, which records
of a check-off cell are the base cell's own, and what each switched-off set gained or lost.

Why copying is sound: decoding is greedy (temperature 0, one seed), and no check changes the prompt,
the examples, the tools or the grammar until it fires (``tests/test_ablation.py`` runs a scripted model
both ways). So on a task where none of the checks a cell switches off fired in the base cell's run, the
cell's run is the base run, token for token; only the other tasks need the model. A copied record says
so (``copied_from``), and the report counts copies apart from reruns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .metrics import mcnemar_exact
from .records import record_key

__all__ = ["CellEffect", "copies", "effects", "fired_checks", "markdown"]

_LEADS = frozenset({"facts", "evidence"})
"""The leads a result opens the next thought with; the second look's correction carries one too."""


def fired_checks(events: Iterable[Mapping]) -> frozenset[str]:
    """The checks that acted in a run, read from its trace events: a correction's ``check`` (and
    ``held_call`` when it holds the next turn to a tool), the stop after a copied example, a lead (the ``evidence`` event names which), a second look's search (even one
    that found nothing new), and a turn asked to go on after a bare thought. An ``evidence`` event of an
    older trace that names no check counts as both leads."""
    fired: set[str] = set()
    for event in events:
        kind = event.get("event")
        decision = event.get("decision") if kind == "decision" else None
        if isinstance(decision, Mapping):
            check = decision.get("check")
            if check:
                fired.add(str(check))
            if check == "second_look":
                fired |= _LEADS  # its correction opens with thought_lead's quote
            if decision.get("hold"):
                fired.add("held_call")  # the next turn was held to the tool (when the backend took the grammar)
            if decision.get("kind") == "stop" and decision.get("status") == "copied_example":
                fired.add("copied_example")
        elif kind == "evidence":
            fired |= {str(event["check"])} if event.get("check") else _LEADS
        elif kind == "second_look":
            fired.add("second_look")
        elif kind == "prompt" and event.get("reason") == "label_left_out":
            fired.add("continuation")
    return frozenset(fired)


def copies(records: Sequence[Mapping], base: str, off: Mapping[str, frozenset[str]]) -> list[dict]:
    """For each cell label in ``off`` (the checks it switches off relative to the cell labelled ``base``),
    the base records it can take as its own: a finished base run (not crashed) whose ``fired`` list names
    none of those checks, on a task the cell has no record for yet. Each copy carries ``copied_from``."""
    done = {record_key(r) for r in records}
    made = []
    for record in records:
        if record["template"] != base or record.get("status") == "crashed" or record.get("fired") is None:
            continue
        fired = frozenset(record["fired"])
        for label, switched_off in off.items():
            copy = {**record, "template": label, "copied_from": base}
            if not fired & switched_off and record_key(copy) not in done:
                made.append(copy)
                done.add(record_key(copy))
    return made


@dataclass(frozen=True)
class CellEffect:
    """One check-off cell against its base cell, on the tasks both hold."""

    model: str
    constrain: bool
    label: str
    tasks: int
    solved: int
    base_solved: int
    gained: int
    """Tasks this cell solved and the base cell did not."""
    lost: int
    """Tasks the base cell solved and this cell did not: what the switched-off checks earned."""
    rerun: int
    copied: int

    @property
    def p_value(self) -> float:
        return mcnemar_exact(self.gained, self.lost)


def effects(records: Sequence[Mapping], base: str, labels: Sequence[str]) -> list[CellEffect]:
    """Each cell of ``labels`` against ``base`` per (model, constrain), in the order given."""
    by_cell: dict[tuple[str, bool, str], dict[str, Mapping]] = {}
    for r in records:
        by_cell.setdefault((r["model"], bool(r.get("constrain")), r["template"]), {})[str(r["task_id"])] = r
    found = []
    for (model, constrain, template), base_runs in by_cell.items():
        if template != base:
            continue
        for label in labels:
            runs = by_cell.get((model, constrain, label), {})
            shared = base_runs.keys() & runs.keys()
            ok = {t: bool(runs[t].get("correct")) for t in shared}
            was = {t: bool(base_runs[t].get("correct")) for t in shared}
            copied = sum(1 for t in shared if runs[t].get("copied_from"))
            found.append(CellEffect(model, constrain, label, len(shared), sum(ok.values()), sum(was.values()),
                                    sum(1 for t in shared if ok[t] and not was[t]),
                                    sum(1 for t in shared if was[t] and not ok[t]), len(shared) - copied, copied))
    return found


def markdown(found: Sequence[CellEffect], base: str) -> str:
    """The ablation table: per cell solved, gained and lost against ``base``, the exact McNemar p, and how
    many of its tasks ran and how many are the base run copied (no switched-off check fired there)."""
    lines = [f"## Ablation against `{base}`", "",
             "Lost = tasks the base solved and the cell did not (what the switched-off checks earn); "
             "gained = the reverse. Copied tasks are the base run, as none of the switched-off checks fired in "
             "it (greedy decoding: the run cannot differ).", "",
             "| model | cell | solved | base | gained | lost | McNemar p | rerun | copied |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for e in found:
        model = e.model + (" +c" if e.constrain else "")
        lines.append(f"| {model} | `{e.label}` | {e.solved}/{e.tasks} | {e.base_solved} | {e.gained} | {e.lost} "
                     f"| {e.p_value:.3g} | {e.rerun} | {e.copied} |")
    return "\n".join(lines) + "\n"
