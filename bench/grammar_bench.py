"""What grammar-constrained sampling costs in tokens/s, per dialect, and how to pay less.

For each dialect, render the built-in template for a few questions, evaluate the
prompt once, then decode the model's turn greedily three ways in one harness:

- ``free``:  no grammar; stop at the template's stop sequences.
- ``full``:  the grammar filters the whole vocabulary before every token. This is
  what llama-cpp-python 0.3.36 does with ``grammar=`` (its sampler chain puts the
  grammar sampler before greedy/top-k), so it is the cost the backend pays today.
- ``check``: take the unconstrained best token and ask the grammar about that one
  token only; filter the whole vocabulary only when it is refused (llama.cpp's own
  CLI samples this way). For greedy decoding the result is identical to ``full``,
  which the bench verifies token for token.

Then the same turns go through ``LlamaCppBackend.complete`` itself, without and
with the grammar (``backend`` columns, decode time from llama.cpp's own timer),
to show that the shipped path pays what ``check`` pays and writes what it writes.

Prints decode tokens/s (prompt processing is not timed), the slowdown against
``free``, how many turns parse without a format error, and the share of tokens
where ``check`` had to fall back to the full filter. Timings are wall-clock on a
shared machine: read the ratios more than the absolute numbers.

    python bench/grammar_bench.py [--model smollm2-135m] [--max-tokens 128] [--dialects classic,json]
"""

from __future__ import annotations

import argparse
import ctypes
import time
from dataclasses import dataclass

from react_text import parse
from react_text.tools.builtins import default_tools
from react_text.protocol.dialects import DIALECTS
from react_text.grammar.gbnf import build_grammar, grammar_matches
from react_text.catalog import resolve_model
from react_text.prompting.templates import load_template

QUESTIONS = (
    "What is 17 * 23?",
    "What day of the week is it today?",
    "How many minutes are in 3.5 hours?",
)
MODES = ("free", "full", "check")


@dataclass
class Decoded:
    text: str
    tokens: list[int]
    seconds: float
    fallbacks: int


class Harness:
    """Greedy decoding over llama-cpp-python's low-level API, with or without a grammar."""

    def __init__(self, model_path: str, threads: int) -> None:
        import llama_cpp
        import numpy as np
        from llama_cpp._internals import LlamaTokenDataArray

        self.lib, self.np = llama_cpp, np
        self.llm = llama_cpp.Llama(model_path, n_ctx=4096, n_threads=threads, verbose=False)
        self.vocab = self.llm._model.vocab
        self.n_vocab = self.llm.n_vocab()
        # As in LlamaCppBackend: a control token (<|im_start|>) ends a free turn and is never
        # offered under a grammar, which would read it as plain text.
        self.controls = np.array([t for t in range(self.n_vocab) if llama_cpp.llama_vocab_is_control(self.vocab, t)
                                  and not llama_cpp.llama_vocab_is_eog(self.vocab, t)], dtype=np.intc)
        self.all = LlamaTokenDataArray(n_vocab=self.n_vocab)
        self.one = (llama_cpp.llama_token_data * 1)()
        self.one_array = llama_cpp.llama_token_data_array(self.one, 1, -1, False)

    def wrap(self, prompt: str) -> str:
        """The prompt inside the model's chat template, as the llama.cpp backend sends it."""
        from react_text.backends.chat_template import render_chat_template

        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            return prompt
        model = self.llm._model
        return render_chat_template(template, prompt, bos_token=model.token_get_text(self.llm.token_bos()),
                                    eos_token=model.token_get_text(self.llm.token_eos()))

    def load_prompt(self, prompt: str) -> list[int]:
        tokens = self.llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        self.llm.reset()
        self.llm.eval(tokens)
        return tokens

    def _allowed(self, sampler, token: int) -> bool:
        self.one[0].id, self.one[0].logit, self.one[0].p = token, 0.0, 0.0
        self.one_array.size, self.one_array.selected = 1, -1
        self.lib.llama_sampler_apply(sampler, ctypes.byref(self.one_array))
        return self.one[0].logit != float("-inf")

    def _best_allowed(self, sampler, logits) -> int:
        self.all.copy_logits(logits)
        self.lib.llama_sampler_apply(sampler, ctypes.byref(self.all.candidates))
        return int(self.all.candidates_data.id[self.np.argmax(self.all.candidates_data.logit)])

    def decode(self, prompt_tokens: list[int], mode: str, gbnf: str, stop, max_tokens: int) -> Decoded:
        lib, np, llm = self.lib, self.np, self.llm
        llm.n_tokens = len(prompt_tokens) - 1  # keep the cached prompt; recompute the last logits
        llm.eval(prompt_tokens[-1:])
        sampler = None if mode == "free" else lib.llama_sampler_init_grammar(self.vocab, gbnf.encode(), b"root")
        if mode != "free" and not sampler:
            raise SystemExit("llama.cpp could not parse the grammar")
        out: list[int] = []
        data, fallbacks = b"", 0
        started = time.perf_counter()
        try:
            for _ in range(max_tokens):
                logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(self.n_vocab,))
                if mode != "free":
                    logits = logits.copy()
                    logits[self.controls] = -np.inf
                token = int(np.argmax(logits))
                if mode == "full":
                    token = self._best_allowed(sampler, logits)
                elif mode == "check" and not self._allowed(sampler, token):
                    fallbacks += 1
                    token = self._best_allowed(sampler, logits)
                if lib.llama_vocab_is_eog(self.vocab, token) or lib.llama_vocab_is_control(self.vocab, token):
                    break
                if sampler is not None:
                    lib.llama_sampler_accept(sampler, token)
                out.append(token)
                data += llm.detokenize([token])
                if mode == "free" and any(s.encode() in data for s in stop):
                    break
                llm.eval([token])
        finally:
            if sampler is not None:
                lib.llama_sampler_free(sampler)
        seconds = time.perf_counter() - started
        text = data.decode("utf-8", errors="replace")
        if mode == "free":
            cut = min((text.find(s) for s in stop if s in text), default=len(text))
            text = text[:cut]
        return Decoded(text, out, seconds, fallbacks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dialects", default=",".join(sorted(DIALECTS)))
    args = parser.parse_args()

    from react_text.backends.llama_cpp import LlamaCppBackend

    path = resolve_model(args.model)
    harness = Harness(str(path), args.threads)
    backend = LlamaCppBackend(path, n_threads=args.threads)
    tools = default_tools()
    names = [t.name for t in tools]
    print(f"model {path.name}, n_threads={args.threads}, max_tokens={args.max_tokens}, greedy, "
          f"{len(QUESTIONS)} questions per dialect, tools: {', '.join(names)}")
    print(f"{'dialect':8} {'gbnf':>6} {'free tok/s':>10} {'full tok/s':>10} {'check tok/s':>11} "
          f"{'full cost':>9} {'check cost':>10} {'fallback':>8} {'parsed free/full/check':>22}")
    totals = {m: [0, 0.0] for m in MODES}
    shipped = {"plain": [0, 0.0], "grammar": [0, 0.0]}
    mismatches = 0
    for dialect in args.dialects.split(","):
        template = load_template(dialect)
        gbnf = build_grammar(template.dialect, tools)
        tokens = {m: 0 for m in MODES}
        seconds = {m: 0.0 for m in MODES}
        parsed = {m: 0 for m in MODES}
        fallbacks = 0
        for question in QUESTIONS:
            prompt_tokens = harness.load_prompt(harness.wrap(template.render(question, tools)))
            runs = {m: harness.decode(prompt_tokens, m, gbnf, template.stop, args.max_tokens) for m in MODES}
            for mode, run in runs.items():
                tokens[mode] += len(run.tokens)
                seconds[mode] += run.seconds
                parsed[mode] += parse(template.turn_prefix(1) + run.text, names).error is None
            fallbacks += runs["check"].fallbacks
            prompt = harness.wrap(template.render(question, tools))
            texts = {}
            for label, grammar in (("plain", None), ("grammar", gbnf)):
                backend.complete("reset", max_tokens=1)  # evaluate the whole prompt, as the harness does
                done = backend.complete(prompt, stop=template.stop, max_tokens=args.max_tokens, grammar=grammar)
                shipped[label][0] += done.completion_tokens
                shipped[label][1] += done.extra["eval_ms"] / 1000
                texts[label] = done.text
            if texts["grammar"] != runs["check"].text:
                if texts["plain"] == runs["free"].text:  # same numbers as the harness, so the gate differs
                    mismatches += 1
                    print(f"  MISMATCH {dialect}: backend {texts['grammar']!r} vs check {runs['check'].text!r}")
                else:  # two llama.cpp contexts: near-tied logits can break differently
                    print(f"  note: {dialect}: backend and harness differ even without a grammar "
                          f"({texts['plain']!r} vs {runs['free'].text!r})")
            if runs["check"].tokens != runs["full"].tokens:
                mismatches += 1
                print(f"  MISMATCH {dialect}: full {runs['full'].text!r} vs check {runs['check'].text!r}")
            if len(runs["full"].tokens) < args.max_tokens and not grammar_matches(gbnf, runs["full"].text):
                print(f"  note: {dialect} finished outside the grammar: {runs['full'].text!r}")
        for mode in MODES:
            totals[mode][0] += tokens[mode]
            totals[mode][1] += seconds[mode]
        rate = {m: tokens[m] / seconds[m] if seconds[m] else 0.0 for m in MODES}
        print(f"{dialect:8} {len(gbnf):>5}B {rate['free']:>10.1f} {rate['full']:>10.1f} {rate['check']:>11.1f} "
              f"{rate['free'] / rate['full']:>8.2f}x {rate['free'] / rate['check']:>9.2f}x "
              f"{fallbacks / max(tokens['check'], 1):>7.0%} "
              f"{parsed['free']:>12}/{parsed['full']}/{parsed['check']} of {len(QUESTIONS)}")
    rate = {m: totals[m][0] / totals[m][1] for m in MODES}
    print(f"{'all':8} {'':>6} {rate['free']:>10.1f} {rate['full']:>10.1f} {rate['check']:>11.1f} "
          f"{rate['free'] / rate['full']:>8.2f}x {rate['free'] / rate['check']:>9.2f}x")
    plain, bound = (shipped[k][0] / shipped[k][1] for k in ("plain", "grammar"))
    print(f"LlamaCppBackend.complete: {plain:.1f} tok/s without the grammar, {bound:.1f} with it "
          f"({plain / bound:.2f}x cost)")
    if mismatches:
        print(f"{mismatches} turn(s) differ between full and check (or backend) decoding")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
