"""``react-text parse``: read one model turn and print the Step as JSON, for scripts and other tools."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from ..protocol.dialects import DIALECTS
from ..protocol.parser import parse

_PARSE_EXIT_CODES = """exit codes:
  0  the turn parsed into a usable Step (an action or a final answer)
  1  it did not: Step.error is set (code and message are in the JSON)
  2  usage error: bad arguments, or the file cannot be read"""


def add_parse(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="parse one model turn (file or stdin) and print the Step as JSON",
                       description="Parse one model turn (file or stdin) and print the Step as JSON.",
                       epilog=_PARSE_EXIT_CODES)
    p.add_argument("file", nargs="?", help="file holding the turn; stdin when omitted or '-'")
    p.add_argument("--tools", nargs="*", default=None, help="valid tool names (enables name matching)")
    p.add_argument("--dialect", default="classic", choices=sorted(DIALECTS),
                   help="protocol style (and language: zh) of the error message's example")
    p.set_defaults(func=_cmd_parse)


def _cmd_parse(args: argparse.Namespace) -> int:
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
