"""Score the calls `bench/bfcl_calls.py --checks=-percent` recorded: as they came (off) and with the fill applied (on)."""
import json, sys, collections
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.eval.bfcl.checker import check, Call
from react_text.checks.percents import as_fractions
rows = [json.loads(l) for l in open(sys.argv[1])]
items = {it.id: it for it in load_items(sorted({r["id"].rsplit("_", 1)[0] for r in rows}))}
c = collections.Counter()
for r in rows:
    it = items[r["id"]]
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools(it.functions)}
    q = it.messages[-1]["content"] if isinstance(it.messages[-1], dict) else ""
    q = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
    calls = tuple((n, dict(a)) for n, a in r["calls"])
    on = as_fractions(calls, schemas, q)
    v_off = check(it.category, it.functions, [Call(n, a) for n, a in calls], it.answers).valid
    v_on = check(it.category, it.functions, [Call(n, a) for n, a in on], it.answers).valid
    acted = on != calls
    c["acted"] += acted; c["on"] += v_on; c["off"] += v_off; c["gained"] += v_on and not v_off; c["lost"] += v_off and not v_on
    print(json.dumps({"id": r["id"], "acted": acted, "off": v_off, "on": v_on, "calls": calls, "converted": on if acted else None}))
print(dict(c), "of", len(rows), file=sys.stderr)
