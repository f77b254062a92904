"""The ``react-text`` command: argument parsing and printing only.

Every subcommand calls the library; nothing here decides anything a library
user could not decide the same way. Each subcommand has an ``_add_*`` function
(its arguments) and a ``_cmd_*`` function (what it does).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Sequence

from .dialects import DIALECTS


# --- parse -----------------------------------------------------------------

def _add_parse(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="parse one model turn (file or stdin) and print the Step as JSON")
    p.add_argument("file", nargs="?", help="file holding the turn; stdin when omitted or '-'")
    p.add_argument("--tools", nargs="*", default=None, help="valid tool names (enables name matching)")
    p.add_argument("--dialect", default="classic", choices=sorted(DIALECTS),
                   help="protocol style (and language: zh) of the error message's example")
    p.set_defaults(func=_cmd_parse)


def _cmd_parse(args: argparse.Namespace) -> int:
    from .parser import parse

    if args.file in (None, "-"):
        text = sys.stdin.read()
    else:
        with open(args.file, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    step = parse(text, tools=args.tools, dialect=args.dialect)
    print(json.dumps(asdict(step), ensure_ascii=False, indent=2))
    return 0 if step.error is None else 1


# --- run -------------------------------------------------------------------

_RUN_TOOLS = ("calculator", "search", "time")


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="answer a question with a local model, tools and a template, streaming each step")
    p.add_argument("question")
    p.add_argument("--model", default=None,
                   help="catalog name or .gguf path (default: qwen2.5-coder-0.5b); with --backend http, "
                        "the model name sent to the server")
    p.add_argument("--template", default="classic", help="template name or .j2 path (default: classic)")
    p.add_argument("--tools", nargs="*", choices=_RUN_TOOLS, default=None,
                   help="tools to offer (default: calculator and time, plus search with --corpus)")
    p.add_argument("--corpus", default=None, help="folder of .txt/.md files for the search tool")
    p.add_argument("--max-steps", type=int, default=8)
    p.add_argument("--max-turn-tokens", type=int, default=256, help="tokens the model may write per turn")
    p.add_argument("--timeout", type=float, default=180.0, help="wall-clock limit for the run, seconds")
    p.add_argument("--trace", default=None,
                   help="JSONL trace file (default: a new file under $REACT_TEXT_HOME/traces or "
                        "~/.cache/react-text/traces)")
    p.add_argument("--backend", choices=("llama", "http"), default="llama")
    p.add_argument("--url", default=None, help="server URL for --backend http")
    p.add_argument("--api", choices=("openai", "llama"), default="openai", help="HTTP API flavour")
    p.add_argument("--constrain", action="store_true", help="constrain each turn with a grammar")
    p.add_argument("--prose", choices=("error", "final"), default="error",
                   help="bare prose without labels: a format error (default) or the final answer")
    p.add_argument("--require-observation", action="store_true",
                   help="refuse (once) a final answer given before any tool result")
    p.add_argument("--raw", action="store_true", help="also print each raw model turn")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON instead of streaming")
    p.add_argument("--toolbox", action="store_true", help="also offer the 68 tools of react_text.toolbox")
    p.add_argument("--fetch-allow", action="append", default=[], metavar="HOST",
                   help="offer fetch(url) for this host (repeatable; '*.example.org' for subdomains, 'host:port' "
                        "for one port); no host is reachable otherwise")
    _add_retrieval_options(p)
    p.set_defaults(func=_cmd_run)


def _add_retrieval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tool-retrieval", action="store_true",
                   help="with many tools, show the model only the best matches for the question plus list_tools")
    p.add_argument("--max-shown-tools", type=int, default=8, help="tools shown with --tool-retrieval (default: 8)")


def default_trace_path() -> "Path":
    """A fresh trace file under the cache (never the working directory, which may be a repo)."""
    import os
    import time
    from pathlib import Path

    home = os.environ.get("REACT_TEXT_HOME")
    if home:
        folder = Path(home).expanduser() / "traces"
    else:
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        folder = Path(cache) / "react-text" / "traces"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return folder / f"run-{stamp}-{os.getpid()}.jsonl"


def _run_tools(args: argparse.Namespace) -> list:
    from . import builtin_tools

    names = args.tools if args.tools is not None else ["calculator", "time"] + (["search"] if args.corpus else [])
    tools = []
    for name in dict.fromkeys(names):
        if name == "calculator":
            tools.append(builtin_tools.calculator)
        elif name == "time":
            tools.append(builtin_tools.current_time)
        elif name == "search":
            if not args.corpus:
                raise ValueError("--tools search needs --corpus DIR (the folder to search)")
            tools.append(builtin_tools.search_files(args.corpus))
    if args.fetch_allow:
        from .fetch import fetch_tool

        tools.append(fetch_tool(args.fetch_allow))
    if args.toolbox:
        from .toolbox import toolbox_tools

        tools += [t for t in toolbox_tools() if t.name not in {u.name for u in tools}]
    return tools


def _run_backend(args: argparse.Namespace):
    if args.backend == "http":
        if not args.url:
            raise ValueError("--backend http needs --url (e.g. http://127.0.0.1:8080)")
        from .backends.http import HttpBackend

        return HttpBackend(args.url, api=args.api, model=args.model)
    from .backends.llama_cpp import LlamaCppBackend
    from .models import DEFAULT_MODEL

    return LlamaCppBackend(args.model or DEFAULT_MODEL)


def _cmd_run(args: argparse.Namespace) -> int:
    from .backends.base import BackendError
    from .console import Console
    from .loop import Agent, Limits
    from .templates import TemplateError, load_template
    from .trace import to_jsonable

    try:
        limits = Limits(max_steps=args.max_steps, max_turn_tokens=args.max_turn_tokens, timeout_s=args.timeout,
                        require_observation=args.require_observation)
        template = load_template(args.template)
        tools = _run_tools(args)
        backend = _run_backend(args)
        trace = args.trace or default_trace_path()
        agent = Agent(backend, tools, template, limits=limits, trace=trace,
                      on_event=None if args.json else Console(sys.stdout, raw=args.raw),
                      constrain=args.constrain, prose=args.prose,
                      tool_retrieval=args.tool_retrieval, max_shown_tools=args.max_shown_tools)
    except (BackendError, TemplateError, ValueError, OSError) as exc:
        print(f"react-text run: {exc}", file=sys.stderr)
        return 2
    result = agent.run(args.question)
    if args.json:
        print(json.dumps(to_jsonable(result), ensure_ascii=False, indent=2))
    else:
        print(f"trace: {result.trace_path}")
    if result.status == "interrupted":
        return 130
    return 0 if result.ok else 1


# --- replay ----------------------------------------------------------------

def _add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="print a past run from its JSONL trace")
    p.add_argument("file", help="trace file written by `react-text run` (or Agent(trace=...))")
    p.add_argument("--raw", action="store_true", help="also print each raw model turn")
    p.set_defaults(func=_cmd_replay)


def _cmd_replay(args: argparse.Namespace) -> int:
    from .console import Console
    from .trace import TraceError, read_trace

    try:
        events = read_trace(args.file)
    except TraceError as exc:
        print(f"react-text replay: {exc}", file=sys.stderr)
        return 2
    if not events:
        print(f"react-text replay: {args.file} holds no events", file=sys.stderr)
        return 2
    console = Console(sys.stdout, raw=args.raw)
    for event in events:
        console(event)
    end = next((e for e in reversed(events) if e.get("event") == "run_end"), None)
    if end is None:
        print("(the trace ends without run_end: the run crashed or is still running)")
        return 1
    return 0 if end.get("status") in ("answered", "proposed") else 1


# --- templates -------------------------------------------------------------

def _add_templates(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("templates", help="list prompt templates, or show one rendered with the built-in tools")
    p.add_argument("action", nargs="?", choices=("list", "show"), default="list",
                   help="list (default) or show NAME")
    p.add_argument("name", nargs="?", help="template name or .j2 path (for show)")
    p.add_argument("--path", action="append", default=[], metavar="DIR",
                   help="extra template folder, searched before $REACT_TEXT_PROMPTS and the built-ins (repeatable)")
    p.add_argument("--question", default="What is 37 * 91 + 12?", help="sample question for show")
    p.add_argument("--corpus", default=None, metavar="DIR",
                   help="folder for the search tool (default: the bundled suite corpus)")
    p.set_defaults(func=_cmd_templates)


def _cmd_templates(args: argparse.Namespace) -> int:
    from .templates import TemplateError, list_templates, load_template

    try:
        if args.action == "list":
            errors: list[TemplateError] = []
            rows = [(t.name, t.dialect, t.language, str(t.path)) for t in list_templates(args.path, errors=errors)]
            widths = [max(len(row[i]) for row in rows + [("name", "dialect", "language", "")]) for i in range(3)]
            print(f"{'name':<{widths[0]}}  {'dialect':<{widths[1]}}  {'language':<{widths[2]}}  path")
            for row in rows:
                print(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}")
            for error in errors:
                print(f"react-text templates: skipped {error}", file=sys.stderr)
            return 0
        if not args.name:
            print("react-text templates: show needs a template NAME (see `react-text templates`)", file=sys.stderr)
            return 2
        template = load_template(args.name, args.path)
        prompt = template.render(args.question, _sample_tools(args.corpus))
    except TemplateError as exc:
        print(f"react-text templates: {exc}", file=sys.stderr)
        return 2
    print(prompt)
    print(f"# {template.name}: dialect {template.dialect}, language {template.language}, "
          f"{len(prompt)} chars, stop {list(template.stop)!r}", file=sys.stderr)
    return 0


def _sample_tools(corpus: str | None) -> list:
    """The built-in tools, with search over ``corpus`` or the bundled suite corpus."""
    import importlib.resources

    from .builtin_tools import default_tools

    if corpus is None:
        bundled = importlib.resources.files("react_text.suite_data") / "corpus"
        corpus = str(bundled) if bundled.is_dir() else None
    return default_tools(corpus)


# --- serve -----------------------------------------------------------------

def _add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve an OpenAI-compatible /v1/chat/completions with tools, from any model")
    p.add_argument("--model", default=None,
                   help="catalog name or .gguf path (default: qwen2.5-coder-0.5b); with --backend http, "
                        "the model name sent to the server")
    p.add_argument("--template", default="classic", help="template name or .j2 path (default: classic)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a non-loopback --host (the endpoint has no authentication)")
    p.add_argument("--constrain", action="store_true", help="constrain every turn with a grammar")
    p.add_argument("--backend", choices=("llama", "http"), default="llama")
    p.add_argument("--url", default=None, help="server URL for --backend http")
    p.add_argument("--api", choices=("openai", "llama"), default="openai", help="HTTP API flavour")
    p.add_argument("--n-ctx", type=int, default=4096, help="context size for the in-process model")
    p.add_argument("--max-tokens", type=int, default=256, help="default tokens per model turn")
    p.add_argument("--max-pending", type=int, default=4,
                   help="requests admitted at once (one runs, the rest wait); more get 429")
    p.add_argument("--examples", default=None,
                   help="JSON file of few-shot episodes written for your tools (default: the template's own)")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    from .backends.base import BackendError
    from .models import DEFAULT_MODEL, ModelError
    from .server import ServerConfig, make_server, serve
    from .templates import TemplateError, load_examples

    model = args.model or DEFAULT_MODEL
    try:
        if args.backend == "http":
            if not args.url:
                raise ValueError("--backend http needs --url (e.g. http://127.0.0.1:8081)")
            from .backends.http import HttpBackend

            backend = HttpBackend(args.url, api=args.api, model=args.model)
        else:
            from .backends.llama_cpp import LlamaCppBackend

            backend = LlamaCppBackend(model, n_ctx=args.n_ctx)
        examples = load_examples(args.examples) if args.examples else None
        config = ServerConfig(model_name=model, template=args.template, constrain=args.constrain,
                              default_max_tokens=args.max_tokens, max_pending=args.max_pending, examples=examples)
        server = make_server(backend, config, host=args.host, port=args.port,
                             allow_remote=args.allow_remote, verbose=args.verbose)
    except (BackendError, ModelError, TemplateError, ValueError, OSError) as exc:
        print(f"react-text serve: {exc}", file=sys.stderr)
        return 2
    print(f"serving {model} (template {config.template}) on {server.url}/v1 — Ctrl-C to stop", file=sys.stderr,
          flush=True)
    serve(server)
    return 0


# --- models ----------------------------------------------------------------

def _add_models(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models",
        help="list catalog models with installed/verified state; 'install NAME...' or 'path NAME'",
    )
    p.add_argument("action", nargs="?", choices=["list", "install", "path"], default="list")
    p.add_argument("names", nargs="*", help="catalog names or aliases (install, path)")
    p.add_argument("--json", action="store_true", help="list as JSON")
    p.set_defaults(func=_cmd_models)


def _cmd_models(args: argparse.Namespace) -> int:
    from .models import DEFAULT_MODEL, ModelError, install_model, list_models, resolve_model

    try:
        if args.action == "list":
            rows = list_models()
            if args.json:
                print(json.dumps([{**asdict(r), "path": str(r.path) if r.path else None} for r in rows], indent=2))
                return 0
            table = [("MODEL", "KIND", "SIZE", "STATE", "LICENCE", "NOTE")]
            for r in rows:
                table.append((
                    r.name + (" (default)" if r.name == DEFAULT_MODEL else ""),
                    r.kind,
                    f"{r.size / 1e6:.0f} MB" if r.size else "?",
                    "verified" if r.verified else ("installed" if r.installed else "missing"),
                    r.licence,
                    str(r.path) if r.verified else r.note,
                ))
            widths = [max(len(row[i]) for row in table) for i in range(5)]
            for row in table:
                print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[5])
            return 0
        if not args.names:
            print(f"react-text models {args.action}: name at least one model", file=sys.stderr)
            return 2
        for name in args.names:
            path = install_model(name) if args.action == "install" else resolve_model(name)
            print(path)
        return 0
    except ModelError as exc:
        print(f"react-text models: {exc}", file=sys.stderr)
        return 1


# --- compare ---------------------------------------------------------------

def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="run a task suite across templates and models and report")
    p.add_argument("--templates", nargs="+", default=["classic", "json", "call", "paper", "zh"])
    p.add_argument("--models", nargs="+", default=None, help="catalog names or GGUF paths (default: the default model)")
    p.add_argument("--suite", default="all", help="built-in suite name(s) joined by commas, 'all', or a JSONL file")
    p.add_argument("--out", default="compare-results", help="folder for results.jsonl, traces and the report")
    p.add_argument("--constrain", choices=["off", "on", "both"], default="off",
                   help="grammar-constrained turns: without, with, or both side by side")
    p.add_argument("--backend", choices=["llama", "http"], default="llama")
    p.add_argument("--url", action="append", default=[],
                   help="HTTP endpoint, URL or URL#N for N parallel requests (repeat for several servers; "
                        "a task whose server dies is rerun on another)")
    p.add_argument("--api", choices=["openai", "llama"], default="openai")
    p.add_argument("--concurrency", type=int, default=1,
                   help="parallel tasks per --url without #N (HTTP backend only)")
    p.add_argument("--max-steps", type=int, default=6)
    p.add_argument("--max-turn-tokens", type=int, default=192)
    p.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds per task")
    p.add_argument("--limit", type=int, default=None, help="only the first N tasks of the suite")
    p.add_argument("--per-group", type=int, default=None,
                   help="only the first N tasks of each (category, language): a stratified sample")
    p.add_argument("--report-only", action="store_true", help="rebuild the report from results.jsonl; run nothing")
    _add_retrieval_options(p)
    p.set_defaults(func=_cmd_compare)


def _cmd_compare(args: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    from . import compare, metrics, report
    from .models import DEFAULT_MODEL

    spec = compare.CompareSpec(
        templates=tuple(args.templates),
        models=tuple(args.models or [DEFAULT_MODEL]),
        suite=args.suite,
        out_dir=Path(args.out),
        constrain={"off": (False,), "on": (True,), "both": (False, True)}[args.constrain],
        backend=args.backend,
        urls=tuple(args.url),
        api=args.api,
        concurrency=args.concurrency,
        max_steps=args.max_steps,
        max_turn_tokens=args.max_turn_tokens,
        timeout_s=args.timeout,
        limit=args.limit,
        per_group=args.per_group,
        tool_retrieval=args.tool_retrieval,
        max_shown_tools=args.max_shown_tools,
    )
    # The command that makes these results: a report rebuilt later names the run, not the rebuild.
    argv = [a for a in sys.argv[1:] if a != "--report-only"]
    command = "react-text " + " ".join(shlex.quote(a) for a in argv) if argv else None
    if args.report_only:
        records = compare.select(compare.load_results(spec.out_dir / "results.jsonl"), spec,
                                 [t.id for t in compare.prepare(spec).tasks])
    else:
        try:
            records = compare.run_compare(spec)
        except compare.CompareError as exc:
            print(f"react-text compare: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"\ninterrupted: finished tasks are in {spec.out_dir / 'results.jsonl'}; "
                  "run the same command again to resume", file=sys.stderr)
            return 130
    if not records:
        print("no results yet", file=sys.stderr)
        return 1
    paths = compare.write_report(records, spec.out_dir, command=command)
    print(report.terminal_table(metrics.summarize(records)))
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0


# --- main ------------------------------------------------------------------

_SUBCOMMANDS = [_add_parse, _add_run, _add_replay, _add_templates, _add_models, _add_compare, _add_serve]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="react-text", description="A ReAct engine that speaks a text protocol, for local models."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for add in _SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
