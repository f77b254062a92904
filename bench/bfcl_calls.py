"""Run chosen BFCL items once through the shim and print the calls as they came, one JSON line per item.

Why: a check that only rewrites a reply's finished calls (``stated_option``, ``stated_flag``, ``stated_list``,
``percent``) is ablated exactly by running its items once with the check off and applying it afterwards;
each ``results/bfcl/<check>/`` scores this output both ways. Each line also says which corrections the reply
went through (``guard:named_tools``…) and which checks acted on its calls, so a check that steers the model
is ablated by running again with it off only the items where it acted. Needs the BFCL data
(``pip install --no-deps bfcl-eval==2026.3.23``) and the default model.

    python bench/bfcl_calls.py ITEMS.txt [--checks=-percent] > calls.jsonl

``ITEMS.txt`` holds item ids separated by commas (``simple_python_150,parallel_13``).
"""

from __future__ import annotations

import argparse
import json

from react_text.backends.build import build_backend
from react_text.eval.bfcl.cells import run_item
from react_text.eval.bfcl.data import load_items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("items", help="a file of comma-separated BFCL item ids")
    parser.add_argument("--checks", default="default", help="the shim's checks, as react-text --checks reads them")
    parser.add_argument("--template", default="classic")
    args = parser.parse_args()
    ids = [i.strip() for i in open(args.items, encoding="utf-8").read().split(",") if i.strip()]
    wanted = set(ids)
    items = {it.id: it for it in load_items(sorted({i.rsplit("_", 1)[0] for i in ids})) if it.id in wanted}
    backend = build_backend("llama")
    for i in ids:
        run = run_item(items[i], args.template, backend, constrain=True, checks=args.checks, max_tokens=256)
        said = run.trace[0] if run.trace else {}
        print(json.dumps({"id": i, "calls": [(c.name, dict(c.args)) for c in run.calls], "text": run.text[:300],
                          "corrections": said.get("format_errors", []), "step_checks": said.get("step_checks", [])}),
              flush=True)


if __name__ == "__main__":
    main()
