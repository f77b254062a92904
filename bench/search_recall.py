"""Search recall@k without a model: does the search tool show the facts a task needs?

For every task of a suite that lists ``search`` and needs the corpus (``react_text.eval.search_recall``
says which facts that is), the question is sent to the search tool twice -- as asked, and with its
question words stripped -- and the text the model would be shown (the tool's default top k, cut to
the agent's observation limit) is checked for every fact. Prints recall (all facts shown) per split,
language, category and number of facts, and the characters shown. Deterministic; no model is loaded.

    python bench/search_recall.py                          # every shipped suite
    python bench/search_recall.py --suite my.jsonl --totals  # any suite file: aggregate rows only
    python bench/search_recall.py --split dev --misses       # the dev tasks missed, to read
    python bench/search_recall.py --ranking baseline         # the search as it was before issue 25
    python bench/search_recall.py --suite bench/search_probe.jsonl  # 29 paraphrased questions of our own

``bench/search_probe.jsonl`` holds questions over the shipped corpus worded unlike it ("people work
at the observatory", "the home ground of the Anchors"), all ``dev``: for building on, not for figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from react_text.agent.state import Limits
from react_text.eval.search_recall import QUERY_KINDS, Probe, facts_of, probe
from react_text.eval.suites import builtin_corpus_dir, load_suite
from react_text.protocol.results import result_lines
from react_text.tools.calling import call_tool
from react_text.tools.search import RANKINGS, search_files

SUITES = sorted(str(p) for p in (Path(__file__).resolve().parents[1] / "suites").glob("*.jsonl"))


def corpus_text(folder: Path) -> str:
    """Every searchable file of the corpus, joined: where a fact must occur to be findable at all."""
    return "\n\n".join(p.read_text(encoding="utf-8", errors="replace")
                       for p in sorted(folder.rglob("*")) if p.suffix.lower() in (".txt", ".md"))


def measure(suite_files: list[str], corpus: Path | None, split: str, ranking: str
            ) -> tuple[list[tuple[object, list[Probe]]], dict[str, int], list[str]]:
    """(task, probes) for every task that needs the corpus, counts of those skipped by reason, and what
    the question of each refusal task is shown (a figure about a neighbour there invites a guess)."""
    suite = load_suite(suite_files, known_tools=None)
    folder = corpus or suite.corpus_dir or builtin_corpus_dir()
    text = corpus_text(folder)
    tool = search_files(folder, ranking=ranking)
    first = search_files(folder, ranking=ranking, max_results=1)
    limit = min(Limits().max_observation_chars, tool.max_chars)

    def search(query: str) -> str:
        return call_tool(tool, {"query": query}, max_chars=limit).text

    def search_first(query: str) -> str:
        return call_tool(first, {"query": query}, max_chars=limit).text

    measured, skipped, refusals = [], defaultdict(int), []
    for task in suite.tasks:
        if split != "all" and task.split != split:
            continue
        if "search" not in task.tools:
            continue
        facts = facts_of(task, text)
        if not facts:
            skipped["refusal" if task.match == "refusal" else "nothing in the corpus to find"] += 1
            if task.match == "refusal":
                refusals.append(search(task.question))
            continue
        measured.append((task, probe(task, facts, search) + probe(task, facts, search_first, kinds=("question",))))
    return measured, dict(skipped), refusals


def _groups(task, facts: int) -> list[str]:
    return ["all", f"split {task.split or '-'}", f"lang {task.lang}", f"category {task.category}",
            "2+ facts" if facts > 1 else "1 fact"]


def table(measured, totals_only: bool) -> list[str]:
    rows: dict[str, list[list[Probe]]] = defaultdict(list)
    for task, probes in measured:
        for group in _groups(task, probes[0].facts):
            rows[group].append(probes)
    order = sorted(rows, key=lambda g: (g != "all", g.split()[0] != "split", g.split()[0] != "lang", g))
    if totals_only:
        order = [g for g in order if not g.startswith("split") or g == "all"]
    head = " | ".join(f"recall@k ({kind})" for kind in QUERY_KINDS)
    lines = [f"| tasks | n | {head} | recall@1 (question) | facts shown (question) | chars shown (mean, max) |",
             "|---|---|" + "---|" * len(QUERY_KINDS) + "---|---|---|"]
    for group in order:
        cells = rows[group]
        recalls = []
        for i in range(len(QUERY_KINDS) + 1):
            hits = sum(1 for probes in cells if probes[i].hit)
            recalls.append(f"{hits}/{len(cells)} ({100 * hits / len(cells):.0f}%)")
        found = sum(p[0].found for p in cells)
        facts = sum(p[0].facts for p in cells)
        chars = [p[i].chars for p in cells for i in range(len(QUERY_KINDS))]
        lines.append(f"| {group} | {len(cells)} | {' | '.join(recalls)} | {found}/{facts} "
                     f"| {statistics.mean(chars):.0f}, {max(chars)} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", nargs="+", default=SUITES, help="suite files (default: every shipped suite)")
    p.add_argument("--corpus", type=Path, default=None,
                   help="corpus folder (default: corpus/ beside the suite, else the shipped corpus)")
    p.add_argument("--split", choices=("dev", "test", "all"), default="all")
    p.add_argument("--ranking", choices=RANKINGS, default=RANKINGS[0], help="the search tool's ranking")
    p.add_argument("--totals", action="store_true", help="aggregate rows only, no split rows (for held-out files)")
    p.add_argument("--misses", action="store_true",
                   help="also list each dev task not fully shown, with its queries (never a test or unsplit task)")
    args = p.parse_args(argv)
    measured, skipped, refusals = measure(args.suite, args.corpus, args.split, args.ranking)
    if not measured:
        print("no task needs the corpus")
        return 1
    print(f"ranking {args.ranking}; split {args.split}; {len(measured)} tasks need the corpus; skipped: "
          + (", ".join(f"{n} {why}" for why, n in sorted(skipped.items())) or "none") + "\n")
    print("\n".join(table(measured, args.totals)))
    if refusals:
        print(f"\nrefusal tasks (the question as query): {len(refusals)}, results shown "
              f"{statistics.mean(len(result_lines(r)) for r in refusals):.1f} on average, "
              f"chars shown {statistics.mean(map(len, refusals)):.0f} on average")
    if args.misses:  # dev tasks only: test and held-out tasks are for figures, never for reading
        print()
        for task, probes in measured:
            for pr in probes[:len(QUERY_KINDS)] if task.split == "dev" else ():
                if not pr.hit:
                    print(f"- {task.id} [{pr.query_kind}] {pr.found}/{pr.facts} shown, {pr.chars} chars: {pr.query}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
