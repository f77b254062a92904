"""``react-text run``: answer one question with a model, tools and a template, streaming each step."""

from __future__ import annotations

import argparse
import json
import sys

from ..agent.loop import Agent
from ..agent.state import Limits
from ..backends.base import BackendError
from ..backends.build import build_backend
from ..catalog import DEFAULT_MODEL
from ..eval.toolbox import toolbox_tools
from ..prompting.templates import TemplateError
from ..tools.builtins import BUILTIN_ALIASES, BUILTIN_NAMES, builtin_tool
from ..tools.fetch import fetch_tool
from ..tools.functions import load_functions
from ..tools.schemas import ToolDefinitionError
from ..trace import fresh_trace_path, to_jsonable
from .console import Console
from .options import (
    add_checks_option,
    _llama_backend,
    add_functions_option,
    add_llama_options,
    add_long_run_options,
    add_redaction_options,
    add_retrieval_options,
    add_search_ranking_option,
    add_template_options,
    backend_header,
    load_template_with_hint,
    redaction,
    tool_cache,
)


def add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="answer a question with a local model, tools and a template, streaming each step")
    p.add_argument("question")
    p.add_argument("--model", default=None,
                   help="catalog name or .gguf path (default: qwen2.5-coder-0.5b); with --backend http, "
                        "the model name sent to the server")
    add_template_options(p)
    p.add_argument("--tools", nargs="*", choices=BUILTIN_NAMES + tuple(BUILTIN_ALIASES), default=None, metavar="TOOL",
                   help="built-in tools to offer: calculator, current_time (alias: time), search (needs --corpus). "
                        "Default: calculator and current_time, plus search with --corpus; `--tools` alone: none")
    add_functions_option(p)
    p.add_argument("--corpus", default=None, help="folder of .txt/.md files for the search tool")
    add_search_ranking_option(p)
    p.add_argument("--max-steps", type=int, default=8, help="model turns before the run stops")
    p.add_argument("--max-turn-tokens", type=int, default=256, help="tokens the model may write per turn")
    p.add_argument("--timeout", type=float, default=180.0, help="wall-clock limit for the run, seconds")
    p.add_argument("--trace", default=None,
                   help="JSONL trace file (default: a new file under $REACT_TEXT_HOME/traces or "
                        "~/.cache/react-text/traces)")
    p.add_argument("--backend", choices=("llama", "http"), default="llama",
                   help="llama: the model in this process; http: a llama.cpp or OpenAI-compatible server")
    p.add_argument("--url", default=None, help="server URL for --backend http")
    p.add_argument("--api", choices=("openai", "llama"), default="openai", help="HTTP API flavour")
    p.add_argument("--constrain", action="store_true", help="constrain each turn with a grammar")
    p.add_argument("--prose", choices=("error", "final"), default="error",
                   help="bare prose without labels: a format error or the final answer")
    p.add_argument("--raw", action="store_true", help="also print each raw model turn")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON instead of streaming")
    add_long_run_options(p, ctx=False)
    add_redaction_options(p)
    p.add_argument("--toolbox", action="store_true", help="also offer the 68 tools of react_text.eval.toolbox")
    p.add_argument("--fetch-allow", action="append", default=[], metavar="HOST",
                   help="offer fetch(url) for this host (repeatable; '*.example.org' for subdomains, 'host:port' "
                        "for one port); no host is reachable otherwise. A name must resolve to public addresses: "
                        "loopback, private and link-local ones only when you list that IP or 'localhost' itself "
                        "(127.0.0.1:8080), or with --fetch-private")
    p.add_argument("--fetch-private", action="store_true",
                   help="let --fetch-allow names resolve to loopback, private and link-local addresses (an intranet)")
    add_retrieval_options(p)
    add_checks_option(p)
    add_llama_options(p)
    p.set_defaults(func=_cmd_run)


def _run_tools(args: argparse.Namespace) -> list:
    """The tools ``run`` offers: the chosen built-ins, fetch, the toolbox, then the user's functions."""
    names = args.tools if args.tools is not None else ["calculator", "current_time"] + (["search"] if args.corpus else [])
    tools = []
    for name in dict.fromkeys(BUILTIN_ALIASES.get(n, n) for n in names):
        if name == "search" and not args.corpus:
            raise ValueError("--tools search needs --corpus DIR (the folder to search)")
        tools.append(builtin_tool(name, args.corpus, search_ranking=args.search_ranking))
    if getattr(args, "fetch_allow", None):
        tools.append(fetch_tool(args.fetch_allow, allow_private=getattr(args, "fetch_private", False)))
    if getattr(args, "toolbox", False):
        tools += [t for t in toolbox_tools() if t.name not in {u.name for u in tools}]
    for file in args.functions:
        own = load_functions(file)
        names_own = {t.name for t in own}
        tools = [t for t in tools if t.name not in names_own] + own  # your function replaces a same-named built-in
    return tools


def _run_backend(args: argparse.Namespace):
    if args.backend == "http":
        if not args.url:
            raise ValueError("--backend http needs --url (e.g. http://127.0.0.1:8080)")
        return build_backend("http", url=args.url, api=args.api, model=args.model, context_size=args.ctx)
    return _llama_backend(args, args.model or DEFAULT_MODEL)


def _cmd_run(args: argparse.Namespace) -> int:
    try:
        limits = Limits(max_steps=args.max_steps, max_turn_tokens=args.max_turn_tokens, timeout_s=args.timeout,
                        max_parallel_tools=args.parallel)
        template = args.template if args.template == "native" else load_template_with_hint(  # the model's own
            args.template, args.templates_dir)
        tools = _run_tools(args)
        backend = _run_backend(args)
        trace = args.trace or fresh_trace_path()
        console = None if args.json else Console(sys.stdout, raw=args.raw, lang=getattr(template, "language", None))
        agent = Agent(backend, tools, template, limits=limits, trace=trace, on_event=console,
                      on_token=console.token if console is not None and console.live else None,
                      constrain=args.constrain, prose=args.prose, tool_cache=tool_cache(args),
                      tool_retrieval=args.tool_retrieval, max_shown_tools=args.max_shown_tools,
                      checks=args.checks, redact=redaction(args))
    except (BackendError, TemplateError, ToolDefinitionError, ValueError, OSError) as exc:
        print(f"react-text run: {exc}", file=sys.stderr)
        return 2
    header = backend_header(backend)
    if header and not args.json:
        print(header, flush=True)
    result = agent.run(args.question)
    if args.json:
        print(json.dumps(to_jsonable(result), ensure_ascii=False, indent=2))
    else:
        print(f"trace: {result.trace_path}")
    return exit_code(result.status, result.reason, "run")


def exit_code(status: str | None, reason: str, verb: str) -> int:
    """One mapping for run and replay: 0 answered, 130 Ctrl-C, 2 a template that cannot render, else 1."""
    if status == "interrupted":
        return 130
    if status == "template_error":
        print(f"react-text {verb}: {reason}", file=sys.stderr)
        return 2
    return 0 if status in ("answered", "proposed") else 1
