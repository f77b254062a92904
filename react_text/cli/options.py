"""Options several commands share, and what they build: templates, the tool cache, the in-process model.

One definition per option keeps ``run``, ``compare`` and ``serve`` spelling
(and documenting) the same flag the same way.
"""

from __future__ import annotations

import argparse
from typing import Sequence

from ..backends.build import build_backend
from ..checks import CHECKS, DEFAULT_CHECKS, OFF_BY_DEFAULT, CheckName, parse_checks
from ..prompting.templates import Template, TemplateError, load_template
from ..tools.cache import ToolCache
from ..tools.search import RANKINGS


def add_template_options(p: argparse.ArgumentParser, *, template: bool = True) -> None:
    if template:
        p.add_argument("--template", default="classic",
                       help="template name or .j2 path, or native (the model's own chat template with tools)")
    p.add_argument("--templates-dir", action="append", default=[], metavar="DIR",
                   help="folder of your own .j2 templates, searched before $REACT_TEXT_PROMPTS and the built-ins "
                        "(repeatable)")


def add_functions_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--functions", action="append", default=[], metavar="FILE.py",
                   help="offer the tools of a Python file: its functions marked @react_text.tool, or every "
                        "public function if none is marked (repeatable)")


CTX_HELP = ("context window in tokens: n_ctx of the in-process model (default: 4096); with --backend http, "
            "the server's window when it does not tell (llama-server does)")


def add_llama_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("in-process model (--backend llama)")
    g.add_argument("--ctx", "--n-ctx", dest="ctx", type=int, default=None, metavar="TOKENS", help=CTX_HELP)
    g.add_argument("--batch", type=int, default=512, help="prompt tokens decoded per batch (n_batch)")
    g.add_argument("--gpu-layers", type=int, default=None, metavar="N",
                   help="layers offloaded to the GPU (n_gpu_layers; -1 = all). Default: all when this "
                        "llama.cpp build supports GPU offload, else 0")
    g.add_argument("--flash-attn", action="store_true",
                   help="use flash attention (needs a llama-cpp-python that has the option)")


def _llama_backend(args: argparse.Namespace, model: str):
    return build_backend("llama", model=model, context_size=args.ctx, n_batch=args.batch,
                         n_gpu_layers=args.gpu_layers, flash_attn=args.flash_attn)


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


def load_template_with_hint(name: str, dirs: Sequence[str]) -> Template:
    """``load_template``, with how to add a template when the name is unknown."""
    try:
        return load_template(name, dirs)
    except TemplateError as exc:
        raise TemplateError(with_template_hint(str(exc))) from None


def add_retrieval_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tool-retrieval", action="store_true",
                   help="with many tools, show the model only the best matches for the question plus list_tools")
    p.add_argument("--max-shown-tools", type=int, default=8, help="tools shown with --tool-retrieval (default: 8)")


def add_search_ranking_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--search-ranking", choices=RANKINGS, default=RANKINGS[0],
                   help=f"how the search tool ranks passages (default: {RANKINGS[0]}; baseline: plain BM25 over "
                        "paragraphs, the earlier default)")


def add_checks_option(p: argparse.ArgumentParser) -> None:
    """``--checks``: which of the engine's corrections and leads run (``checks.registry``), the same in
    ``run``, ``compare`` and ``serve``; the default is ``Agent``'s and ``tool_calls``'s (``DEFAULT_CHECKS``)."""
    p.add_argument("--checks", type=_checks, default=DEFAULT_CHECKS, metavar="SPEC",
                   help="the engine's checks and leads: default, all, none (the plain engine), -facts,+rounding "
                        "(the defaults less or plus those) or rounding,facts (only those); off by default: "
                        f"{', '.join(c.name for c in CHECKS if c.name in OFF_BY_DEFAULT)}; "
                        f"names: {', '.join(c.name for c in CHECKS)}")


def _checks(spec: str) -> frozenset[CheckName]:
    try:
        return parse_checks(spec)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_long_run_options(p: argparse.ArgumentParser, *, ctx: bool = True) -> None:
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
        p.add_argument("--ctx", type=int, default=None, metavar="TOKENS", help=CTX_HELP)


def add_redaction_options(p: argparse.ArgumentParser) -> None:
    """``--redact FIELD`` / ``--no-redact``: what the traces a command writes mask (run, compare)."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--redact", action="append", default=[], metavar="FIELD",
                       help="also mask this field in traces and hide it from the model in tool results (repeatable); "
                            "api keys, tokens, passwords, Authorization and URL passwords are always masked")
    group.add_argument("--no-redact", action="store_true",
                       help="write traces exactly, secrets included (for replaying a run that holds none)")


def redaction(args: argparse.Namespace) -> tuple[str, ...] | bool | None:
    """``Agent(redact=...)`` for ``--redact``/``--no-redact``: the defaults (None), more names, or none (False)."""
    if args.no_redact:
        return False
    return tuple(args.redact) or None


def tool_cache(args: argparse.Namespace) -> ToolCache | None:
    """The cache across runs that ``--cache [DIR]`` asks for (None without it)."""
    if args.cache is None:
        return None
    return ToolCache(args.cache or None)
