"""`new_value`'s exception, with and without the called tools' own terms (`fc.call_list._asked_anew`'s `words`):
a later call that passes no request value the calls before it did not stands when the request names its tool by a
word that no called tool's name has; since 2026-12-07, nor its description or arguments. Counted two ways:

1. BFCL's right call lists (every category with calls, live too; the first allowed value of each argument, ''
   meaning left out): the later calls that pass nothing new, and how many of them each rule lets through. A call the
   new rule refuses and the old let through would be a right call lost.
2. The latest recorded reply of every non-live item the shim's default ran (the files named on the command line):
   the replies where the new rule ends the list earlier (the calls from there on are cut, as the list ends there),
   checked before and after.

Run: python results/bfcl/new_value/scan.py $(cat results/bfcl/new_value/files.txt) > results/bfcl/new_value/scan.txt"""
import collections
import sys

from react_text.checks.request_values import adds_nothing
from react_text.eval.bfcl.data import held_out, load_items, recorded
from react_text.eval.bfcl.replay import answer_calls, valid
from react_text.fc.call_list import _asked_anew
from react_text.fc.request import read_tools
from react_text.prompting.retrieval import tool_words

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple",
              "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")


def words_of(item) -> dict:
    return {t.name: tool_words(t) for t in read_tools([{"type": "function", "function": f} for f in item.functions])}


def first_cut(calls, item) -> int | None:
    """The index of the first later call the new rule refuses and the old one lets through."""
    words = words_of(item)
    for i, call in enumerate(calls[1:], start=1):
        made = [name for name, _ in calls[:i]]
        if not adds_nothing(call[1], [args for _, args in calls[:i]], item.question):
            continue
        if _asked_anew(call, made, item.question, {}) and not _asked_anew(call, made, item.question, words):
            return i
    return None


counts = collections.Counter()
print("## BFCL's right call lists")
for item in load_items(CATEGORIES):
    kind = "live" if held_out(item.category) else "non-live"
    calls = [(name, {k: v[0] for k, v in args.items() if v and v[0] != ""})
             for answer in item.answers for name, args in answer.items()]
    for i, call in enumerate(calls[1:], start=1):
        if not adds_nothing(call[1], [args for _, args in calls[:i]], item.question):
            continue
        made = [name for name, _ in calls[:i]]
        counts[kind, "later calls passing nothing new"] += 1
        counts[kind, "let through, old rule"] += _asked_anew(call, made, item.question, {})
        counts[kind, "let through, new rule"] += _asked_anew(call, made, item.question, words_of(item))
for key in sorted(counts):
    print(*key, counts[key], sep="\t")

print("\n## Recorded replies of the shim's default (non-live)")
records, items = recorded(sys.argv[1:], keep=lambda r: r.get("model") == "qwen2.5-coder-0.5b"
                          and r.get("template") == "classic" and bool(r.get("constrain")) and not held_out(r["category"]))
seen = collections.Counter()
for task, record in sorted(records.items()):
    calls = answer_calls(record["answer"])
    if not calls:
        continue
    seen["replies with calls"] += 1
    cut = first_cut(calls, items[task])
    if cut is None:
        continue
    before, after = valid(items[task], calls), valid(items[task], calls[:cut])
    seen["acted", before, after] += 1
    print(f"{task}: right {before} -> {after}; cut {[name for name, _ in calls[cut:]]}")
for key in sorted(seen, key=str):
    print(key, seen[key], sep="\t")
