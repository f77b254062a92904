"""``react-text templates``: list the prompt templates, or show one rendered with the built-in tools."""

from __future__ import annotations

import argparse
import importlib.resources
import sys

from ..prompting.templates import TemplateError, list_templates
from ..tools.builtins import default_tools
from .options import load_template_with_hint


def add_templates(sub: argparse._SubParsersAction) -> None:
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
        template = load_template_with_hint(args.name, args.templates_dir)
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
    if corpus is None:
        bundled = importlib.resources.files("react_text.suites") / "corpus"
        corpus = str(bundled) if bundled.is_dir() else None
    return default_tools(corpus)
