"""own_items against BFCL's own answers (the first possible value of each argument, non-live and live; live as
counts only): (1) right call lists it changes; (2) where it reads the request's parts, whether each call's list is
its part's items; (3) recall: each right list whose tool is called twice or more with a list argument, with every
call given the other calls' items too (the slip it is for), and what own_items gives back."""
import collections

from react_text.checks import own_items as module
from react_text.checks.own_items import own_items
from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools

CATS = ("simple_python", "multiple", "parallel", "parallel_multiple",
        "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
c = collections.Counter()
for it in load_items(CATS):
    k = "live" if it.category.startswith("live") else "non-live"
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools(it.functions)}
    q = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
    calls = tuple((n, {p: v[0] for p, v in a.items() if v and v[0] != ""}) for x in it.answers for n, a in x.items())
    c[k, "right lists"] += 1
    c[k, "right lists changed"] += own_items(calls, schemas, q) != calls
    for tool in dict.fromkeys(n for n, _ in calls):
        mine = [dict(a) for n, a in calls if n == tool]
        parts = module._parts(mine, q)
        keys = [p for p in dict.fromkeys(p for a in mine for p, v in a.items() if isinstance(v, list))
                if all(isinstance(a.get(p), list) and a[p] and all(isinstance(x, str) for x in a[p]) for a in mine)]
        if len(mine) < 2 or not keys:
            continue
        if parts is not None:
            c[k, "parts read (a tool, its list argument)"] += len(keys)
        for key in keys:
            union = list(dict.fromkeys(x for a in mine for x in a[key]))
            if len(union) == max(len(a[key]) for a in mine):
                continue  # every call already passes every item: nothing to slip
            c[k, "recall: lists given every item"] += 1
            slipped = tuple((n, {**a, key: union} if n == tool else dict(a)) for n, a in calls)
            back = own_items(slipped, schemas, q)
            right = check(it.category, it.functions, [Call(n, a) for n, a in back], it.answers).valid
            c[k, "recall: acted"] += back != slipped
            c[k, "recall: right again"] += right
            if k == "non-live" and back != slipped:
                print(it.id, "right again" if right else "changed, not right", "|", q[:100])
for key in sorted(c):
    print(key, c[key])
