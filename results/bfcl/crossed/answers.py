"""crossed over BFCL's own answers: a right call list must come back unchanged (live: counts only)."""
import collections
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.checks.crossed import crossed
cats = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
c = collections.Counter()
for it in load_items(cats):
    if not it.answers: continue
    calls = tuple((fn, {k: v[0] for k, v in args.items() if v and v[0] != ""}) for a in it.answers for fn, args in a.items())
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools(it.functions)}
    q = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
    on = crossed(calls, schemas, q)
    live = it.category.startswith("live")
    c[("live" if live else "non-live", "items")] += 1
    if on != calls:
        c[("live" if live else "non-live", "changed")] += 1
        if not live: print(it.id, it.question[:140], "\n   ", calls, "\n ->", on)
print(dict(c))
