"""The demo_copy check (react_text.checks.demo_copies) applied to recorded replies of the default (classic under
the grammar), as the shim applies it: the calls that pass a value the demo call made up are left out, and a
reply left with none is no call. The check acts on the finished calls only, so this is its ablation.

    python apply.py RUN_DIR...      each RUN_DIR holding a compare results.jsonl; the latest record of an item wins
Live items (held out) print as counts only."""
import json, sys, collections
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.demo_copies import without_copies
from react_text.checks.registry import DEFAULT_CHECKS
from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import recorded
from react_text.eval.bfcl.decode import openai_tools
from react_text.fc.shim import _read_request

records, items = recorded(sys.argv[1:])
c = collections.Counter()
for tid, r in sorted(records.items()):
    it = items[tid]
    side = "live" if it.category.startswith("live") else it.category
    c[side, "items"] += 1
    c[side, "off"] += r["correct"]
    if r["status"] != "called":
        c[side, "on"] += r["correct"]
        continue
    req = _read_request(list(it.messages), openai_tools(it.functions), backend=ScriptedBackend([], supports_grammar=True),
                        template="classic", tool_choice="auto", constrain=True, examples=None, checks=DEFAULT_CHECKS,
                        calls=8)
    s = req.situation
    calls = tuple((n, dict(a)) for x in json.loads(r["answer"]) for n, a in x.items())
    kept, _ = without_copies(calls, s.example_arguments, req.schemas, s.grounds, s.lang)
    on = check(it.category, it.functions, [Call(n, a) for n, a in kept], it.answers).valid if kept != calls \
        else r["correct"]
    c[side, "on"] += on
    if kept != calls:
        c[side, "acted"] += 1
        c[side, "gained"] += on and not r["correct"]
        c[side, "lost"] += r["correct"] and not on
        if side != "live":
            print(tid, r["correct"], "->", on, [c_ for c_ in calls if c_ not in kept])
for k, v in sorted(c.items()):
    print(k, v)
