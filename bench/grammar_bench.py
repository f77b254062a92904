"""What grammar-constrained sampling costs in tokens/s, per dialect.

For each dialect: render the built-in template for a few questions, evaluate the
prompt once (so prompt processing is not timed), then generate the same turn
with and without the grammar from ``react_text.grammar.build_grammar``, greedy.
Prints decode tokens/s for both, the slowdown, and how often each turn parsed
without a format error. Only decode time is compared: both runs start from the
same cached prompt.

Timings are wall-clock on a shared machine: run it when the machine is quiet, and
read the ratio more than the absolute numbers.

    python bench/grammar_bench.py [--model smollm2-135m] [--max-tokens 64] [--dialects classic,json]
"""

from __future__ import annotations

import argparse
import time

from react_text import parse
from react_text.builtin_tools import default_tools
from react_text.dialects import DIALECTS
from react_text.grammar import build_grammar, grammar_matches
from react_text.models import resolve_model
from react_text.templates import load_template

QUESTIONS = (
    "What is 17 * 23?",
    "What day of the week is it today?",
    "How many minutes are in 3.5 hours?",
)


def _wrap(llm, prompt: str) -> str:
    """The prompt inside the model's chat template, the way the llama.cpp backend sends it."""
    from react_text.backends.llama_cpp import render_chat_template

    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        return prompt
    model = llm._model
    return render_chat_template(
        template,
        prompt,
        bos_token=model.token_get_text(llm.token_bos()),
        eos_token=model.token_get_text(llm.token_eos()),
    )


def _generate(llm, prompt: str, *, stop, max_tokens: int, grammar) -> tuple[str, int, float]:
    started = time.perf_counter()
    out = llm.create_completion(prompt, max_tokens=max_tokens, temperature=0.0, stop=list(stop), grammar=grammar)
    seconds = time.perf_counter() - started
    return out["choices"][0]["text"], out["usage"]["completion_tokens"], seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dialects", default=",".join(sorted(DIALECTS)))
    args = parser.parse_args()

    from llama_cpp import Llama, LlamaGrammar

    path = resolve_model(args.model)
    llm = Llama(str(path), n_ctx=4096, n_threads=args.threads, verbose=False)
    tools = default_tools()
    names = [t.name for t in tools]
    print(f"model {path.name}, n_threads={args.threads}, max_tokens={args.max_tokens}, greedy, "
          f"tools: {', '.join(names)}")
    print(f"{'dialect':8} {'grammar':>8} {'free tok/s':>11} {'gbnf tok/s':>11} {'slowdown':>9} "
          f"{'free ok':>8} {'gbnf ok':>8}")
    totals = {"free": [0, 0.0], "gbnf": [0, 0.0]}
    for dialect in args.dialects.split(","):
        template = load_template(dialect)
        gbnf = build_grammar(template.dialect, tools)
        compiled = LlamaGrammar.from_string(gbnf, verbose=False)
        tokens = {"free": 0, "gbnf": 0}
        seconds = {"free": 0.0, "gbnf": 0.0}
        ok = {"free": 0, "gbnf": 0}
        for question in QUESTIONS:
            prompt = _wrap(llm, template.render(question, tools))
            llm.create_completion(prompt, max_tokens=1, temperature=0.0)  # evaluate and cache the prompt
            for kind, grammar in (("free", None), ("gbnf", compiled)):
                text, n, secs = _generate(llm, prompt, stop=template.stop, max_tokens=args.max_tokens,
                                          grammar=grammar)
                tokens[kind] += n
                seconds[kind] += secs
                step = parse(template.turn_prefix(1) + text, names)
                ok[kind] += step.error is None
                if kind == "gbnf" and not grammar_matches(gbnf, text):
                    print(f"  note: {dialect} output outside the grammar (token limit?): {text!r}")
        rate = {k: tokens[k] / seconds[k] if seconds[k] else 0.0 for k in tokens}
        for k in totals:
            totals[k][0] += tokens[k]
            totals[k][1] += seconds[k]
        slowdown = rate["free"] / rate["gbnf"] if rate["gbnf"] else float("inf")
        print(f"{dialect:8} {len(gbnf):>7}B {rate['free']:>11.1f} {rate['gbnf']:>11.1f} {slowdown:>8.2f}x "
              f"{ok['free']:>5}/{len(QUESTIONS)} {ok['gbnf']:>5}/{len(QUESTIONS)}")
    free = totals["free"][0] / totals["free"][1]
    bound = totals["gbnf"][0] / totals["gbnf"][1]
    print(f"{'all':8} {'':>8} {free:>11.1f} {bound:>11.1f} {free / bound:>8.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
