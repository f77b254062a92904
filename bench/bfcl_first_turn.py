"""What a BFCL compare cell scores with its turns' own calls alone, beside what it scored with ``more_calls``.

The shim's ``more_calls`` check asks for further calls only after the turn it follows, so with greedy
decoding the turn itself is the one ``--checks=-more_calls`` writes: its calls are the reply's first
``len(calls) - more_calls`` (the reply says how many the steps added). This reads a compare's
``results.jsonl`` and traces and judges both call lists with the checker the compare used; a run with the
check switched off is the measured figure, this the same run read twice.

    python bench/bfcl_first_turn.py results/bfcl/parallel/first10 [--cell classic]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import held_out, load_items


def _trace(path: Path) -> tuple[list[Call], int]:
    """The reply's calls and how many of them the steps after its turn added."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    more = next((int(entry.get("more_calls", 0)) for entry in lines if "message" in entry), 0)
    calls = [Call(name, args) for entry in lines[-1]["calls"] for name, args in entry.items()]
    return calls, more


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a compare's --out folder")
    parser.add_argument("--cell", default="classic", help="the template label of the cell to read")
    args = parser.parse_args()
    records = [json.loads(line) for line in (args.out / "results.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    records = [r for r in records if r.get("bfcl") and r["template"] == args.cell and r["constrain"]]
    items = {i.id: i for i in load_items(sorted({r["category"] for r in records}))}
    with_steps: Counter = Counter()
    alone: Counter = Counter()
    total: Counter = Counter()
    for record in records:
        item = items[record["task_id"]]
        calls, more = _trace(args.out / "traces" / Path(*Path(record["trace"]).parts[-3:]))  # the folder may move
        first = calls[:len(calls) - more]
        total[item.category] += 1
        with_steps[item.category] += bool(record["correct"])
        alone[item.category] += record["status"] != "backend_error" and check(
            item.category, item.functions, first, item.answers).valid
    print("| category | turn's own calls | with more_calls |")
    print("|---|---|---|")
    for category in total:
        mark = " (held out)" if held_out(category) else ""
        print(f"| {category}{mark} | {alone[category]}/{total[category]} | {with_steps[category]}/{total[category]} |")
    print(f"| all | {sum(alone.values())}/{sum(total.values())} | {sum(with_steps.values())}/{sum(total.values())} |")


if __name__ == "__main__":
    main()
