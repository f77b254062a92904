"""BFCL's right calls (live ones too): how many arguments `described_option` would take out of a right call, by the
engine's own rule (`checks.described_options.without_described`, the question as the only ground). An argument
counts when every value BFCL allows for it would be left out and '' (leaving it out) is not among them.

Run: python results/bfcl/described_option/gt.py > results/bfcl/described_option/gt.txt"""
import collections

from react_text.checks.described_options import without_described
from react_text.eval.bfcl.replay import right_arguments

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple",
              "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
counts = collections.Counter()
for item, name, key, allowed in right_arguments(CATEGORIES):
    kind = "live" if item.category.startswith("live") else "non-live"
    counts[kind, "arguments"] += 1
    schemas = {f["name"]: f["parameters"] for f in item.functions}
    if allowed and "" not in allowed and all(
            without_described(((name, {key: v}),), schemas, [item.question]) == ((name, {}),) for v in allowed):
        counts[kind, "taken out of a right call"] += 1
        if kind == "non-live":
            print(f"{item.id}: {name} {key}={allowed}")
for kind in ("non-live", "live"):
    for what in ("arguments", "taken out of a right call"):
        print(kind, what, counts[kind, what], sep="\t")
