"""Over BFCL's answers: where one tool is called several times and two or more arguments vary, is the
answer the full product of their values, and does the request write each argument's values as one
coordinated list ("Lakers and Bulls ... 2018 and 2020")?"""
import json
import sys
import collections
import regex
from react_text.eval.bfcl.data import load_items
SEP = regex.compile(r"^[\s,'\"]*(?:and|or|&|as well as|,)?[\s'\"]*$", regex.I)
def first(v): return v[0] if isinstance(v, list) and v else v
def spans(value, text):
    low = text.lower()
    if isinstance(value, bool): return None
    if isinstance(value, (int, float)):
        out = [(m.start(), m.end()) for m in regex.finditer(r"(?<![\d.])\d[\d,]*(?:\.\d+)?(?![\d])", text)
               if float(m[0].replace(',', '')) == float(value)]
        return out[0] if out else None
    if isinstance(value, str) and value.strip():
        i = low.find(value.lower())
        return (i, i + len(value)) if i >= 0 else None
    return None
def coordinated(values, text):
    sp = [spans(v, text) for v in values]
    if any(s is None for s in sp): return None
    sp.sort()
    return all(SEP.match(text[a[1]:b[0]]) for a, b in zip(sp, sp[1:]))
c = collections.Counter()
cats = [a for a in sys.argv[1:] if not a.startswith("-")] or ["parallel", "parallel_multiple"]
for it in load_items(tuple(cats)):
    groups = collections.defaultdict(list)
    for ans in it.answers:
        for fn, args in ans.items(): groups[fn].append({k: first(v) for k, v in args.items()})
    for fn, calls in groups.items():
        if len(calls) < 2: continue
        keys = set().union(*calls)
        vary = [k for k in keys if len({json.dumps(c_.get(k), sort_keys=True) for c_ in calls}) > 1]
        if len(vary) < 2: continue
        vals = {k: list(dict.fromkeys(json.dumps(c_.get(k), sort_keys=True) for c_ in calls)) for k in vary}
        prod = 1
        for v in vals.values(): prod *= len(v)
        combos = {tuple(json.dumps(c_.get(k), sort_keys=True) for k in vary) for c_ in calls}
        crossed = prod == len(calls) == len(combos)
        co = [coordinated([json.loads(x) for x in vals[k]], it.question) for k in vary]
        pred = "unknown" if any(x is None for x in co) else ("cross" if sum(co) >= 2 else "pair")
        c[(crossed, pred)] += 1
        if pred != "unknown" and (pred == "cross") != crossed or '-v' in sys.argv:
            print(it.id, crossed, pred, vary, it.question[:160])
print(c)
