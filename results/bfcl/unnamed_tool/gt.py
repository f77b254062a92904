"""BFCL's right call lists (every category with calls, live ones too): how many calls of a tool not called
before them `unnamed_tool` would leave out (the engine's own rule, `fc.call_list._unnamed`).

Run: python results/bfcl/unnamed_tool/gt.py > results/bfcl/unnamed_tool/gt.txt"""
import collections

from react_text.eval.bfcl.data import load_items
from react_text.fc.call_list import _unnamed
from react_text.fc.request import read_tools
from react_text.prompting.retrieval import tool_terms, tool_words

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple",
              "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
counts = collections.Counter()
for item in load_items(CATEGORIES):
    kind = "live" if item.category.startswith("live") else "non-live"
    asked = set(tool_terms(item.question))
    words = {t.name: tool_words(t) for t in read_tools([{"type": "function", "function": f} for f in item.functions])}
    calls = [(name, args) for answer in item.answers for name, args in answer.items()]
    for i, (name, _) in enumerate(calls):
        if i == 0 or any(name == n for n, _ in calls[:i]):
            continue
        counts[kind, "calls of a tool not called before"] += 1
        if _unnamed(name, tuple(calls[:i]), words, asked):
            counts[kind, "left out by unnamed_tool"] += 1
            print(f"{item.id}: {name} | {item.question[:120]}")
for key in sorted(counts):
    print(*key, counts[key], sep="\t")
