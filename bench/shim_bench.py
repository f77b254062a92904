"""How often the function-calling shim does the right kind of thing on real models.

Two sets of questions go through ``react_text.tool_calls`` (tool_choice "auto")
with three OpenAI-style tools offered:

* questions a tool is needed for: the reply should be ``tool_calls`` (and name
  the right tool);
* questions none of the tools fits: the reply should be a plain answer, not a
  forced call.

For each model and mode it prints the share of each, the format errors the retries absorbed, and the
mean seconds per question. Model time dominates; run it on an idle machine.

Modes: ``plain`` (the template's own few-shot examples, which use the
built-in calculator/search tools), ``constrained`` (the same plus a grammar),
``matched`` (few-shot episodes written for these three tools, with questions
that are not in the sets below, passed through ``examples=``).

    python bench/shim_bench.py [--models smollm2-135m qwen2.5-coder-0.5b] [--modes plain constrained matched]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from react_text import tool_calls

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "convert_currency", "description": "Convert an amount of money from one currency to another.",
        "parameters": {"type": "object", "properties": {
            "amount": {"type": "number"},
            "source": {"type": "string", "description": "ISO code, e.g. USD"},
            "target": {"type": "string", "description": "ISO code, e.g. EUR"}},
            "required": ["amount", "source", "target"]}}},
    {"type": "function", "function": {
        "name": "get_stock_price", "description": "Latest trading price of a stock.",
        "parameters": {"type": "object", "properties": {"symbol": {"type": "string", "description": "Ticker, e.g. AAPL"}},
                       "required": ["symbol"]}}},
]

NEEDS_TOOL = [
    ("What's the weather in Tokyo right now?", "get_weather"),
    ("Convert 250 US dollars to euros.", "convert_currency"),
    ("What is Apple's (AAPL) stock price today?", "get_stock_price"),
    ("Is it raining in London at the moment?", "get_weather"),
    ("How many British pounds is 80 euros?", "convert_currency"),
    ("What is the current share price of Microsoft (MSFT)?", "get_stock_price"),
]

MATCHED_EXAMPLES = [
    {"question": "Do I need a coat in Berlin today?",
     "steps": [{"thought": "I need the weather in Berlin.", "tool": "get_weather", "args": {"city": "Berlin"},
                "observation": "Berlin: 4 C, windy"}],
     "thought": "It is 4 C and windy.", "answer": "Yes, it is 4 C and windy in Berlin."},
    {"question": "What is 100 Swiss francs in Japanese yen?",
     "steps": [{"thought": "I need to convert CHF to JPY.", "tool": "convert_currency",
                "args": {"amount": 100, "source": "CHF", "target": "JPY"}, "observation": "17250.40 JPY"}],
     "thought": "The conversion gave 17250.40 JPY.", "answer": "About 17,250 yen."},
    {"question": "What colour is the sky on a clear day?", "steps": [],
     "thought": "I know this; none of the tools is needed.", "answer": "Blue."},
]

NO_TOOL_FITS = [
    "Write a haiku about autumn leaves.",
    "What is the capital of Australia?",
    "Translate 'good morning' into French.",
    "Who wrote the novel Pride and Prejudice?",
    "Give me a synonym for 'happy'.",
    "How many legs does a spider have?",
]


def run(backend, mode: str, template: str, max_tokens: int, verbose: bool) -> dict:
    calls = right_tool = answers = errors = 0
    seconds = 0.0
    cases = [(q, tool) for q, tool in NEEDS_TOOL] + [(q, None) for q in NO_TOOL_FITS]
    for question, want in cases:
        started = time.perf_counter()
        out = tool_calls([{"role": "user", "content": question}], TOOLS, backend=backend, template=template,
                         constrain=mode == "constrained", max_tokens=max_tokens,
                         examples=MATCHED_EXAMPLES if mode == "matched" else None)
        seconds += time.perf_counter() - started
        errors += len(out["format_errors"])
        names = [c["function"]["name"] for c in out["message"].get("tool_calls") or []]
        if want is not None:
            calls += bool(names)
            right_tool += bool(names) and names[0] == want
        else:
            answers += not names
        if verbose:
            shown = names or (out["message"]["content"] or "")[:70]
            print(f"  {'call' if want else 'none':4} {question[:48]:48} -> {shown} {out['format_errors'] or ''}",
                  file=sys.stderr)
    return {
        "tool_calls": f"{calls}/{len(NEEDS_TOOL)}",
        "right_tool": f"{right_tool}/{len(NEEDS_TOOL)}",
        "plain_answers": f"{answers}/{len(NO_TOOL_FITS)}",
        "format_errors": errors,
        "s_per_question": round(seconds / len(cases), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["smollm2-135m", "qwen2.5-coder-0.5b"])
    parser.add_argument("--modes", nargs="+", choices=("plain", "constrained", "matched"),
                        default=["plain", "constrained", "matched"])
    parser.add_argument("--template", default="classic")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--verbose", action="store_true", help="print each question's outcome to stderr")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from react_text.backends.llama_cpp import LlamaCppBackend

    rows = []
    for model in args.models:
        backend = LlamaCppBackend(model, n_ctx=4096)
        try:
            for mode in args.modes:
                if args.verbose:
                    print(f"{model} {mode}:", file=sys.stderr)
                result = run(backend, mode, args.template, args.max_tokens, args.verbose)
                rows.append({"model": model, "mode": mode, **result})
        finally:
            backend.close()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    header = ["model", "mode", "tool_calls", "right_tool", "plain_answers", "format_errors", "s_per_question"]
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) for h in header]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(str(r[h]).ljust(w) for h, w in zip(header, widths)))
    print(f"\ntool_calls: questions needing a tool answered with tool_calls; plain_answers: questions no tool "
          f"fits answered with content (template {args.template}, tool_choice auto, greedy).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
