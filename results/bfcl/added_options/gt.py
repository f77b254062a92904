"""BFCL's right call lists (every category with calls, live ones too): how many later calls `added_options` would
leave out, as the engine's own rule (`fc.call_list._adds_options`): a call of a tool called before that passes
every argument of that call with the same value and adds arguments it left out. The first allowed value stands for
each argument ('' meaning left out).

Run: python results/bfcl/added_options/gt.py > results/bfcl/added_options/gt.txt"""
import collections

from react_text.eval.bfcl.data import load_items
from react_text.fc.call_list import _adds_options

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple",
              "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
counts = collections.Counter()
for item in load_items(CATEGORIES):
    kind = "live" if item.category.startswith("live") else "non-live"
    calls = [(name, {k: v[0] for k, v in args.items() if v and v[0] != ""})
             for answer in item.answers for name, args in answer.items()]
    for i, call in enumerate(calls[1:], start=1):
        counts[kind, "later calls"] += 1
        if _adds_options(tuple(calls[:i]), call):
            counts[kind, "left out by added_options"] += 1
            print(f"{item.id}: {call[0]} {call[1]}")
for key in sorted(counts):
    print(*key, counts[key], sep="\t")
