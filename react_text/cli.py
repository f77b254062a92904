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


# --- parse -----------------------------------------------------------------

def _add_parse(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="parse one model turn (file or stdin) and print the Step as JSON")
    p.add_argument("file", nargs="?", help="file holding the turn; stdin when omitted or '-'")
    p.add_argument("--tools", nargs="*", default=None, help="valid tool names (enables name matching)")
    p.set_defaults(func=_cmd_parse)


def _cmd_parse(args: argparse.Namespace) -> int:
    from .parser import parse

    if args.file in (None, "-"):
        text = sys.stdin.read()
    else:
        with open(args.file, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    step = parse(text, tools=args.tools)
    print(json.dumps(asdict(step), ensure_ascii=False, indent=2))
    return 0 if step.error is None else 1


# --- main ------------------------------------------------------------------

_SUBCOMMANDS = [_add_parse]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="react-text", description=__doc__.splitlines()[0])
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
