"""demo_copy over BFCL's own answers: a right call (first allowed value of each argument) that the check would
leave out, per side (live: counts only)."""
import collections
from react_text.backends.scripted import ScriptedBackend
from react_text.checks.demo_copies import demo_copies
from react_text.checks.registry import DEFAULT_CHECKS
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.fc.shim import _read_request

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
              "live_parallel", "live_parallel_multiple")
c = collections.Counter()
for it in load_items(CATEGORIES):
    side = "live" if it.category.startswith("live") else "non-live"
    try:
        req = _read_request(list(it.messages), openai_tools(it.functions),
                            backend=ScriptedBackend([], supports_grammar=True), template="classic", tool_choice="auto",
                            constrain=True, examples=None, checks=DEFAULT_CHECKS, calls=8)
    except ValueError:  # a request the shim refuses (a tool named like the final answer): no reply to check
        c[side, "requests refused"] += 1
        continue
    s = req.situation
    for answer in it.answers:
        for name, args in answer.items():
            call = {k: v[0] for k, v in args.items() if isinstance(v, list) and v and v[0] != ""}
            c[side, "right calls"] += 1
            if demo_copies(name, call, s.example_arguments, req.schemas, s.grounds):
                c[side, "left out"] += 1
                if side == "non-live":
                    print(it.id, name, call)
for k, v in sorted(c.items()):
    print(k, v)
