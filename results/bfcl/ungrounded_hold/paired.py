"""Two runs of the same BFCL items, item by item: each category's score in both, the items that moved, and the
exact McNemar p. Run from the repository: ``python results/bfcl/ungrounded_hold/paired.py BEFORE.jsonl AFTER.jsonl``."""
import collections
import json
import sys
from math import comb


def scores(path: str) -> dict[str, tuple[str, bool]]:
    rows = (json.loads(line) for line in open(path, encoding="utf-8"))
    return {r["task_id"]: (r["category"], bool(r["correct"])) for r in rows}


before, after = scores(sys.argv[1]), scores(sys.argv[2])
count: collections.Counter = collections.Counter()
won, lost = [], []
for task, (category, was) in before.items():
    now = after[task][1]
    count[category, "n"] += 1
    count[category, "before"] += was
    count[category, "after"] += now
    (won if now and not was else lost if was and not now else []).append(task)
for category in dict.fromkeys(c for c, _ in count):
    print(f"{category}: {count[category, 'before']}/{count[category, 'n']} -> {count[category, 'after']}/{count[category, 'n']}")
n, k = len(won) + len(lost), min(len(won), len(lost))
p = min(1.0, 2 * sum(comb(n, i) for i in range(k + 1)) / 2 ** n) if n else 1.0
print(f"all: {sum(w for _, w in before.values())}/{len(before)} -> {sum(w for _, w in after.values())}/{len(after)}; "
      f"gained {sorted(won)}, lost {sorted(lost)}, exact McNemar p = {p:.2g}")
