"""Score two compare runs of the same items (off, on): per category, gained and lost, and where list_end acted (traces)."""
import json, sys, collections
from math import comb
a = {json.loads(l)["task_id"]: json.loads(l) for l in open(sys.argv[1] + "/results.jsonl")}
b = {json.loads(l)["task_id"]: json.loads(l) for l in open(sys.argv[2] + "/results.jsonl")}
def acted(r):
    try:
        t = [json.loads(l) for l in open(r["trace"])]
    except Exception:
        return None
    return any("list_end" in (e.get("step_checks") or []) for e in t)
cat = collections.defaultdict(lambda: [0, 0, 0]); g = l = n_acted = 0
for tid in a:
    if tid not in b: continue
    c = b[tid]["category"]; cat[c][0] += a[tid]["correct"]; cat[c][1] += b[tid]["correct"]; cat[c][2] += 1
    ac = acted(b[tid]); n_acted += bool(ac)
    if a[tid]["correct"] != b[tid]["correct"] or ac:
        print(tid, "off", a[tid]["correct"], "on", b[tid]["correct"], "list_end acted" if ac else "")
    g += b[tid]["correct"] and not a[tid]["correct"]; l += a[tid]["correct"] and not b[tid]["correct"]
for c, (x, y, n) in cat.items(): print(f"{c}: {x}/{n} -> {y}/{n}")
n = g + l; p = min(1, 2 * sum(comb(n, k) for k in range(0, min(g, l) + 1)) / 2 ** n) if n else 1
print(f"all: {sum(v[0] for v in cat.values())} -> {sum(v[1] for v in cat.values())} of {sum(v[2] for v in cat.values())}; acted {n_acted}, gained {g}, lost {l}, exact McNemar p = {p:.3g}")
