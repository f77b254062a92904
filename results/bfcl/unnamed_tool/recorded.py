"""Offline, over the latest recorded reply of every non-live BFCL item the shim's default ran (the committed
results and a first-10 run kept beside them): the replies with a call `unnamed_tool` would leave out (a call
after the first, of a tool not called before, none of whose terms, from its name, description and arguments, the request writes),
checked with those calls and without them.

Run: python results/bfcl/unnamed_tool/recorded.py RESULTS.jsonl ... > results/bfcl/unnamed_tool/recorded.txt"""
import collections
import json
import sys

from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import recorded
from react_text.fc.call_list import _unnamed
from react_text.fc.request import read_tools
from react_text.prompting.retrieval import tool_terms, tool_words


def default_shim(record: dict) -> bool:
    return (record.get("template") == "classic" and bool(record.get("constrain")) and bool(record.get("bfcl"))
            and not record["task_id"].startswith("live"))


records, items = recorded(sys.argv[1:], keep=default_shim)
counts = collections.Counter()
for task, record in sorted(records.items()):
    item = items[task]
    try:
        calls = [(name, args) for one in json.loads(record["answer"]) for name, args in one.items()]
    except (ValueError, AttributeError, TypeError):
        continue  # an answer, not calls
    asked = set(tool_terms(item.question))
    words = {t.name: tool_words(t) for t in read_tools([{"type": "function", "function": f} for f in item.functions])}
    kept = [c for i, c in enumerate(calls) if i == 0 or not _unnamed(c[0], tuple(calls[:i]), words, asked)]
    counts["replies"] += 1
    if kept == calls:
        continue
    before = check(item.category, item.functions, [Call(*c) for c in calls], item.answers).valid
    after = check(item.category, item.functions, [Call(*c) for c in kept], item.answers).valid
    counts["acted", before, after] += 1
    print(f"{task}: right {before} -> {after}; left out {[n for n, _ in calls if (n, _) not in kept]}")
for key in sorted(counts, key=str):
    print(key, counts[key], sep="\t")
