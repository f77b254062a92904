"""Decode speed per compare cell, read back from the traces a compare run wrote.

For each model × template × constrain cell: tokens generated, llama.cpp's own
decode time for them (``eval_ms``; prompt processing excluded), tokens/s, and
with a grammar the share of tokens where the model's top choice was refused
and the whole vocabulary had to be filtered (``grammar_fallbacks``).

Cells measured in different sessions saw different machine load: compare the
tokens/s of two cells only when they ran back to back on an idle machine, and
prefer ``bench/grammar_bench.py`` (both ways interleaved in one process) for the
cost ratio itself.

    python bench/constrain_cost.py [results/compare]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "results/compare")
    totals: dict[tuple[str, str, bool], list[float]] = defaultdict(lambda: [0, 0.0, 0, 0])
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line
        trace = Path(record.get("trace") or "")
        if not trace.is_file():
            continue
        cell = totals[(record["model"], record["template"], bool(record.get("constrain")))]
        for event_line in trace.read_text(encoding="utf-8").splitlines():
            event = json.loads(event_line)
            if event.get("event") != "model_turn":
                continue
            extra = event.get("extra") or {}
            cell[0] += int(event.get("completion_tokens", 0))
            cell[1] += float(extra.get("eval_ms", 0.0)) / 1000
            cell[2] += int(extra.get("grammar_fallbacks", 0))
            cell[3] += 1
    print(f"{'model':20} {'template':8} {'grammar':7} {'tokens':>7} {'decode s':>9} {'tok/s':>7} {'fallback':>8}")
    for (model, template, constrain), (tokens, seconds, fallbacks, _turns) in sorted(totals.items()):
        rate = tokens / seconds if seconds else 0.0
        share = f"{fallbacks / tokens:.1%}" if constrain and tokens else "-"
        print(f"{model:20} {template:8} {'on' if constrain else 'off':7} {tokens:>7} {seconds:>9.1f} {rate:>7.1f} "
              f"{share:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
