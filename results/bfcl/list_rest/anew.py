"""new_value's naming rule, before and after "a word that also names an argument passed does not count".

1. Recorded replies (the latest of each BFCL item run so far, classic under the grammar): later calls of another
   tool that add no value and stand only because the request names their tool; with the rule, the list ends
   there. Verdict of the reply cut at that call. (A call the rule ends a list at is a call in the record, so the
   records show every reply it changes.)
2. BFCL's own right call lists: of the later calls that add no value and stand by the naming rule, how many the
   new rule would end (non-live listed; live as counts only)."""
import collections
import glob
import json

from react_text.checks.request_values import adds_nothing, all_from_request
from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import load_items, recorded
from react_text.fc.call_list import _VERB_TERMS
from react_text.prompting.retrieval import tool_terms


def anew(call, called, q, refined):
    name, args = call
    if name in called or not all_from_request(args, q):
        return False
    before = {t for o in called for t in tool_terms(o)} | _VERB_TERMS
    if refined:
        before |= {t for k in args for t in tool_terms(k)}
    return bool((set(tool_terms(name)) - before) & set(tool_terms(q)))


def question(it):
    return " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")


paths = [f for f in sorted(glob.glob("/work/runs/**/results.jsonl", recursive=True)
                          + glob.glob("/work/main/results/bfcl/**/results.jsonl", recursive=True))
         if not any(later in f for later in ("own_items", "/s11/first10b", "/s12/"))]
latest, items = recorded(paths, lambda r: r.get("bfcl") and r.get("template") == "classic" and r.get("constrain"))
c = collections.Counter()
for tid, r in sorted(latest.items()):
    it = items.get(tid)
    if it is None or r["status"] != "called":
        continue
    k = "live" if it.category.startswith("live") else "non-live"
    q = question(it)
    calls = [(n, a) for x in json.loads(r["answer"]) for n, a in x.items()]
    for i in range(1, len(calls)):
        made = [n for n, _ in calls[:i]]
        if adds_nothing(calls[i][1], [a for _, a in calls[:i]], q) and anew(calls[i], made, q, False) \
                and not anew(calls[i], made, q, True):
            v0 = check(it.category, it.functions, [Call(n, a) for n, a in calls], it.answers).valid
            v1 = check(it.category, it.functions, [Call(n, a) for n, a in calls[:i]], it.answers).valid
            c["records", k, "changed"] += 1
            c["records", k, "gained"] += v1 and not v0
            c["records", k, "lost"] += v0 and not v1
            if k == "non-live":
                print(tid, v0, "->", v1, calls[i][0], "|", q[:100])
            break
for it in load_items(("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
                      "live_parallel", "live_parallel_multiple")):
    calls = [(fn, {k: v[0] for k, v in args.items() if v and v[0] != ""}) for a in it.answers for fn, args in a.items()]
    q, k = question(it), "live" if it.category.startswith("live") else "non-live"
    for i in range(1, len(calls)):
        made = [n for n, _ in calls[:i]]
        if adds_nothing(calls[i][1], [a for _, a in calls[:i]], q):
            old, new = anew(calls[i], made, q, False), anew(calls[i], made, q, True)
            c["answers", k, "stand by naming"] += old
            c["answers", k, "ended by the new rule"] += old and not new
for key in sorted(c):
    print(key, c[key])
