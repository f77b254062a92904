"""The demo_copy check over the latest record of every item the default (classic under the grammar) replied to,
from runs made before this session's checks (the committed BFCL results and the session runs under /work/runs,
which are not in the repository): per category, whether a reply's calls copy the demo call's made-up values,
and whether the reply was right. Live (held out) as counts only. -v lists the non-live replies that copy."""
import json
import glob
import collections
import sys
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.registry import DEFAULT_CHECKS
from react_text.fc.shim import _read_request
from react_text.checks.demo_copies import without_copies
cats = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance")
items = {it.id: it for it in load_items(cats)}
latest = {}
for f in sorted(glob.glob("/work/runs/**/results.jsonl", recursive=True) + glob.glob("/work/main/results/bfcl/**/results.jsonl", recursive=True)):
    if "s9/" in f or "crossed" in f or "swapped" in f or "demo_copy" in f or "fresh-236" in f: continue
    for l in open(f):
        try: r = json.loads(l)
        except Exception: continue
        if r.get("bfcl") and r.get("template") == "classic" and r.get("constrain") and r["task_id"] in items:
            latest[r["task_id"]] = r
c = collections.Counter()
for tid, r in sorted(latest.items()):
    it = items[tid]; live = it.category.startswith("live")
    if r["status"] != "called": continue
    tools = openai_tools(it.functions)
    req = _read_request(list(it.messages), tools, backend=ScriptedBackend([], supports_grammar=True), template="classic",
                        tool_choice="auto", constrain=True, examples=None, checks=DEFAULT_CHECKS, calls=8)
    shown = [json.loads(a) for a in req.situation.example_arguments]
    grounds = req.situation.grounds
    calls = [(n, a) for x in json.loads(r["answer"]) for n, a in x.items()]
    kept, _ = without_copies(tuple((n, a) for n, a in calls), req.situation.example_arguments, req.schemas, grounds,
                             req.situation.lang)
    copied = [c_ for c_ in calls if c_ not in kept]
    cat = "live" if live else r["category"]
    c[(cat, "copied" if copied else "-", r["correct"])] += 1
    if copied and not live and "-v" in sys.argv: print(tid, r["correct"], copied)
for k, v in sorted(c.items(), key=str): print(k, v)
