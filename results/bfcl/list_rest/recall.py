"""How much each check can give back: BFCL's own answers for parallel and parallel_multiple with a tool's later
calls cut (its first kept, every other tool's kept); does the check bring the whole right list back? Non-live
only (the live categories are held out)."""
import collections

from react_text.checks.list_rest import list_rest
from react_text.checks.unit_groups import unit_groups
from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools

c = collections.Counter()
for it in load_items(("parallel", "parallel_multiple")):
    calls = tuple((f, {k: v[0] for k, v in args.items() if v and v[0] != ""}) for a in it.answers
                  for f, args in a.items())
    names = [n for n, _ in calls]
    repeated = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    if not repeated:
        continue
    first = names.index(repeated[0])
    cut = tuple(x for i, x in enumerate(calls) if x[0] != repeated[0] or i == first)
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools(it.functions)}
    q = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
    c["cut"] += 1
    for name, on in (("list_rest", list_rest(cut, schemas, q)), ("unit_groups", unit_groups(cut, schemas, q)),
                     ("both", unit_groups(list_rest(cut, schemas, q), schemas, q))):
        c[name, "acted"] += on != cut
        c[name, "whole list back"] += check(it.category, it.functions, [Call(n, a) for n, a in on], it.answers).valid
for key in sorted(c, key=str):
    print(key, c[key])
