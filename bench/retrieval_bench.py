"""Many tools with and without retrieval on the many_tools suite: tools shown, prompt tokens, success.

(a) Every task, no generation: whether the tools the task needs (its
``calls``) are among those the prompt shows, and the first prompt's size in
the model's tokens, with all 68 toolbox tools in the prompt and with
``tool_retrieval`` (the best ``--shown`` plus ``list_tools``).

(b) Real runs through ``compare`` (resumable: rerun the same command to go
on), the two modes interleaved task by task so an interrupted run still
compares like with like: success, prompt tokens per turn, list_tools calls.
Both modes use the same model, template and context (8192, so 68 tools fit).

    python bench/retrieval_bench.py --per-group 2 --out results/many_tools
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from react_text.backends.scripted import ScriptedBackend
from react_text.eval.compare import run_compare
from react_text.eval.planning import CompareSpec, sample_tasks
from react_text.eval.records import load_results
from react_text.agent.loop import Agent
from react_text.catalog import DEFAULT_MODEL, resolve_model
from react_text.eval.suites import BUILTIN_TOOLS, load_suite
from react_text.prompting.templates import load_template
from react_text.eval.toolbox import TOOLBOX, toolbox_tools

SUITE = str(Path(__file__).resolve().parents[1] / "suites" / "many_tools" / "many_tools.jsonl")
MODES = ("all", "retrieval")


def first_prompt(task, template, retrieval: bool, shown: int) -> tuple[str, set[str]]:
    """The rendered first prompt (no chat wrapper) and the tools it lists."""
    events: list[dict] = []
    backend = ScriptedBackend([" ok\nFinal Answer: x"])
    agent = Agent(backend, toolbox_tools(), template, on_event=events.append, tool_retrieval=retrieval,
                  max_shown_tools=shown)
    agent.run(task.question)
    listed = next((e for e in events if e["event"] == "tools_shown"), None)
    names = {t["name"] for t in listed["tools"]} if listed else {t.name for t in toolbox_tools()}
    return backend.prompts[0], names


def static_table(tasks, args, count_tokens) -> list[str]:
    template = load_template(args.template)
    lines = ["| tools in prompt | tasks | needed tools all shown | first prompt tokens (mean) | min | max |",
             "|---|---|---|---|---|---|"]
    for mode in MODES:
        covered, sizes = 0, []
        for task in tasks:
            prompt, names = first_prompt(task, template, mode == "retrieval", args.shown)
            covered += {name for name, _ in task.calls} <= names
            sizes.append(count_tokens(prompt))
        lines.append(f"| {_label(mode, args)} | {len(tasks)} | {covered}/{len(tasks)} "
                     f"| {statistics.mean(sizes):.0f} | {min(sizes)} | {max(sizes)} |")
    return lines


def run_table(args, backend) -> list[str]:
    suite = load_suite(SUITE, known_tools=BUILTIN_TOOLS | {TOOLBOX})
    count = len(sample_tasks(suite.tasks, per_group=args.per_group))
    specs = {mode: CompareSpec(templates=(args.template,), models=(args.model,), suite=SUITE,
                               out_dir=Path(args.out) / mode, per_group=args.per_group,
                               max_steps=args.max_steps, timeout_s=args.timeout,
                               tool_retrieval=mode == "retrieval", max_shown_tools=args.shown)
             for mode in MODES}
    for k in range(1, 0 if args.report_only else count + 1):  # interleaved: task k in both modes, then k + 1
        for mode in args.modes:
            run_compare(_with_limit(specs[mode], k), backend_factory=lambda model, worker: backend)
    lines = ["| tools in prompt | tasks run | success | prompt tokens / turn | turns / task | list_tools calls "
             "| wall s / task |", "|---|---|---|---|---|---|---|"]
    for mode in args.modes:
        records = load_results(specs[mode].out_dir / "results.jsonl")
        if not records:
            continue
        turns = sum(r["turns"] for r in records) or 1
        ok = sum(1 for r in records if r["correct"])
        lines.append(f"| {_label(mode, args)} | {len(records)} | {ok}/{len(records)} "
                     f"| {sum(r['prompt_tokens'] for r in records) / turns:.0f} | {turns / len(records):.2f} "
                     f"| {sum(_list_calls(r) for r in records)} "
                     f"| {statistics.mean(r['wall_seconds'] for r in records):.0f} |")
    return lines


def _with_limit(spec: CompareSpec, k: int) -> CompareSpec:
    from dataclasses import replace

    return replace(spec, limit=k)


def _label(mode: str, args) -> str:
    return "all 68" if mode == "all" else f"top {args.shown} + list_tools"


def _list_calls(record: dict) -> int:
    trace = record.get("trace")
    if not trace or not Path(trace).exists():
        return 0
    return sum(1 for line in Path(trace).read_text(encoding="utf-8").splitlines()
               if '"event": "tool_call"' in line and '"tool": "list_tools"' in line)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--template", default="classic")
    p.add_argument("--out", default="results/many_tools")
    p.add_argument("--per-group", type=int, default=None, help="(b) first N tasks of each (category, language)")
    p.add_argument("--shown", type=int, default=8, help="tools shown with retrieval")
    p.add_argument("--n-ctx", type=int, default=8192)
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--timeout", type=float, default=600.0, help="(b) wall-clock seconds per task")
    p.add_argument("--max-steps", type=int, default=5)
    p.add_argument("--static-only", action="store_true", help="only (a): no generation")
    p.add_argument("--report-only", action="store_true", help="(b) from the results already in --out; run nothing")
    args = p.parse_args(argv)

    from react_text.backends.llama_cpp import LlamaCppBackend

    backend = LlamaCppBackend(resolve_model(args.model), n_ctx=args.n_ctx, seed=0)
    tasks = load_suite(SUITE, known_tools=BUILTIN_TOOLS | {TOOLBOX}).tasks
    print(f"model {args.model}, template {args.template}; retrieval shows {args.shown} tools + list_tools\n")
    print("(a) every task, first prompt only (rendered, before the chat wrapper)\n")
    print("\n".join(static_table(tasks, args, backend.count_tokens)), flush=True)
    if not args.static_only:
        print(f"\n(b) runs, max {args.max_steps} steps, n_ctx {args.n_ctx}\n")
        print("\n".join(run_table(args, backend)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
