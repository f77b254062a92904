"""own_items applied to every recorded final call list of the default (classic under the grammar): the latest
record of each item from the runs made before the check (the committed BFCL results and the session runs under
/work/runs, which are not in the repository; this folder's own runs left out). Acted / gained / lost; live (held
out) as counts only. It runs last in the shim, on the finished calls, as a pure function: this is its ablation."""
import collections
import glob
import json

from react_text.checks.own_items import own_items
from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import recorded
from react_text.eval.bfcl.decode import openai_tools

paths = [f for f in sorted(glob.glob("/work/runs/**/results.jsonl", recursive=True)
                          + glob.glob("/work/main/results/bfcl/**/results.jsonl", recursive=True))
         if "own_items" not in f and "/s12/" not in f]
latest, items = recorded(paths, lambda r: r.get("bfcl") and r.get("template") == "classic" and r.get("constrain"))
c = collections.Counter()
for tid, r in sorted(latest.items()):
    it = items.get(tid)
    if it is None:
        continue
    k = "live" if it.category.startswith("live") else "non-live"
    c[k, "records"] += 1
    if r["status"] != "called":
        continue
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools(it.functions)}
    q = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
    calls = tuple((n, dict(a)) for x in json.loads(r["answer"]) for n, a in x.items())
    on = own_items(calls, schemas, q)
    if on == calls:
        continue
    valid = lambda cs: check(it.category, it.functions, [Call(n, a) for n, a in cs], it.answers).valid  # noqa: E731
    v_off, v_on = valid(calls), valid(on)
    c[k, "acted"] += 1
    c[k, "gained"] += v_on and not v_off
    c[k, "lost"] += v_off and not v_on
    if k == "non-live":
        print(tid, "off", v_off, "on", v_on, "|", it.question[:110], "\n   ", calls, "\n -> ", on)
for key in sorted(c):
    print(key, c[key])
