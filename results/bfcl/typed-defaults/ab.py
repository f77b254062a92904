"""Run BFCL items with two check settings through the shim (classic, grammar, 256 tokens): JSONL of correctness,
calls, text and corrections per item and setting."""
import json, sys
from react_text.backends.build import build_backend
from react_text.eval.bfcl.cells import run_item
from react_text.eval.bfcl.checker import check
from react_text.eval.bfcl.data import load_items

ids, settings, out = sys.argv[1].split(","), sys.argv[2].split("|"), open(sys.argv[3], "a")
items = {it.id: it for it in load_items(sorted({i.rsplit("_", 1)[0] for i in ids})) if it.id in set(ids)}
backend = build_backend("llama")
for i in ids:
    it = items[i]
    for checks in settings:
        run = run_item(it, "classic", backend, constrain=True, checks=checks, max_tokens=256)
        ok = check(it.category, it.functions, list(run.calls), it.answers).valid
        said = run.trace[0] if run.trace else {}
        row = {"id": i, "checks": checks, "correct": ok, "calls": [(c.name, dict(c.args)) for c in run.calls],
               "text": run.text[:200], "corrections": said.get("format_errors", []), "step_checks": said.get("step_checks", [])}
        out.write(json.dumps(row) + "\n"); out.flush()
        print(i, checks, ok, row["corrections"], row["text"][:80], row["calls"][:2], flush=True)
