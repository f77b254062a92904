"""Recorded replies of the shim's default (non-live BFCL items): where `described_option` takes an argument out of
the finished calls, and BFCL's verdict before and after (`eval.bfcl.replay`: the check runs last on the finished
calls, so applying it to a recorded reply is its ablation; `ab.jsonl` confirms it end to end).

Run: python results/bfcl/described_option/recorded.py $(cat results/bfcl/described_option/files.txt) > results/bfcl/described_option/recorded.txt"""
import collections
import sys

from react_text.checks.described_options import without_described
from react_text.eval.bfcl.replay import replay

counts = collections.Counter()
for r in replay(sys.argv[1:], lambda calls, item: without_described(
        calls, {f["name"]: f["parameters"] for f in item.functions}, [item.question])):
    counts[(r.before, r.after)] += 1
    gone = [(name, key, value) for (name, args), (_, left) in zip(r.calls, r.filled) for key, value in args.items()
            if key not in left]
    print(r.task, r.before, r.after, gone)
print("acted:", sum(counts.values()), "| right -> wrong:", counts[True, False], "| wrong -> right:",
      counts[False, True], "| unchanged:", counts[True, True] + counts[False, False])
