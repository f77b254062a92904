"""Pair a run of the shim (rows of `id`, `correct`, `calls`, as `one-call-before.jsonl`) with the committed `native`
records of the same items, per category, and list the items `native` solved and the run did not.

Run from the repository root: python results/bfcl/own_format/against_native.py results/bfcl/own_format/FILE.jsonl"""
import collections
import glob
import json
import sys

native = {}
for path in sorted(glob.glob("results/bfcl/**/*.jsonl", recursive=True)):
    for line in open(path):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("template") == "native" and not record.get("constrain") and record.get("bfcl"):
            native[record["task_id"]] = record
run = {row["id"]: row for row in map(json.loads, open(sys.argv[1]))}
both = [task for task in run if task in native]
for category in sorted({task.rsplit("_", 1)[0] for task in both}):
    tasks = [task for task in both if task.rsplit("_", 1)[0] == category]
    print(f"{category}: run {sum(run[t]['correct'] for t in tasks)}, native {sum(native[t]['correct'] for t in tasks)}"
          f" of {len(tasks)}")
pairs = collections.Counter((run[t]["correct"], native[t]["correct"]) for t in both)
print("(run, native):", dict(pairs))
for task in both:
    if native[task]["correct"] and not run[task]["correct"]:
        print(f"native only: {task}: {run[task]['calls'] or run[task]['text'][:100]}")
