"""Many tools with and without retrieval: success and prompt tokens per turn on the many_tools suite.

Runs the suite twice through ``compare`` (resumable: rerun the same command to
finish an interrupted run), once offering all 68 toolbox tools in the prompt
and once with ``tool_retrieval`` (the best ``--shown`` tools plus
``list_tools``), then prints one table. Both modes use the same model,
template and context size (8192, so the long tool list fits).

    python bench/retrieval_bench.py --per-group 12 --out results/many_tools
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from react_text.compare import CompareSpec, run_compare
from react_text.models import DEFAULT_MODEL, resolve_model

SUITE = str(Path(__file__).resolve().parents[1] / "suites" / "many_tools" / "many_tools.jsonl")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--template", default="classic")
    p.add_argument("--out", default="results/many_tools")
    p.add_argument("--per-group", type=int, default=None, help="first N tasks of each (category, language)")
    p.add_argument("--shown", type=int, default=8, help="tools shown with retrieval")
    p.add_argument("--n-ctx", type=int, default=8192)
    p.add_argument("--modes", nargs="+", choices=("all", "retrieval"), default=["retrieval", "all"])
    p.add_argument("--timeout", type=float, default=600.0, help="wall-clock seconds per task")
    p.add_argument("--max-steps", type=int, default=5)
    args = p.parse_args(argv)

    from react_text.backends.llama_cpp import LlamaCppBackend

    backend = LlamaCppBackend(resolve_model(args.model), n_ctx=args.n_ctx, seed=0)
    rows = []
    for mode in args.modes:
        spec = CompareSpec(templates=(args.template,), models=(args.model,), suite=SUITE,
                           out_dir=Path(args.out) / mode, per_group=args.per_group, max_steps=args.max_steps,
                           timeout_s=args.timeout,
                           tool_retrieval=mode == "retrieval", max_shown_tools=args.shown)
        records = run_compare(spec, backend_factory=lambda model, worker: backend)
        rows.append((mode, records))
    print(table(rows, args))
    return 0


def table(rows, args) -> str:
    lines = [f"model {args.model}, template {args.template}, n_ctx {args.n_ctx}, max steps {args.max_steps}, "
             f"shown with retrieval: {args.shown} + list_tools", "",
             "| tools in prompt | tasks | success | prompt tokens / turn | turns / task | list_tools calls | wall s / task |",
             "|---|---|---|---|---|---|---|"]
    for mode, records in rows:
        turns = sum(r["turns"] for r in records) or 1
        per_turn = sum(r["prompt_tokens"] for r in records) / turns
        listing = sum(_list_calls(r) for r in records)
        label = "all 68" if mode == "all" else f"top {args.shown} + list_tools"
        ok = sum(1 for r in records if r["correct"])
        lines.append(f"| {label} | {len(records)} | {ok}/{len(records)} ({ok / max(1, len(records)):.0%}) "
                     f"| {per_turn:.0f} | {turns / max(1, len(records)):.2f} | {listing} "
                     f"| {statistics.mean(r['wall_seconds'] for r in records):.1f} |")
    return "\n".join(lines)


def _list_calls(record: dict) -> int:
    trace = record.get("trace")
    if not trace or not Path(trace).exists():
        return 0
    return sum(1 for line in Path(trace).read_text(encoding="utf-8").splitlines()
               if '"event": "tool_call"' in line and '"tool": "list_tools"' in line)


if __name__ == "__main__":
    sys.exit(main())
