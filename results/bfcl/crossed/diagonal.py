"""On BFCL's crossed answers (non-live): feed crossed() the answer paired off (diagonal) and see whether it
gives the product back."""
import collections
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.eval.bfcl.checker import check, Call
from react_text.checks.crossed import crossed
c = collections.Counter()
for it in load_items(("parallel", "parallel_multiple", "multiple", "simple_python")):
    calls = tuple((fn, {k: v[0] for k, v in args.items() if v and v[0] != ""}) for a in it.answers for fn, args in a.items())
    by = collections.defaultdict(list)
    for fn, a in calls: by[fn].append(a)
    for fn, group in by.items():
        if len(group) < 3: continue
        keys = list(group[0])
        vary = [k for k in keys if len({repr(g.get(k)) for g in group}) > 1]
        if len(vary) < 2: continue
        vals = {k: list(dict.fromkeys(repr(g.get(k)) for g in group)) for k in vary}
        n = 1
        for v in vals.values(): n *= len(v)
        if n != len(group): continue
        width = max(len(v) for v in vals.values())
        diag = []
        for i in range(width):
            d = dict(group[0])
            for k in vary: d[k] = eval(vals[k][i % len(vals[k])])
            diag.append(d)
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools(it.functions)}
        q = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
        others = [(f, a) for f, a in calls if f != fn]
        trial = tuple([(fn, d) for d in diag] + others)
        on = crossed(trial, schemas, q)
        ok = check(it.category, it.functions, [Call(f, a) for f, a in on], it.answers).valid
        c["crossed answers"] += 1; c["recovered"] += ok
        print(it.id, ok, q[:100])
print(dict(c))
