"""The default against the model's own tool format (native) on the 104 fresh items of this session: the default's
recorded replies with this session's three fills applied (``new_checks.py``: the runs were made before
demo_copy, and before the list comparison), native as run. One call, several calls, declines."""
import collections
from math import comb

from react_text.eval.bfcl.data import recorded

from new_checks import settled  # run from this folder: python compare.py

DEFAULT = ["results.jsonl", "../demo_copy/irrelevance-fresh/results.jsonl"]
GROUP = {"simple_python": "one call", "multiple": "one call", "parallel": "several calls",
         "parallel_multiple": "several calls", "irrelevance": "declines"}
records, items = recorded(DEFAULT)
native, _ = recorded(["native/results.jsonl"])
c: collections.Counter = collections.Counter()
only_default = only_native = 0
for task, record in records.items():
    ok = settled(items[task], record, {"demo_copy", "swapped", "crossed"})[1]
    group = GROUP[items[task].category]
    c[group, "n"] += 1
    c[group, "default"] += ok
    c[group, "native"] += native[task]["correct"]
    only_default += ok and not native[task]["correct"]
    only_native += native[task]["correct"] and not ok
for group in ("one call", "several calls", "declines"):
    print(f"{group}: default {c[group, 'default']}/{c[group, 'n']}, native {c[group, 'native']}/{c[group, 'n']}")
n, k = only_default + only_native, min(only_default, only_native)
print(f"all: default {sum(v for (g, f), v in c.items() if f == 'default')}/{len(records)}, native "
      f"{sum(v for (g, f), v in c.items() if f == 'native')}/{len(records)}; only the default {only_default}, only "
      f"native {only_native}, exact McNemar p = {min(1, 2 * sum(comb(n, i) for i in range(k + 1)) / 2 ** n):.2g}")
