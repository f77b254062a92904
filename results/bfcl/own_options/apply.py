"""The ``own_options`` fill applied to recorded replies, scored as they came (off) and filled (on).

The fill only rewrites a reply's finished calls, so running it on the calls a compare recorded with it off is
the same as running the shim with it on. It calls the model (one constrained completion per call that leaves an
optional parameter out), through the same function the shim calls (``react_text.fc.own_options``).

    python results/bfcl/own_options/apply.py RESULTS.jsonl... > applied.jsonl   # totals on stderr
"""

from __future__ import annotations

import collections
import json
import sys

from react_text.backends.build import build_backend
from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import recorded
from react_text.eval.bfcl.decode import openai_tools
from react_text.fc.own_options import own_options
from react_text.fc.request import read_tools


def main() -> None:
    records, items = recorded(sys.argv[1:])
    backend = build_backend("llama")
    totals: collections.Counter = collections.Counter()
    for task, record in records.items():
        try:
            calls = tuple(next(iter(c.items())) for c in json.loads(record["answer"]))
        except (ValueError, TypeError, AttributeError, StopIteration):
            continue  # an answer in words: nothing to fill
        if not calls:
            continue
        item = items[task]
        tools = {t.name: t for t in read_tools(openai_tools(item.functions))}
        filled, acted, _ = own_options(calls, tools, list(item.messages), backend, ("", item.question))
        off, on = (check(item.category, item.functions, [Call(n, a) for n, a in c], item.answers).valid
                   for c in (calls, filled))
        totals.update(items=1, acted=acted, off=off, on=on, gained=on and not off, lost=off and not on)
        print(json.dumps({"id": task, "acted": acted, "off": off, "on": on,
                          "added": [{k: v for k, v in new.items() if k not in old} for (_, old), (_, new)
                                    in zip(calls, filled)]}), flush=True)
    print(dict(totals), file=sys.stderr)


if __name__ == "__main__":
    main()
