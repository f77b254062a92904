"""Two compare runs of the same items (off, on): solved per category, gained and lost, and the items where
``list_end`` acted (read from the traces of the "on" run).

    python results/bfcl/list_end/pair.py OFF_DIR ON_DIR
"""

from __future__ import annotations

import collections
import json
import sys
from math import comb
from pathlib import Path

from react_text.eval.records import load_results


def acted(record: dict) -> bool:
    try:
        lines = Path(record["trace"]).read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    return any("list_end" in (json.loads(line).get("step_checks") or []) for line in lines if line.strip())


def main() -> None:
    off, on = ({r["task_id"]: r for r in load_results(Path(d) / "results.jsonl")} for d in sys.argv[1:3])
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    gained = lost = acted_on = 0
    for task in off.keys() & on.keys():
        before, after = bool(off[task]["correct"]), bool(on[task]["correct"])
        row = per[on[task]["category"]]
        row[0], row[1], row[2] = row[0] + before, row[1] + after, row[2] + 1
        here = acted(on[task])
        acted_on += here
        gained, lost = gained + (after and not before), lost + (before and not after)
        if before != after or here:
            print(task, "off", before, "on", after, "list_end acted" if here else "")
    for category, (before, after, n) in per.items():
        print(f"{category}: {before}/{n} -> {after}/{n}")
    n = gained + lost
    p = min(1.0, 2 * sum(comb(n, k) for k in range(min(gained, lost) + 1)) / 2 ** n) if n else 1.0
    print(f"acted {acted_on}, gained {gained}, lost {lost}, exact McNemar p = {p:.3g}")


if __name__ == "__main__":
    main()
