"""Before building stated_list: over BFCL's possible answers (items 10-39 and 50 on; the reported 0-9 and 40-49 left
out), the optional list parameters whose items' enum values a request names, and whether the answer expects exactly
those items (match), other lists (other), or allows the list left out with another list (empty-allowed)."""
import json, pathlib, re
import bfcl_eval
from react_text.checks.stated_options import offered_values, says as _says
root=pathlib.Path(bfcl_eval.__file__).parent/'data'
cats=['simple_python','multiple','parallel','parallel_multiple']
stats={'match':0,'absent':0,'other':0}; rows=[]
for c in cats:
    items={json.loads(l)['id']:json.loads(l) for l in open(root/f'BFCL_v4_{c}.json')}
    ans={json.loads(l)['id']:json.loads(l) for l in open(root/'possible_answer'/f'BFCL_v4_{c}.json')}
    for k,d in items.items():
        n=int(k.rsplit('_',1)[1])
        if n<10 or 40<=n<50: continue
        q=d['question'][0][-1]['content']
        for fn in d['function']:
            props=fn['parameters'].get('properties',{}); req=set(fn['parameters'].get('required',[]))
            for p,prop in props.items():
                if p in req or prop.get('type')!='array': continue
                named=[v for v in offered_values(prop.get('items')) if len(v)>=2 and _says(q,v)]
                if not named: continue
                gts=[g[fn['name']] for g in ans[k]['ground_truth'] if fn['name'] in g]
                if not gts: continue
                ncalls=len(gts)
                for g in gts:
                    opts=g.get(p)
                    if opts is None: kind='absent'   # param not in GT -> filling would be wrong? (BFCL: absent key means must be absent)
                    elif any(isinstance(o,list) and set(map(str,o))==set(named) for o in opts): kind='match'
                    elif '' in opts or [] in opts: kind='optional-ok' if any(isinstance(o,list) and set(map(str,o))==set(named) for o in opts) else 'empty-allowed'
                    else: kind='other'
                    stats[kind]=stats.get(kind,0)+1
                    rows.append((k,fn['name'],p,named,ncalls,kind,opts))
print(stats)
for r in rows: print(r)
