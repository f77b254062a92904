"""`zeros` over BFCL's right calls and over recorded replies, by the engine's own rule
(`checks.zeros.with_request_zeros`). Right calls: an argument counts as changed when every number BFCL allows for it
would be put back to another value. Recorded replies of the shim's default (non-live items; `eval.bfcl.replay`:
`zeros` reads only the calls and the request, so applying it to a recorded reply is its ablation): BFCL's verdict
before and after.

Run: python results/bfcl/zeros/scan.py $(cat results/bfcl/described_option/files.txt) > results/bfcl/zeros/scan.txt"""
import collections
import sys

from react_text.checks.zeros import with_request_zeros
from react_text.eval.bfcl.replay import replay, right_arguments

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple",
              "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
counts = collections.Counter()
for item, name, key, allowed in right_arguments(CATEGORIES):
    numbers = [v for v in allowed if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not numbers:
        continue
    kind = "live" if item.category.startswith("live") else "non-live"
    counts[kind, "number arguments of right calls"] += 1
    if "" not in allowed and all(with_request_zeros(((name, {key: v}),), {}, item.question)[0][1][key] != v
                                 for v in numbers):
        counts[kind, "changed"] += 1
        print(f"right call changed: {item.id} {name} {key}={allowed}")
for kind in ("non-live", "live"):
    for what in ("number arguments of right calls", "changed"):
        print(kind, what, counts[kind, what], sep="\t")

counts.clear()
for r in replay(sys.argv[1:], lambda calls, item: with_request_zeros(calls, {}, item.question)):
    counts[(r.before, r.after)] += 1
    print(r.task, r.before, r.after, [args for _, args in r.calls], "->", [args for _, args in r.filled])
print("acted:", sum(counts.values()), "| right -> wrong:", counts[True, False], "| wrong -> right:",
      counts[False, True], "| unchanged:", counts[True, True] + counts[False, False])
