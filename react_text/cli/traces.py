"""``react-text replay`` and ``react-text traces``: past runs, read back from their JSONL traces.

A replay prints a trace with the same console a live run uses, so it reads
exactly like the run did, and exits as the run did.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ..trace import TraceError, read_trace
from .console import Console, visible
from .history import HistoryError, find_run, list_runs, parse_age, prune, traces_dir
from .run import exit_code


def add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="print a past run from its JSONL trace")
    p.add_argument("file", help="trace file written by `react-text run` (or Agent(trace=...))")
    p.add_argument("--raw", action="store_true", help="also print each raw model turn")
    p.set_defaults(func=_cmd_replay)


def _cmd_replay(args: argparse.Namespace) -> int:
    try:
        events = read_trace(args.file)
    except TraceError as exc:
        return _fail("replay", str(exc))
    if not events:
        return _fail("replay", f"{args.file} holds no events")
    console = Console(sys.stdout, raw=args.raw)
    for number, event in enumerate(events, 1):
        try:
            console(event)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
            return _fail("replay", f"{args.file}: event {number} ({str(event.get('event'))[:40]!r}) is malformed "
                                   f"({type(exc).__name__}); is this a react-text trace?")
    end = next((e for e in reversed(events) if e.get("event") == "run_end"), None)
    if end is None:
        print("(the trace ends without run_end: the run crashed or is still running)")
        return 1
    return exit_code(end.get("status"), str(end.get("reason", "")), "replay")


def _fail(command: str, message: str) -> int:
    """Print one error line (file names and ids from disk made visible, never interpreted) and return 2."""
    print(visible(f"react-text {command}: {message}"), file=sys.stderr)
    return 2


def add_traces(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("traces", help="past runs: list them (newest first), show one, prune old ones",
                       description="Past runs (react-text run, serve, Python), from their traces in the user "
                                   "trace folder ($REACT_TEXT_TRACES, else $REACT_TEXT_HOME/traces, else "
                                   "~/.cache/react-text/traces). `react-text compare` keeps its traces with its "
                                   "results: list them with --dir OUT (its --out folder).")
    p.add_argument("action", nargs="?", choices=("list", "show", "prune", "path"), default="list",
                   help="list; show ID (prints it like replay); prune --older-than AGE; path (the folder)")
    p.add_argument("id", nargs="?", help="for show: a number from the list (1 = newest), an id or its prefix")
    p.add_argument("-n", "--limit", type=int, default=20, help="list at most this many runs (0: all)")
    p.add_argument("--older-than", default=None, metavar="AGE", help="for prune: like 30d, 12h, 2w")
    p.add_argument("--dry-run", action="store_true", help="for prune: say what would go, delete nothing")
    p.add_argument("--raw", action="store_true", help="for show: also print each raw model turn")
    p.add_argument("--json", action="store_true", help="for list: JSON lines")
    p.add_argument("--dir", default=None, metavar="DIR",
                   help="the runs traced in DIR and its sub-folders instead, like a compare --out folder")
    p.set_defaults(func=_cmd_traces)


def _cmd_traces(args: argparse.Namespace) -> int:
    folder = Path(args.dir).expanduser() if args.dir else traces_dir()
    if args.dir and not folder.is_dir():
        return _fail("traces", f"--dir {args.dir}: no such folder")
    if args.action == "path":
        print(visible(str(folder)))
        return 0
    skipped: list[str] = []
    runs = list_runs(folder, skipped=skipped)
    for note in skipped:
        print(visible(f"react-text traces: skipped {note}"), file=sys.stderr)
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
            print(visible(f"{verb} {len(gone)} of {len(runs)} traces older than {args.older_than} in {folder}"))
            return 0
    except (HistoryError, TraceError, OSError) as exc:
        return _fail("traces", str(exc))
    shown = runs if args.limit <= 0 else runs[: args.limit]
    if args.json:
        for i, r in enumerate(shown, 1):
            print(visible(json.dumps({"n": i, "id": r.id, "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(r.mtime)),
                              "status": r.status, "model": r.model, "template": r.template, "steps": r.steps,
                              "question": r.question, "path": str(r.path)}, ensure_ascii=False)))
        return 0
    if not runs:
        print(visible(f"no runs yet in {folder}"))
        return 0
    for i, r in enumerate(shown, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.mtime))
        question = r.question if len(r.question) <= 60 else r.question[:59] + "…"
        print(visible(f"{i:>3}  {when}  {r.status:<14} {r.model}  {r.template}  {question}"))
        print(visible(f"     {r.id}"))
    if len(shown) < len(runs):
        print(f"({len(runs) - len(shown)} older; -n 0 lists all)")
    return 0
