"""The swapped fill (react_text.checks.swapped) over BFCL's own answers (every call; live as counts only) and over
the latest record of every item the default (classic under the grammar) has replied to, from runs made before the
check (the committed BFCL results and the session runs under /work/runs, not in the repository)."""
import json
import glob
import collections
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.checker import check, Call
from react_text.checks.swapped import swapped

NON_LIVE = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
LIVE = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance")
c = collections.Counter()
items = {it.id: it for it in load_items(NON_LIVE + LIVE)}


def request(it):
    return " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")


def first(v):
    return v[0] if isinstance(v, list) and v else v


for it in items.values():
    side = "live" if it.category.startswith("live") else "non-live"
    for ans in it.answers:
        calls = tuple((fn, {k: first(v) for k, v in args.items() if first(v) != ""}) for fn, args in ans.items())
        c[side, "right calls"] += len(calls)
        c[side, "right calls it changes"] += sum(a != b for a, b in zip(calls, swapped(calls, {}, request(it))))
latest = {}
for f in sorted(glob.glob("/work/runs/**/results.jsonl", recursive=True)
                + glob.glob("/work/main/results/bfcl/**/results.jsonl", recursive=True)):
    if "swapped" in f or "s9/fresh" in f:
        continue
    for line in open(f):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("bfcl") and r.get("template") == "classic" and r.get("constrain") and r["task_id"] in items:
            latest[r["task_id"]] = r
for tid, r in sorted(latest.items()):
    it = items[tid]
    side = "live" if it.category.startswith("live") else "non-live"
    c[side, "replies"] += 1
    if r["status"] != "called":
        continue
    calls = tuple((n, dict(a)) for x in json.loads(r["answer"]) for n, a in x.items())
    on = swapped(calls, {}, request(it))
    if on == calls:
        continue
    v_on = check(it.category, it.functions, [Call(n, a) for n, a in on], it.answers).valid
    c[side, "acted"] += 1
    c[side, "gained"] += v_on and not r["correct"]
    c[side, "lost"] += r["correct"] and not v_on
    if side == "non-live":
        print(tid, r["correct"], "->", v_on, calls, "->", on)
for k, v in sorted(c.items()):
    print(k, v)
