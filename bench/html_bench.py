#!/usr/bin/env python3
"""How long ``html_to_text`` (what ``fetch`` turns a page into) takes on hostile 1 MB pages.

    python bench/html_bench.py [--runs 3] [--stdlib]

Each hostile shape floods one construct a tokenizer could re-scan (an unclosed
tag, quote, comment, raw-text element); an ordinary page repeated to 1 MB is
the yardstick. CPU seconds (``time.process_time``) per MB, best of ``--runs``:
the machine is shared, and wall time there measures waiting for a core.
``--stdlib`` also times the standard library's ``html.parser`` (what fetch used
before issue 26) on the first shape at 6 kB, 12 kB and 24 kB: each doubling
costs about four times as much, so its 1 MB figure would be hours.

Exits 1 when a page takes 1 s of CPU per MB or more (fetch reads at most 0.5 MB).
"""

from __future__ import annotations

import argparse
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from react_text.tools.html_text import html_to_text  # noqa: E402

MB = 1_000_000
TARGET_S = 1.0  # per MB
PAGE = ("<!doctype html><html><head><title>Ferry</title><style>p {color: red}</style></head><body>"
        "<nav><a href='/'>Home</a></nav><h1>Timetable</h1><p>The first ferry leaves at <b>06:40</b>.</p>"
        "<ul><li>Weekdays</li><li>Sundays: no service</li></ul><script>var a = 1 < 2;</script></body></html>")

SHAPES: dict[str, Callable[[], str]] = {
    "ordinary page x1 MB": lambda: PAGE * (MB // len(PAGE)),
    "'<a ' (issue 26)": lambda: "<a " * (MB // 3),
    "'<a href=\"' unclosed quotes": lambda: '<a href="' * (MB // 9),
    "\"<a ='\" quote after =": lambda: "<a ='" * (MB // 5),
    "'<!--' unclosed comments": lambda: "<!--" * (MB // 4),
    "'</' end-tag openers": lambda: "</" * (MB // 2),
    "'<!' and '<?'": lambda: "<!<?" * (MB // 4),
    "'<' alone": lambda: "<" * MB,
    "'<script>' unclosed": lambda: "<script>" * (MB // 8),
    "'<p>x' tag flood": lambda: "<p>x" * (MB // 4),
    "'&#' references": lambda: "&#" * (MB // 2),
    "one tag, 1 MB of '= '": lambda: "<a " + "= " * (MB // 2),
}


def best_cpu(run: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def stdlib(page: str) -> None:
    parser = HTMLParser(convert_charrefs=True)
    parser.feed(page)
    parser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="repetitions; the best one counts (default 3)")
    ap.add_argument("--stdlib", action="store_true", help="also time html.parser on small '<a ' pages")
    args = ap.parse_args(argv)

    failed = False
    print(f"html_to_text, best of {args.runs}; target < {TARGET_S} s of CPU per MB")
    print(f"| {'page':<30} | {'size':>8} | {'cpu s':>7} | {'cpu s/MB':>8} | target |")
    print(f"|{'-' * 32}|{'-' * 10}|{'-' * 9}|{'-' * 10}|--------|")
    for name, make in SHAPES.items():
        page = make()
        cpu = best_cpu(lambda: html_to_text(page), args.runs)
        per_mb = cpu / (len(page) / MB)
        ok = per_mb < TARGET_S
        failed |= not ok
        print(f"| {name:<30} | {len(page) / MB:5.2f} MB | {cpu:7.3f} | {per_mb:8.3f} | {'ok' if ok else 'MISSED':<6} |")
    if args.stdlib:
        print()
        print("html.parser (before) on '<a ' * n, one run each")
        for n in (2_000, 4_000, 8_000):
            page = "<a " * n
            print(f"  {len(page) / 1000:4.0f} kB: {best_cpu(lambda: stdlib(page), 1):6.2f} s of CPU")
    print()
    print("all targets met" if not failed else "TARGET MISSED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
