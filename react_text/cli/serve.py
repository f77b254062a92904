"""``react-text serve``: an OpenAI-compatible ``/v1/chat/completions`` with tools, from any model."""

from __future__ import annotations

import argparse
import os
import sys

from ..backends.base import BackendError
from ..backends.build import build_backend
from ..catalog import DEFAULT_MODEL, ModelError
from ..fc.choice import AUTO, choose_template
from ..fc.endpoint import ServerConfig
from ..fc.native import NATIVE
from ..fc.server import make_server, serve
from ..prompting.templates import TemplateError, load_examples
from ..tools.functions import load_functions
from .options import (
    add_checks_option,
    _llama_backend,
    add_functions_option,
    add_llama_options,
    add_template_options,
    backend_header,
    load_template_with_hint,
)


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve an OpenAI-compatible /v1/chat/completions with tools, from any model")
    p.add_argument("--model", default=None,
                   help="catalog name or .gguf path (default: qwen2.5-coder-0.5b); with --backend http, "
                        "the model name sent to the server")
    add_template_options(p, template=False)
    p.add_argument("--template", default="auto",
                   help="auto (default: the protocol measured best for the model, else its own tool format when "
                        "its chat template has one, else classic), native (the model's own tool format), or a "
                        "text template name or .j2 path")
    add_functions_option(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (loopback only unless --allow-remote)")
    p.add_argument("--port", type=int, default=8080, help="port to listen on")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a non-loopback --host (needs --api-key)")
    p.add_argument("--api-key", default=None,
                   help="require 'Authorization: Bearer KEY' on every request (default: $REACT_TEXT_API_KEY; "
                        "the variable keeps the key out of the process list)")
    p.add_argument("--allow-unauthenticated-functions", action="store_true",
                   help="serve --functions without --api-key (any local user could then run them as you)")
    p.add_argument("--request-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="the longest one request may hold the model with --functions, its tool calls included "
                        "(504 past it; default 120)")
    p.add_argument("--constrain", action=argparse.BooleanOptionalAction, default=None,
                   help="constrain every turn with a grammar built from the tools (default: when the backend "
                        "takes grammars, as llama.cpp does)")
    p.add_argument("--backend", choices=("llama", "http"), default="llama")
    p.add_argument("--url", default=None, help="server URL for --backend http")
    p.add_argument("--api", choices=("openai", "llama"), default="openai", help="HTTP API flavour")
    p.add_argument("--max-tokens", type=int, default=256, help="default tokens per model turn")
    p.add_argument("--max-pending", type=int, default=4,
                   help="requests admitted at once (one runs, the rest wait); more get 429")
    p.add_argument("--examples", default=None,
                   help="JSON file of few-shot episodes written for your tools (default: the template's own)")
    p.add_argument("--keepalive", type=_seconds, default=10.0, metavar="SECONDS",
                   help="with stream: true, send an SSE comment (': keep-alive') this often while the model "
                        "works, so a client's read timeout never fires on a slow turn; 0 sends none (default: 10)")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")
    add_checks_option(p)
    add_llama_options(p)
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    model = args.model or DEFAULT_MODEL
    try:
        template = args.template if args.template in (AUTO, NATIVE) else load_template_with_hint(
            args.template, args.templates_dir)
        functions = tuple(t for file in args.functions for t in load_functions(file))
        if args.backend == "http":
            if not args.url:
                raise ValueError("--backend http needs --url (e.g. http://127.0.0.1:8081)")
            backend = build_backend("http", url=args.url, api=args.api, model=args.model)
        else:
            backend = _llama_backend(args, model)
        examples = load_examples(args.examples) if args.examples else None
        config = ServerConfig(model_name=model, template=template, constrain=args.constrain,
                              default_max_tokens=args.max_tokens, max_pending=args.max_pending, examples=examples,
                              functions=functions, request_timeout_s=args.request_timeout, checks=args.checks,
                              keepalive_s=args.keepalive,
                              api_key=args.api_key or os.environ.get("REACT_TEXT_API_KEY") or None)
        server = make_server(backend, config, host=args.host, port=args.port,
                             allow_remote=args.allow_remote,
                             allow_unauthenticated_functions=args.allow_unauthenticated_functions,
                             verbose=args.verbose)
    except (BackendError, ModelError, TemplateError, ValueError, TypeError, OSError) as exc:
        print(f"react-text serve: {exc}", file=sys.stderr)
        return 2
    header = backend_header(backend)
    if header:
        print(header, file=sys.stderr)
    if functions:
        print(f"tools run here, for requests without their own: {', '.join(t.name for t in functions)}",
              file=sys.stderr)
    print(f"serving {model} (template {_template_line(template, backend)}) on {server.url}/v1 — Ctrl-C to stop",
          file=sys.stderr, flush=True)
    serve(server)
    return 0


def _seconds(text: str) -> float:
    """A duration of 0 or more seconds, for argparse."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 (off) or more seconds")
    return value


def _template_line(template: object, backend: object) -> str:
    """The template served, and what ``auto`` picks for this model and why."""
    if template == AUTO:
        chosen = choose_template(backend)  # type: ignore[arg-type]
        return f"auto: {chosen.name}, {chosen.why}"
    return str(getattr(template, "name", template))
