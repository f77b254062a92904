"""The ``react-text`` command: argument parsing and printing only.

Every subcommand calls the library; nothing here decides anything a library
user could not decide the same way. Each subcommand lives in its own module
with an ``add_*`` function (its arguments) and a ``_cmd_*`` function (what it
does); options several commands share are in ``options``. This module builds
the parser from them and dispatches.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from .. import __version__
from . import compare, models, parse, run, serve, templates, traces

_SUBCOMMANDS = [parse.add_parse, run.add_run, traces.add_replay, traces.add_traces, templates.add_templates,
                models.add_models, compare.add_compare, serve.add_serve]


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each option's default, except empty ones (None, False, []), ones the help already states,
    and a flag's (``--no-quote-evidence … (default: True)`` read as if the flag were on by default)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        help_text = action.help or ""
        empty = action.default is None or action.default is False or action.default == []
        if empty or action.nargs == 0 or action.default == argparse.SUPPRESS or "default" in help_text.lower():
            return help_text
        return super()._get_help_string(action) or help_text


def build_parser() -> argparse.ArgumentParser:
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
        code = args.func(args)
        sys.stdout.flush()  # output still buffered meets a closed pipe here, not in the interpreter's exit
        return code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_went_away()


def _reader_went_away() -> int:
    """``react-text parse … | head``: the reader closed the pipe, which is no error of ours.

    Further output goes to /dev/null so the interpreter's last flush at exit cannot raise
    again; the exit status is the shell's for a broken pipe (128 + SIGPIPE)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141
