"""A step of the shim that rewrites finished calls, applied offline: to BFCL's right calls and to recorded replies.

Why: such a step (``checks.zeros``, ``checks.described_options``, …) is a pure function of the calls and the
request, so applying it to a recorded reply is its ablation without running the model again, and applying it to
BFCL's possible answers says what it would cost a model that called right. The result scripts of each such check
(``results/bfcl/<check>/``) read both through here.
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .checker import Call, check
from .data import BfclItem, held_out, load_items, recorded

__all__ = ["CALL_CATEGORIES", "Replayed", "answer_calls", "replay", "report", "right_arguments", "valid"]

Calls = tuple[tuple[str, dict], ...]
"""(tool, arguments) of each call, in order; the same shape as the engine's, declared here because the judge reads
none of the engine's modules (tests/test_judge.py)."""
Fill = Callable[[Calls, BfclItem], Calls]
"""A step over finished calls, given the item whose request they answer."""


@dataclass(frozen=True)
class Replayed:
    """A recorded reply a fill changed: BFCL's verdict on its calls before and after."""

    task: str
    before: bool
    after: bool
    calls: Calls
    filled: Calls


def answer_calls(answer: str) -> Calls | None:
    """The calls a compare record's ``answer`` holds (``[{"tool": {args}}, …]``), or None for an answer in words."""
    try:
        made = json.loads(answer)
        return tuple((name, dict(args)) for call in made for name, args in call.items())
    except (ValueError, TypeError, AttributeError):
        return None


def valid(item: BfclItem, calls: Calls) -> bool:
    """Whether BFCL's rules take ``calls`` as the answer to ``item``."""
    return check(item.category, item.functions, [Call(name, args) for name, args in calls], item.answers).valid


def replay(paths: Sequence[str | Path], fill: Fill, model: str = "qwen2.5-coder-0.5b") -> Iterator[Replayed]:
    """Each recorded non-live reply of the shim's default (``classic`` under the grammar) by ``model`` in ``paths``
    that ``fill`` changes, in item order (a later file's record of a task replaces an earlier one's)."""
    records, items = recorded(paths, keep=lambda r: r.get("model") == model and r.get("template") == "classic"
                              and bool(r.get("constrain")) and not held_out(r["category"]))
    for task in sorted(records, key=lambda t: (t.rsplit("_", 1)[0], int(t.rsplit("_", 1)[1]))):
        calls = answer_calls(records[task]["answer"])
        if calls is None:
            continue
        filled = fill(calls, items[task])
        if filled != calls:
            yield Replayed(task, valid(items[task], calls), valid(items[task], filled), calls, filled)


def right_arguments(categories: Sequence[str]) -> Iterator[tuple[BfclItem, str, str, list[Any]]]:
    """Each argument of BFCL's right calls in ``categories``: the item, the function, the parameter and the values
    BFCL allows for it (``""`` among them: it may be left out)."""
    for item in load_items(categories):
        for answer in item.answers:
            for name, args in answer.items():
                for key, allowed in args.items():
                    yield item, name, key, list(allowed)


CALL_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple",
                   "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
"""BFCL's categories whose right answers are calls."""


def report(paths: Sequence[str | Path], fill: Fill, values: Callable[[Any], bool], what: str,
           categories: Sequence[str] = CALL_CATEGORIES) -> Iterator[str]:
    """The lines of a fill's result script: how many arguments of BFCL's right calls (non-live and live) whose
    allowed ``values`` (e.g. numbers) it changes, each value BFCL allows turned into another, and what it does to
    the recorded replies in ``paths`` (``replay``). ``what`` names the arguments counted."""
    counts: collections.Counter = collections.Counter()
    for item, name, key, allowed in right_arguments(categories):
        kept = [v for v in allowed if values(v)]
        if not kept:
            continue
        kind = "live" if held_out(item.category) else "non-live"
        counts[kind, what] += 1
        if "" not in allowed and all(fill(((name, {key: v}),), item)[0][1][key] != v for v in kept):
            counts[kind, "changed"] += 1
            yield f"right call changed: {item.id} {name} {key}={allowed}"
    for kind in ("non-live", "live"):
        for label in (what, "changed"):
            yield "\t".join((kind, label, str(counts[kind, label])))
    counts.clear()
    for r in replay(paths, fill):
        counts[(r.before, r.after)] += 1
        yield f"{r.task} {r.before} {r.after} {[args for _, args in r.calls]} -> {[args for _, args in r.filled]}"
    yield (f"acted: {sum(counts.values())} | right -> wrong: {counts[True, False]} | wrong -> right: "
           f"{counts[False, True]} | unchanged: {counts[True, True] + counts[False, False]}")
