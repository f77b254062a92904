"""Offline: token-level PMI of the question given each search result, as a test of 'do the results answer it'.

    python pmi.py DATA.json MODEL.gguf   (DATA: the judge's, see judge.py; writes pmi.json for pmi_auc.py)
"""
import json, re, sys, math
import numpy as np
from llama_cpp import Llama
data = json.load(open(sys.argv[1]))
llm = Llama(sys.argv[2], n_ctx=2048, logits_all=True,
            verbose=False, n_threads=2, seed=0)
def norm(s): return re.sub(r'(?<=\d),(?=\d)', '', str(s))
def ans(o): return o['cat'] != 'unanswerable' and norm(o['expected']).lower() in norm(o['obs']).lower()
def qlogprobs(context, q):
    head = f"{context}Question: "
    toks_head = llm.tokenize(head.encode(), add_bos=False)
    toks = llm.tokenize((head + q).encode(), add_bos=False)
    m = len(toks) - len(toks_head)
    llm.reset()
    llm.eval(toks)
    logits = np.array(llm.scores[:len(toks)])
    out = []
    for i in range(len(toks) - m, len(toks)):
        row = logits[i - 1]
        lse = np.log(np.exp(row - row.max()).sum()) + row.max()
        out.append((llm.detokenize([toks[i]]).decode(errors='ignore'), float(row[toks[i]] - lse)))
    return out
res = []
for o in data:
    passages = [re.sub(r'^\[\d+\] [^:：]*[:：] ?', '', p) for p in o['obs'].split('\n') if p.strip()]
    base = qlogprobs("Passage: (nothing)\n", o['q'])
    per = [qlogprobs(f"Passage: {p}\n", o['q']) for p in passages]
    res.append({'id': o['id'], 'cat': o['cat'], 'ans': ans(o), 'base': base, 'per': per})
    print(o['id'], o['cat'], ans(o), flush=True)
json.dump(res, open('pmi.json', 'w'))
