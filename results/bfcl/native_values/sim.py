"""Would the model's own tool format write better values for the function the shim picked? Offline, over every
recorded pair of replies to one item (`native` read leniently, and the shim's default, `classic` under the grammar)
where both made exactly one call, of the same function: the shim's call with `native`'s values taken in, three ways,
and BFCL's verdict before and after. Only `native`'s values that name no number from nowhere
(`checks.grounding.ungrounded_values`, as `own_options` keeps a value) are taken.

- whole: `native`'s call instead of the shim's;
- each: each of `native`'s arguments instead of the shim's (the shim's others kept);
- shared: only the arguments both passed.

Run: python results/bfcl/native_values/sim.py > results/bfcl/native_values/sim.txt"""
from typing import Any, Callable, Mapping

from react_text.checks.grounding import ungrounded_values
from react_text.eval.bfcl.data import recorded
from react_text.eval.bfcl.replay import answer_calls, valid

PAIRS = [  # (native's file, the shim's file); a task is counted once, from the first pair that has it
    ("results/bfcl/multiple-all/now/results.jsonl",) * 2,
    ("results/bfcl/templates/qwen/results.jsonl",) * 2,
    ("results/bfcl/fresh-spread/native/results.jsonl", "results/bfcl/fresh-spread/shim/results.jsonl"),
    ("results/bfcl/fresh-236/native/results.jsonl", "results/bfcl/fresh-236/results.jsonl"),
    ("results/bfcl/percent/fresh-150/native/results.jsonl", "results/bfcl/percent/fresh-150/shim/results.jsonl"),
    ("results/bfcl/stated_list/multiple-50-99/native/results.jsonl",
     "results/bfcl/stated_list/multiple-50-99/shim/results.jsonl"),
]
Merge = Callable[[dict, dict, Mapping[str, Any], str], dict]


def _kept(key: str, value: Any, schema: Mapping[str, Any], question: str) -> bool:
    return not ungrounded_values({key: value}, schema, [question])


WAYS: dict[str, Merge] = {
    "whole": lambda shim, own, schema, q: own if not ungrounded_values(own, schema, [q]) else shim,
    "each": lambda shim, own, schema, q: {**shim, **{k: v for k, v in own.items()
                                                     if k in (schema.get("properties") or {}) and _kept(k, v, schema, q)}},
    "shared": lambda shim, own, schema, q: {**shim, **{k: v for k, v in own.items() if k in shim and _kept(k, v, schema, q)}},
}


def _cell(template: str, constrain: bool) -> Callable[[dict], bool]:
    return lambda r: (r.get("model") == "qwen2.5-coder-0.5b" and r.get("template") == template
                      and bool(r.get("constrain")) == constrain and r["category"] in ("simple_python", "multiple"))


def pairs():
    """(item, the shim's call, native's call) for each task both answered with one call of the same function."""
    seen = set()
    for native_file, shim_file in PAIRS:
        own, items = recorded([native_file], _cell("native", False))
        shim, _ = recorded([shim_file], _cell("classic", True))
        for task in sorted(set(own) & set(shim) - seen, key=lambda t: (t.rsplit("_", 1)[0], int(t.rsplit("_", 1)[1]))):
            a, b = answer_calls(shim[task]["answer"]), answer_calls(own[task]["answer"])
            if a and b and len(a) == len(b) == 1 and a[0][0] == b[0][0]:
                seen.add(task)
                yield items[task], a[0], b[0]


found = list(pairs())
print(f"{len(found)} items where both made one call of the same function")
for way, merge in WAYS.items():
    gained, lost = [], []
    for item, (name, args), (_, own_args) in found:
        schema = next((f["parameters"] for f in item.functions if f["name"] == name), {})
        before = valid(item, ((name, args),))
        after = valid(item, ((name, merge(args, own_args, schema, item.question)),))
        (gained if after and not before else lost if before and not after else []).append(item.id)
    print(f"{way}: +{len(gained)} -{len(lost)}\n  gained: {' '.join(gained)}\n  lost: {' '.join(lost)}")
