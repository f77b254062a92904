"""Run BFCL items through the shim with the percent check off (the defaults less `percent`) and record the calls
as they came; `score.py` scores them as they came and with the fill applied."""
import json, sys
from react_text.backends.build import build_backend
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.cells import run_item
ids = [i for i in open(sys.argv[1]).read().strip().split(",") if i]
want = set(ids)
items = {it.id: it for it in load_items(sorted({i.rsplit("_", 1)[0] for i in ids})) if it.id in want}
b = build_backend("llama")
for i in ids:
    it = items[i]
    r = run_item(it, "classic", b, constrain=True, checks="-percent", max_tokens=256)
    print(json.dumps({"id": i, "calls": [(c.name, dict(c.args)) for c in r.calls], "text": r.text[:300]}), flush=True)
