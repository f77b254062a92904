"""This session's three fills (demo_copy, swapped, crossed) applied, in the shim's order, to recorded default
replies (each reads only the finished calls and what the prompt showed, so this is their ablation), per category:
acted, gained, lost. Live items (held out) print as counts only.

    python new_checks.py [--only demo_copy,swapped,crossed] RESULTS.jsonl...
"""
import collections
import json
import sys
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.crossed import crossed
from react_text.checks.demo_copies import without_copies
from react_text.checks.registry import DEFAULT_CHECKS
from react_text.checks.swapped import swapped
from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import recorded
from react_text.eval.bfcl.decode import openai_tools
from react_text.fc.shim import _read_request


def settled(it, record, only):
    """Whether the fills in ``only``, applied in the shim's order, change the reply's calls, and whether the reply
    is then right."""
    if record["status"] != "called":
        return False, record["correct"]
    req = _read_request(list(it.messages), openai_tools(it.functions), backend=ScriptedBackend([], supports_grammar=True),
                        template="classic", tool_choice="auto", constrain=True, examples=None, checks=DEFAULT_CHECKS,
                        calls=8)
    s = req.situation
    calls = tuple((n, dict(a)) for x in json.loads(record["answer"]) for n, a in x.items())
    done = without_copies(calls, s.example_arguments, req.schemas, s.grounds, s.lang)[0] if "demo_copy" in only \
        else calls
    done = swapped(done, req.schemas, s.question) if "swapped" in only else done
    done = crossed(done, req.schemas, s.question) if "crossed" in only else done
    if done == calls:
        return False, record["correct"]
    return True, check(it.category, it.functions, [Call(n, a) for n, a in done], it.answers).valid


if __name__ == "__main__":
    args = sys.argv[1:]
    only = set(args[1].split(",")) if args[:1] == ["--only"] else {"demo_copy", "swapped", "crossed"}
    records, items = recorded(args[2:] if args[:1] == ["--only"] else args)
    c = collections.Counter()
    for tid, r in sorted(records.items()):
        it = items[tid]
        side = "live" if it.category.startswith("live") else it.category
        c[side, "items"] += 1
        c[side, "off"] += r["correct"]
        acted, on = settled(it, r, only)
        c[side, "on"] += on
        if acted:
            c[side, "acted"] += 1
            c[side, "gained"] += on and not r["correct"]
            c[side, "lost"] += r["correct"] and not on
            if side != "live":
                print(tid, r["correct"], "->", on)
    for k, v in sorted(c.items()):
        print(k, v)
