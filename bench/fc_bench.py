"""Function calling on tools react-text never saw: the shim against a plain one-prompt baseline.

Every task of the ``tools`` suite (or another suite whose tasks carry ``calls``)
is sent as one user message with its tools as OpenAI ``tools``:

* ``shim`` / ``shim+c``: ``react_text.tool_calls`` with a template (tool_choice
  auto), without and with the grammar;
* ``baseline``: one plain prompt that lists the functions as JSON and asks for
  ``[func(arg=value)]`` or a plain answer, on the same model, wrapped in the
  model's chat template once — the prompt style of common function-calling
  leaderboards.

A task that needs a call counts as right when the first call names an expected
tool with the expected arguments (an omitted argument counts as its schema
default); a task no tool fits counts as right when no call is made. Tasks are
reported in two halves (odd and even numbers of the id) so a change tuned on
one half can be checked on the other.

    python bench/fc_bench.py [--models qwen2.5-coder-0.5b] [--modes shim shim+c baseline] [--template classic]
                             [--split dev|test] [--limit N]
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
import sys
import time
from typing import Any

from react_text import tool_calls
from react_text.eval.suites import load_suite
from react_text.eval.suite_tools import SUITE_TOOLS

BASELINE = (
    "You are given a question and a set of functions.\n"
    "If one of the functions can answer the question, reply with the call only, in the form "
    "[func_name(param1=value1, param2=value2)]. If none of them fits, answer the question in plain words "
    "without any call.\n\nFunctions:\n{functions}\n\nQuestion: {question}"
)


def openai_tools(names: tuple[str, ...]) -> list[dict]:
    return [{"type": "function", "function": {"name": n, "description": SUITE_TOOLS[n].description,
                                              "parameters": SUITE_TOOLS[n].parameters}} for n in names]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(a, str) and isinstance(b, (int, float)) or isinstance(b, str) and isinstance(a, (int, float)):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-6)
        except ValueError:
            return False
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().casefold() == b.strip().casefold()
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


def args_match(tool: str, got: dict, want: dict) -> bool:
    props = SUITE_TOOLS[tool].parameters.get("properties", {})
    defaults = {k: p["default"] for k, p in props.items() if isinstance(p, dict) and "default" in p}
    full_got = {**defaults, **got}
    full_want = {**defaults, **want}
    return set(full_got) == set(full_want) and all(_same(full_got[k], full_want[k]) for k in full_want)


def right(calls: list[tuple[str, dict]], expected: tuple) -> bool:
    if not expected:
        return not calls
    if not calls:
        return False
    tool, args = calls[0]
    return any(tool == t and isinstance(args, dict) and args_match(t, args, a) for t, a in expected)


def shim_calls(backend, task, template: str, constrain: bool) -> tuple[list[tuple[str, dict]], str]:
    out = tool_calls([{"role": "user", "content": task.question}], openai_tools(task.tools), backend=backend,
                     template=template, constrain=constrain, max_tokens=192)
    calls = []
    for c in out["message"].get("tool_calls") or []:
        try:
            calls.append((c["function"]["name"], json.loads(c["function"]["arguments"])))
        except (ValueError, KeyError):
            calls.append((c["function"].get("name", "?"), {}))
    return calls, out["message"].get("content") or ""


_CALL = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*\(.*\)\s*\]|[A-Za-z_][\w.]*\s*\(.*\)", re.S)


def parse_baseline(text: str) -> list[tuple[str, dict]]:
    """``[f(a=1), g(b="x")]`` (or a bare ``f(a=1)``) → calls; positional values fill the
    schema's parameters in order; anything else → no call."""
    found = _CALL.search(text)
    if found is None:
        return []
    try:
        tree = ast.parse(found.group(0), mode="eval")
    except SyntaxError:
        return [("<unparsable>", {})]
    calls = []
    for node in getattr(tree.body, "elts", [tree.body]):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func)
        order = list(SUITE_TOOLS[name].parameters.get("properties", {})) if name in SUITE_TOOLS else []
        try:
            args = {order[i]: ast.literal_eval(v) for i, v in enumerate(node.args) if i < len(order)}
            args.update({kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg})
        except ValueError:
            args = {}
        calls.append((name, args))
    return calls


def baseline_calls(backend, task) -> tuple[list[tuple[str, dict]], str]:
    functions = json.dumps([t["function"] for t in openai_tools(task.tools)], ensure_ascii=False, indent=1)
    prompt = backend.wrap_prompt(BASELINE.format(functions=functions, question=task.question))
    text = backend.complete(prompt, stop=["\n\n\n"], max_tokens=128, temperature=0.0, seed=0).text
    return parse_baseline(text), text


def run_mode(backend, tasks, mode: str, template: str, verbose: bool) -> dict:
    rows = []
    started = time.perf_counter()
    for task in tasks:
        if mode == "baseline":
            calls, text = baseline_calls(backend, task)
        else:
            calls, text = shim_calls(backend, task, template, mode == "shim+c")
        ok = right(calls, task.calls)
        rows.append((task, ok))
        if verbose:
            shown = calls or text[:60].replace("\n", " ")
            print(f"  {'ok ' if ok else 'BAD'} {task.id:12} {shown}", file=sys.stderr)
    seconds = time.perf_counter() - started

    def share(pred) -> str:
        sel = [ok for t, ok in rows if pred(t)]
        return f"{sum(sel)}/{len(sel)}" if sel else "-"

    half = lambda t, odd: int(t.id.rsplit("-", 1)[1]) % 2 == (1 if odd else 0)  # noqa: E731
    return {
        "needed_calls_right": share(lambda t: bool(t.calls)),
        "declines_right": share(lambda t: not t.calls),
        "all": share(lambda t: True),
        "odd_half": share(lambda t: half(t, True)),
        "even_half": share(lambda t: half(t, False)),
        "en": share(lambda t: t.lang == "en"),
        "zh": share(lambda t: t.lang == "zh"),
        "s_per_task": round(seconds / max(1, len(rows)), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["qwen2.5-coder-0.5b"])
    parser.add_argument("--modes", nargs="+", choices=("shim", "shim+c", "baseline"), default=["shim", "shim+c", "baseline"])
    parser.add_argument("--template", default="classic")
    parser.add_argument("--suite", default="tools")
    parser.add_argument("--split", choices=("dev", "test"), help="only the tasks of this split (tune on dev)")
    parser.add_argument("--limit", type=int, help="only the first N tasks (keeps a run short)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)

    from react_text.backends.llama_cpp import LlamaCppBackend

    tasks = [t for t in load_suite(args.suite).tasks
             if t.calls is not None and (args.split is None or t.split == args.split)][:args.limit]
    out = []
    for model in args.models:
        backend = LlamaCppBackend(model, n_ctx=4096)
        try:
            for mode in args.modes:
                if args.verbose:
                    print(f"{model} {mode}:", file=sys.stderr)
                out.append({"model": model, "mode": mode, **run_mode(backend, tasks, mode, args.template, args.verbose)})
        finally:
            backend.close()
    header = list(out[0])
    widths = [max(len(h), *(len(str(r[h])) for r in out)) for h in header]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in out:
        print("  ".join(str(r[h]).ljust(w) for h, w in zip(header, widths)))
    split = f" ({args.split} split)" if args.split else ""
    print(f"\nsuite {args.suite}{split}: {len(tasks)} tasks; template {args.template}; tool_choice auto; greedy.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
