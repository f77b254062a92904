"""list_rest and unit_groups applied, in the shim's order, to every recorded final call list of the default
(classic under the grammar): the latest record of each item from runs made before the checks (the committed BFCL
results and the session runs under /work/runs, which are not in the repository; this folder's own runs left out).
Acted / gained / lost per check and for both; live (held out) as counts only. Both checks run last in the shim, on
the finished calls, as pure functions: this is their ablation itself."""
import collections
import glob
import json

from react_text.checks.list_rest import list_rest
from react_text.checks.unit_groups import unit_groups
from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import recorded
from react_text.eval.bfcl.decode import openai_tools

paths = [f for f in sorted(glob.glob("/work/runs/**/results.jsonl", recursive=True)
                          + glob.glob("/work/main/results/bfcl/**/results.jsonl", recursive=True))
         if not any(later in f for later in ("list_rest", "own_items", "/s11/", "/s12/"))]
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
    valid = lambda cs: check(it.category, it.functions, [Call(n, a) for n, a in cs], it.answers).valid  # noqa: E731
    v_off = valid(calls)
    rest = list_rest(calls, schemas, q)
    both = unit_groups(rest, schemas, q)
    for name, on in (("list_rest", list_rest(calls, schemas, q)), ("unit_groups", unit_groups(calls, schemas, q)),
                     ("both", both)):
        if on == calls:
            continue
        v_on = valid(on)
        c[k, name, "acted"] += 1
        c[k, name, "gained"] += v_on and not v_off
        c[k, name, "lost"] += v_off and not v_on
        if k == "non-live" and name != "both":
            print(name, tid, "off", v_off, "on", v_on, "|", it.question[:110], "\n   ", calls, "\n -> ", on)
for key in sorted(c):
    print(key, c[key])
