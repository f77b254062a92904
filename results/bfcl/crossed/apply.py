"""The crossed fill applied to every recorded final call list of the default (classic under the grammar), the
latest record of each item from runs made before the check (the committed BFCL results and the session runs under
/work/runs, which are not in the repository; this folder's own run left out): acted / gained / lost; live (held
out) as counts only. As the check runs last in the shim, on the finished calls, this is the ablation itself."""
import json
import glob
import collections
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.eval.bfcl.checker import check, Call
from react_text.checks.crossed import crossed
latest = {}
for f in sorted(glob.glob("/work/runs/**/results.jsonl", recursive=True) + glob.glob("/work/main/results/bfcl/**/results.jsonl", recursive=True)):
    if "crossed" in f: continue
    for l in open(f):
        try: r = json.loads(l)
        except Exception: continue
        if r.get("bfcl") and r.get("template") == "classic" and r.get("constrain"):
            latest[r["task_id"]] = r
cats = sorted({r["category"] for r in latest.values()})
items = {it.id: it for it in load_items(tuple(cats))}
c = collections.Counter()
for tid, r in sorted(latest.items()):
    it = items.get(tid)
    if it is None or r["status"] != "called": continue
    live = it.category.startswith("live")
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools(it.functions)}
    q = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
    calls = tuple((n, dict(a)) for x in json.loads(r["answer"]) for n, a in x.items())
    on = crossed(calls, schemas, q)
    if on == calls: continue
    v_off = check(it.category, it.functions, [Call(n, a) for n, a in calls], it.answers).valid
    v_on = check(it.category, it.functions, [Call(n, a) for n, a in on], it.answers).valid
    k = "live" if live else "non-live"
    c[k, "acted"] += 1; c[k, "gained"] += v_on and not v_off; c[k, "lost"] += v_off and not v_on
    if not live:
        print(tid, "off", v_off, "on", v_on, "|", it.question[:120], "\n   ", calls, "\n -> ", on)
print(dict(c))
