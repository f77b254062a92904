"""list_rest and unit_groups over BFCL's own answers: a right call list must come back unchanged (live: counts
only)."""
import collections

from react_text.checks.list_rest import list_rest
from react_text.checks.unit_groups import unit_groups
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools

cats = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
        "live_parallel", "live_parallel_multiple")
c = collections.Counter()
for it in load_items(cats):
    calls = tuple((fn, {k: v[0] for k, v in args.items() if v and v[0] != ""}) for a in it.answers
                  for fn, args in a.items())
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools(it.functions)}
    q = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
    k = "live" if it.category.startswith("live") else "non-live"
    c[k, "items"] += 1
    for name, fill in (("list_rest", list_rest), ("unit_groups", unit_groups)):
        if fill(calls, schemas, q) != calls:
            c[k, name, "changed"] += 1
            if k == "non-live":
                print(name, it.id, it.question[:140])
for key in sorted(c):
    print(key, c[key])
