"""Does a long run stay inside the context window, and what does cutting cost the prefix cache?

A 30-step run in which every step reads one 4 KB page of a log, on a
4,096-token context, then answers. The model's turns are scripted (a 135M
model does not reliably read thirty pages in a row); the tokens are real:
SmolLM2's own tokenizer counts every prompt the loop sends. The "evaluated"
column applies llama-cpp-python's prefix-cache rule to those real token ids
(it keeps the previous prompt's and output's tokens and re-evaluates from the
first token that differs). With ``--eval`` real llama.cpp evaluates every
prompt instead (one sampled token each) and reports what it really computed;
that is slow on a busy two-core machine.

Per turn it prints the prompt's tokens, the tokens new since the previous
prompt, the tokens llama.cpp evaluated, and the context cut made before the
turn. Targets (issue 13): the run finishes; every prompt plus a turn fits the
context; on every turn that is not a cut, evaluated ≤ new + 8. Exits 1 when a
target is missed.

    python bench/context_bench.py [--steps 30] [--page-bytes 4096] [--n-ctx 4096] [--eval]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from react_text.backends.base import BackendError
from react_text.backends.llama_cpp import LlamaCppBackend
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.prompting.templates import load_template
from react_text.tools.spec import tool
from react_text.trace import read_trace
from react_text.types import Completion

EVAL_SLACK = 8


def _use_plain_cpu_buffers() -> None:
    """Load models without llama.cpp's extra CPU buffer types (AMX).

    On this machine the CPU advertises AMX but executing its tile
    instructions faults (a general protection fault in ggml's AMX matmul),
    so the wheel's AMX path crashes the process; the plain CPU path is
    unaffected and the token counts this bench reports do not depend on it.
    """
    import llama_cpp.llama_cpp as low_level  # what llama_cpp.Llama reads its defaults from

    default = low_level.llama_model_default_params

    def params():  # type: ignore[no-untyped-def]
        p = default()
        p.use_extra_bufts = False
        return p

    low_level.llama_model_default_params = params


_SITES = ("north ridge", "harbour wall", "old mill", "river gauge", "east tunnel", "water tower", "school roof")
_STATES = ("steady", "slightly higher than the day before", "lower after the rain", "back to normal",
           "unchanged since the morning check")


def page_text(n: int, size: int) -> str:
    """A page of a field log in plain English (about four bytes per token, as prose usually is)."""
    lines, i, used = [], 0, 0
    while used < size:
        line = (f"Page {n}, entry {i}: the sensor at the {_SITES[(n + i) % len(_SITES)]} reported readings that "
                f"were {_STATES[(n * 3 + i) % len(_STATES)]}, and the inspector noted nothing unusual.")
        lines.append(line)
        used += len(line) + 1
        i += 1
    return "\n".join(lines)[:size]


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class ScriptOnRealTokens:
    """Scripted turns, real token ids; ``evaluate`` has real llama.cpp evaluate every prompt too."""

    supports_grammar = False

    def __init__(self, real: LlamaCppBackend, turns: Sequence[str], *, evaluate: bool) -> None:
        self.real = real
        self.turns = list(turns)
        self.evaluate = evaluate
        self.name = f"scripted turns, {real.model_path.name} tokens"
        self.context_size = real.context_size
        self.count_tokens = real.count_tokens
        self.prompts: list[str] = []
        self._kept: list[int] = []  # what the prefix cache holds: the last prompt's and output's ids

    def wrap_prompt(self, prompt: str) -> str:
        return prompt

    def _ids(self, text: str) -> list[int]:
        return list(self.real._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def complete(self, prompt: str, *, stop=(), max_tokens=256, temperature=0.0, seed=0, grammar=None) -> Completion:
        text = self.turns[len(self.prompts)]
        self.prompts.append(prompt)
        if self.evaluate:
            real = self.real.complete(prompt, stop=list(stop), max_tokens=1, seed=seed)
            tokens, evaluated = real.prompt_tokens, real.evaluated_tokens
            print(f"turn {len(self.prompts)}: {tokens} prompt tokens, {evaluated} evaluated, {real.seconds:.1f} s",
                  file=sys.stderr, flush=True)
        else:
            ids = self._ids(prompt)
            tokens, evaluated = len(ids), len(ids) - common_prefix(self._kept, ids)
            self._kept = ids + self._ids(text)
        if tokens >= self.context_size:
            raise BackendError(f"the prompt is {tokens} tokens but the context window holds {self.context_size}")
        return Completion(text=text, prompt_tokens=tokens, completion_tokens=self.count_tokens(text),
                          evaluated_tokens=evaluated)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--page-bytes", type=int, default=4096)
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--max-turn-tokens", type=int, default=64)
    ap.add_argument("--eval", action="store_true", help="have real llama.cpp evaluate every prompt (slow)")
    args = ap.parse_args(argv)

    if args.eval:
        _use_plain_cpu_buffers()
    real = LlamaCppBackend(args.model, n_ctx=args.n_ctx)

    @tool(max_chars=args.page_bytes * 2)
    def read_page(n: int) -> str:
        """Read page n of the sensor log."""
        return page_text(n, args.page_bytes)

    turns = [f" I read page {i} next.\n" + format_action("classic", "read_page", {"n": i})
             for i in range(1, args.steps + 1)]
    turns.append(" I have read every page.\n" + format_final("classic", f"all {args.steps} pages are within range"))
    backend = ScriptOnRealTokens(real, turns, evaluate=args.eval)
    limits = Limits(max_steps=args.steps + 1, max_total_tokens=10**8, max_turn_tokens=args.max_turn_tokens,
                    max_observation_chars=args.page_bytes * 2, timeout_s=3600)
    template = load_template("classic")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "context.jsonl"
        result = Agent(backend, [read_page], template, limits=limits, trace=trace).run(
            f"Read all {args.steps} pages of the sensor log and say whether every reading is within range.")
        events = read_trace(trace)
    wall = time.perf_counter() - started

    cuts = {e["n"]: e for e in events if e["event"] == "context"}
    turns_ev = [e for e in events if e["event"] == "model_turn"]
    how = ("every prompt evaluated by real llama.cpp" if args.eval else
           "evaluated = llama-cpp-python's prefix rule on the real token ids (no evaluation)")
    print(f"model turns scripted; tokens by {real.model_path.name}'s tokenizer; {how}; n_ctx {args.n_ctx}; "
          f"{args.steps} pages of {args.page_bytes} bytes")
    print(f"status {result.status} after {len(result.steps)} turns in {wall:.1f} s: {result.answer[:80]}")
    print(f"{'turn':>4} {'prompt':>7} {'new':>6} {'evaluated':>9}  cut before the turn "
          "(new: the last turn and its observation)")
    failures: list[str] = []
    news: list[int] = []
    reserve = args.max_turn_tokens
    for i, (prompt, ev) in enumerate(zip(backend.prompts, turns_ev), 1):
        if i == 1:
            new = ev["prompt_tokens"]
        else:  # the previous turn and the observation after it: what any prompt of this turn must add
            step = result.steps[i - 2]
            new = real.count_tokens(step.kept + template.observation(step.observation_text or "", i - 1))
        cut = cuts.get(i)
        note = ""
        if cut is not None:
            shortened = sum(1 for c in cut["cuts"] if c["kind"] == "shortened")
            dropped = sum(1 for c in cut["cuts"] if c["kind"] == "dropped")
            note = f"{cut['tokens_before']} -> {cut['tokens_after']} tokens ({shortened} shortened, {dropped} dropped)"
        news.append(new)
        print(f"{i:>4} {ev['prompt_tokens']:>7} {new:>6} {ev['evaluated_tokens']:>9}  {note}")
        if ev["prompt_tokens"] + reserve > args.n_ctx:
            failures.append(f"turn {i}: {ev['prompt_tokens']} + {reserve} tokens exceed the context")
        if i > 1 and cut is None and ev["evaluated_tokens"] > new + EVAL_SLACK:
            failures.append(f"turn {i}: evaluated {ev['evaluated_tokens']} > new {new} + {EVAL_SLACK}")
    at_cuts = [(n, turns_ev[n - 1]["evaluated_tokens"], news[n - 1]) for n in sorted(cuts)]
    print(f"cuts before {len(cuts)} of {len(turns_ev)} turns; tokens evaluated at each cut beyond the new ones: "
          + ", ".join(f"turn {n}: {ev - new:+d}" for n, ev, new in at_cuts))
    others = [(ev["evaluated_tokens"], i) for i, ev in enumerate(turns_ev, 1) if i > 1 and i not in cuts]
    print(f"turns without a cut: {len(others)}, all evaluated ≤ new + {EVAL_SLACK}: "
          f"{'yes' if not any('evaluated' in f for f in failures) else 'no'}")
    print(f"largest prompt: {max(ev['prompt_tokens'] for ev in turns_ev)} tokens + {reserve} for the turn "
          f"≤ {args.n_ctx}: {'yes' if not any('exceed' in f for f in failures) else 'no'}")
    if result.status != "answered":
        failures.append(f"the run ended {result.status}")
    for failure in failures:
        print(f"MISSED: {failure}")
    real.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
