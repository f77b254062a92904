"""Run BFCL items with stated_list off; score the calls as they came and with the fill applied."""
import json, sys
from react_text.backends.build import build_backend
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.cells import run_item
from react_text.eval.bfcl.checker import check, Call
from react_text.checks.stated_lists import stated_lists
ids = [i for i in open(sys.argv[1]).read().strip().split(",") if i]
want = set(ids)
items = {it.id: it for it in load_items(sorted({i.rsplit("_", 1)[0] for i in ids})) if it.id in want}
b = build_backend("llama")
for i in ids:
    it = items[i]
    r = run_item(it, "classic", b, constrain=True, checks="-stated_list", max_tokens=256)
    schemas = {f["name"]: f.get("parameters") for f in it.functions}
    q = it.messages[-1]["content"]
    calls = tuple((c.name, dict(c.args)) for c in r.calls)
    filled = stated_lists(calls, schemas, q)
    out = {"id": i, "off": check(it.category, it.functions, [Call(n, a) for n, a in calls], it.answers).valid,
           "on": check(it.category, it.functions, [Call(n, a) for n, a in filled], it.answers).valid,
           "acted": filled != calls, "calls": calls, "filled": filled}
    print(json.dumps(out), flush=True)
