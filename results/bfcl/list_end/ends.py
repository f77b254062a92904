"""Offline: the recorded replies with the list ended at the first k where the share of closing passes a
threshold (``odds.py``'s output), scored by react-text's BFCL checker against the replies as they came;
and how well the share after the first call tells one-call requests from several-call ones (AUC).

    python results/bfcl/list_end/ends.py odds.jsonl RESULTS.jsonl...
"""

from __future__ import annotations

import json
import sys

from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import recorded


def auc(high: list[float], low: list[float]) -> float:
    pairs = [(a > b) + 0.5 * (a == b) for a in high for b in low]
    return sum(pairs) / len(pairs) if pairs else float("nan")


def main() -> None:
    odds = {json.loads(line)["id"]: json.loads(line) for line in open(sys.argv[1], encoding="utf-8")}
    records, items = recorded(sys.argv[2:])

    def right(task: str, calls: list) -> bool:
        item = items[task]
        return check(item.category, item.functions, [Call(n, a) for n, a in calls], item.answers).valid

    one = [o["close"][0] for o in odds.values() if o["expected"] == 1 and o["close"][0] is not None]
    several = [o["close"][0] for o in odds.values() if o["expected"] >= 2 and o["close"][0] is not None]
    print(f"after the first call: AUC {auc(one, several):.3f} ({len(one)} one-call, {len(several)} several-call)")
    for tau in (0.003, 0.005, 0.008, 0.01, 0.015, 0.02, 0.03):
        on = off = gained = lost = acted = 0
        for task, o in odds.items():
            calls = [next(iter(c.items())) for c in json.loads(records[task]["answer"])]
            k = next((i + 1 for i, share in enumerate(o["close"])
                      if share is not None and share > tau and i + 1 < len(calls)), len(calls))
            now, before = right(task, calls[:k]), right(task, calls)
            on, off = on + now, off + before
            gained, lost, acted = gained + (now and not before), lost + (before and not now), acted + (k < len(calls))
        print(f"threshold {tau}: acted {acted} of {len(odds)}, solved {off} -> {on}, gained {gained}, lost {lost}")


if __name__ == "__main__":
    main()
