"""``react-text compare``: run a task suite across templates and models, then write and print the report."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Sequence

from ..catalog import DEFAULT_MODEL
from ..eval import metrics, report
from ..eval.compare import run_ablation, run_compare, write_ablation, write_report
from ..checks import CHECKS, DEFAULT_CHECKS, NO_CHECKS, CheckName, describe
from ..eval.planning import CHECKS_LABEL, CompareError, CompareSpec, planned_task_ids, select
from ..eval.records import load_results
from ..eval.splits import SELECTIONS
from ..redaction import Redactor
from .options import (
    add_checks_option,
    add_functions_option,
    add_long_run_options,
    add_redaction_options,
    add_retrieval_options,
    add_search_ranking_option,
    add_template_options,
    redaction,
    tool_cache,
    with_template_hint,
)


def add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="run a task suite across templates and models and report")
    p.add_argument("--templates", nargs="+", default=["classic", "json", "call", "paper", "zh"],
                   help="template names or .j2 paths, and no-agent baselines to measure them against: "
                        "rag, rag+calc, direct, plain (react_text.eval.baselines)")
    add_template_options(p, template=False)
    p.add_argument("--models", nargs="+", default=None, help="catalog names or GGUF paths (default: the default model)")
    add_functions_option(p)
    p.add_argument("--corpus", default=None, metavar="DIR",
                   help="folder of .txt/.md files the search tool reads instead of the suite's own corpus")
    add_search_ranking_option(p)
    p.add_argument("--suite", default="all",
                   help="built-in suite name(s) joined by commas, 'all', a JSONL file, or bfcl:CATEGORIES "
                        "(BFCL's simple_python,multiple,parallel,...; needs `pip install --no-deps "
                        "bfcl-eval==2026.3.23`)")
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
    p.add_argument("--top-k", type=int, default=3, help="search results the rag baselines put in their prompt")
    p.add_argument("--split", choices=SELECTIONS, default="all",
                   help="only the suite's dev or test tasks (the shipped suites give each task one); figures to "
                        "report come from test. Default all: every task, so a suite of your own needs no split")
    p.add_argument("--per-group", type=int, default=None,
                   help="only the first N tasks of each (category, language): a stratified sample")
    p.add_argument("--report-only", action="store_true",
                   help="rebuild the report in --out from its results.jsonl with this version's code; run nothing")
    add_long_run_options(p)
    add_redaction_options(p)
    add_retrieval_options(p)
    add_checks_option(p)
    p.add_argument("--ablate", action="store_true",
                   help="per template, cells with the --checks set, with no checks, and with each of its checks off "
                        "(labelled e.g. 'classic checks=-rounding')")
    p.set_defaults(func=_cmd_compare)


def cell_labels(templates: Sequence[str], checks: frozenset[CheckName], *, ablate: bool = False) -> tuple[str, ...]:
    """The report's cells per template: ``classic`` (the default checks), ``classic checks=-rounding``, ...; with
    ``ablate``, the ``checks`` set, none, and the set with each of its checks off."""
    labels = []
    for base, cells in ablation_cells(templates, checks).items():
        labels += [base, *(cells if ablate else ())]
    return tuple(dict.fromkeys(labels))


def ablation_cells(templates: Sequence[str], checks: frozenset[CheckName]) -> dict[str, dict[str, frozenset[str]]]:
    """Per template, its cell with the ``checks`` set -> {the label of each ablation cell (none, and each
    check off): the checks that cell switches off}."""
    variants = [NO_CHECKS, *(checks - {c.name} for c in CHECKS if c.name in checks)]
    return {_label(template, checks): {_label(template, v): frozenset(checks - v) for v in variants if v != checks}
            for template in templates}


def _label(template: str, checks: frozenset[CheckName]) -> str:
    return template if checks == DEFAULT_CHECKS else f"{template}{CHECKS_LABEL}{describe(checks)}"


def _cmd_compare(args: argparse.Namespace) -> int:
    spec = CompareSpec(
        templates=cell_labels(args.templates, args.checks, ablate=args.ablate),
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
        split=args.split,
        top_k=args.top_k,
        search_ranking=args.search_ranking,
        parallel_tools=args.parallel,
        tool_cache=None if args.cache is None else str(tool_cache(args).folder),
        context_tokens=args.ctx,
        tool_retrieval=args.tool_retrieval,
        max_shown_tools=args.max_shown_tools,
        functions=tuple(args.functions),
        corpus=args.corpus,
        template_dirs=tuple(args.templates_dir),
        redact=redaction(args),
    )
    # The command that makes these results: a report rebuilt later names the run, not the rebuild.
    argv = [a for a in args.argv if a != "--report-only"]
    command = Redactor().text("react-text " + " ".join(shlex.quote(a) for a in argv)) if argv else None
    try:
        if args.report_only:
            records = select(load_results(spec.out_dir / "results.jsonl"), spec, planned_task_ids(spec))
        else:
            records = run_ablation(spec, ablation_cells(args.templates, args.checks)) if args.ablate else run_compare(spec)
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
    paths = write_report(records, spec.out_dir, command=command, split=spec.split)
    if args.ablate:
        write_ablation(records, spec.out_dir, ablation_cells(args.templates, args.checks))
    print(report.terminal_table(metrics.summarize(records)))
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    print(f"traces: react-text traces --dir {shlex.quote(str(spec.out_dir))}")
    return 0
