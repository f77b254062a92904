"""The odds of closing a call list after each of a recorded reply's calls, as the shim's ``list_end`` reads them.

For every recorded BFCL reply of the default cell with at least one call, the ``call_list`` prompt is built for
its request and functions, the reply's first k calls are written as the list's lines (k = 1..4), and the model's
next-token odds of ``]`` against another line (``LlamaCppBackend.next_token_odds``) give the share of closing.
One JSON line per item: its id, how many calls BFCL expects, how many the reply made, and the shares.

    python results/bfcl/list_end/odds.py RESULTS.jsonl... > odds.jsonl
"""

from __future__ import annotations

import json
import sys

from react_text.backends.build import build_backend
from react_text.eval.bfcl.data import recorded
from react_text.eval.bfcl.decode import openai_tools
from react_text.fc.call_list import _line, list_prompt
from react_text.fc.request import read_tools
from react_text.grammar.gbnf import LIST_INDENT


def main() -> None:
    records, items = recorded(sys.argv[1:])
    backend = build_backend("llama")
    for task, record in records.items():
        try:
            calls = [next(iter(c.items())) for c in json.loads(record["answer"])]
        except (ValueError, TypeError, AttributeError, StopIteration):
            continue  # an answer in words, not calls
        if not calls:
            continue
        item = items[task]
        head = list_prompt(backend.wrap_prompt, "en", read_tools(openai_tools(item.functions)), item.question)
        opened = head if head.endswith("\n") else head + "\n\n"
        shares = []
        for k in range(1, min(len(calls), 4) + 1):
            close, more = backend.next_token_odds(opened + "[\n" + "".join(_line(n, a) for n, a in calls[:k]),
                                                  ("]", LIST_INDENT))
            shares.append(close / (close + more) if close + more else None)
        print(json.dumps({"id": task, "expected": len(record["expected"]), "made": len(calls),
                          "correct": record["correct"], "close": shares}), flush=True)


if __name__ == "__main__":
    main()
