"""Which recorded answers `bare_name` reads as only a tool's name (`checks.bare_names.is_bare_name`): every
record of the shim's default (`classic` under the grammar, Qwen2.5-Coder-0.5B) of a non-live BFCL item in the files
named, the latest per item, and every answer in words among them.

Run: python results/bfcl/bare_name/scan.py $(cat results/bfcl/new_value/files.txt) > results/bfcl/bare_name/scan.txt"""
import collections
import sys

from react_text.checks.bare_names import is_bare_name
from react_text.eval.bfcl.data import held_out, recorded
from react_text.eval.bfcl.replay import answer_calls

records, items = recorded(sys.argv[1:], keep=lambda r: r.get("model") == "qwen2.5-coder-0.5b"
                          and r.get("template") == "classic" and bool(r.get("constrain")) and not held_out(r["category"]))
counts = collections.Counter()
for task, record in sorted(records.items()):
    if answer_calls(record["answer"]) is not None:
        continue
    counts["answers in words", items[task].category] += 1
    offered = {f["name"] for f in items[task].functions}
    if is_bare_name(record["answer"], offered):
        counts["bare names", items[task].category] += 1
        print(f"{task}: {record['answer']!r}, right {record['correct']}")
for key in sorted(counts):
    print(*key, counts[key], sep="\t")
