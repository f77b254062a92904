"""Does the loop keep llama.cpp's prefix cache warm, and is the engine itself cheap?

Runs one multi-step task (search a local corpus, then compute) on a real model
and prints, per model turn: the prompt tokens sent, the tokens that were new
since the previous turn (the observation appended after the model's own kept
text), the tokens llama.cpp actually evaluated, and model/tool time. Then the
engine's own time (wall minus model minus tools) as a share of the wall time.

Targets (from issue 3): evaluated ≤ new + 8 on every turn after the first;
engine time ≤ 2% of wall time. Exits 1 when a target is missed.

    python bench/engine_bench.py [--model qwen2.5-coder-0.5b] [--template json]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from react_text.backends.llama_cpp import LlamaCppBackend
from react_text.tools.calculator import calculator
from react_text.tools.search import search_files
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.catalog import DEFAULT_MODEL
from react_text.eval.suites import builtin_corpus_dir
from react_text.prompting.templates import load_template
from react_text.trace import prompts_from_events, read_trace

QUESTION = ("Search the documents for the population of the town of Varnholt at the 2023 census, "
            "then use the calculator to double it.")
EVAL_SLACK = 8
ENGINE_SHARE = 0.02


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--template", default="json")
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--max-steps", type=int, default=6)
    ap.add_argument("--n-ctx", type=int, default=4096)
    args = ap.parse_args(argv)

    corpus = builtin_corpus_dir() / "en"
    t0 = time.perf_counter()
    backend = LlamaCppBackend(args.model, n_ctx=args.n_ctx)
    load_s = time.perf_counter() - t0
    template = load_template(args.template)
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "bench.jsonl"
        agent = Agent(backend, [search_files(corpus), calculator], template,
                      limits=Limits(max_steps=args.max_steps, timeout_s=600), trace=trace)
        result = agent.run(args.question)
        prompts = prompts_from_events(read_trace(trace))

    print(f"model {backend.model_path.name} (loaded in {load_s:.1f} s), template {template.name}, "
          f"{len(result.steps)} turns, status {result.status}")
    print(f"question: {args.question}")
    print(f"answer:   {result.answer}")
    print()
    header = f"{'turn':>4} {'sent':>6} {'new':>5} {'evaluated':>9} {'target':>7} {'gen':>4} {'model s':>8} {'tool s':>7}  action"
    print(header)
    print("-" * len(header))
    missed = 0
    for i, step in enumerate(result.steps):
        if i == 0:
            new = step.prompt_tokens
            target = "-"
        else:
            prev = result.steps[i - 1]
            appended = prompts[i][len(prompts[i - 1]) + len(prev.kept):]
            new = backend.count_tokens(appended)
            ok = step.evaluated_tokens <= new + EVAL_SLACK
            missed += not ok
            target = "ok" if ok else "MISSED"
        action = step.action.tool if step.action else type(step.decision).__name__.lower()
        print(f"{step.n:>4} {step.prompt_tokens:>6} {new:>5} {step.evaluated_tokens:>9} {target:>7} "
              f"{step.completion_tokens:>4} {step.model_seconds:>8.2f} {step.tool_seconds:>7.3f}  {action}")
    t = result.totals
    share = t.engine_seconds / t.wall_seconds if t.wall_seconds else 0.0
    print()
    print(f"wall {t.wall_seconds:.2f} s = model {t.model_seconds:.2f} s + tools {t.tool_seconds:.3f} s "
          f"+ engine {t.engine_seconds * 1000:.1f} ms ({share:.2%} of wall; target ≤ {ENGINE_SHARE:.0%})")
    print(f"tokens: {t.prompt_tokens} sent, {t.evaluated_tokens} evaluated, {t.completion_tokens} generated")
    engine_ok = share <= ENGINE_SHARE
    print(f"prefix reuse: {'ok' if not missed else f'{missed} turn(s) MISSED'}; "
          f"engine share: {'ok' if engine_ok else 'MISSED'}")
    return 0 if (not missed and engine_ok and len(result.steps) > 1) else 1


if __name__ == "__main__":
    sys.exit(main())
