import json, numpy as np
res = json.load(open('pmi.json'))
def auc(pos, neg):
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
aggs = {
 'sum': lambda d: d.sum(),
 'mean': lambda d: d.mean(),
 'min': lambda d: d.min(),
 'frac>0.5': lambda d: (d > 0.5).mean(),
 'frac>1': lambda d: (d > 1).mean(),
 'frac<-0.5': lambda d: -(d < -0.5).mean(),
 'low3mean': lambda d: np.sort(d)[:3].mean(),
 'q25': lambda d: np.percentile(d, 25),
}
for name, f in aggs.items():
    pos, neg = [], []
    for r in res:
        if not (r['ans'] or r['cat'] == 'unanswerable'): continue
        b = np.array([x[1] for x in r['base']])
        scores = [f(np.array([x[1] for x in p]) - b) for p in r['per'] if len(p) == len(b)]
        s = max(scores) if scores else -99
        (pos if r['ans'] else neg).append(s)
    print(f"{name:10s} AUC {auc(pos, neg):.2f}  n={len(pos)}/{len(neg)}")
