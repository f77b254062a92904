"""Harness throughput against a completion server with a fixed latency: does concurrency N give ~N×?

A ``FakeCompletionServer`` on 127.0.0.1 answers every request after
``--latency`` seconds, at most ``--slots`` at once (llama-server's
``--parallel``), with a scripted two-turn ReAct run. ``compare`` runs the same
tasks with concurrency 1, 2, 4, 8, 16 over HTTP; the table gives tasks per
second, the speedup over concurrency 1 and the efficiency against the best the
server allows (min(N, slots)). The goal is >= 0.8 until the server saturates.

    python bench/scale_bench.py --latency 0.25 --slots 8 --tasks 32
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from react_text.backends.fake_server import FakeCompletionServer
from react_text.eval.compare import run_compare
from react_text.eval.planning import CompareSpec


def measure(url: str, concurrency: int, tasks: int, out: Path) -> tuple[float, int, int]:
    """(wall seconds, tasks recorded, answered) for one compare run."""
    spec = CompareSpec(templates=("classic",), models=("fake",), suite="all", out_dir=out, backend="http",
                       urls=(url,), api="llama", concurrency=concurrency, limit=tasks, max_steps=4)
    started = time.perf_counter()
    records = run_compare(spec, progress_stream=open("/dev/null", "w"))
    wall = time.perf_counter() - started
    return wall, len(records), sum(1 for r in records if r["status"] == "answered")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--latency", type=float, default=0.25, help="seconds the fake server takes per request")
    p.add_argument("--slots", type=int, default=8, help="requests the fake server processes at once")
    p.add_argument("--tasks", type=int, default=32)
    p.add_argument("--levels", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    args = p.parse_args(argv)

    rows = []
    with FakeCompletionServer(latency_s=args.latency, slots=args.slots) as fake, \
            tempfile.TemporaryDirectory() as tmp:
        measure(fake.url, 1, 2, Path(tmp) / "warm-up")  # imports, suite and template compilation
        for n in args.levels:
            before = fake.answered
            wall, done, answered = measure(fake.url, n, args.tasks, Path(tmp) / f"c{n}")
            rows.append((n, wall, done, answered, fake.answered - before))
    base = rows[0][2] / rows[0][1]
    print(f"fake server: {args.latency:g} s per request, {args.slots} slots; {args.tasks} tasks "
          f"(2 model turns each) per run; harness over HTTP on 127.0.0.1\n")
    print("| concurrency | tasks | answered | requests | wall s | tasks/s | speedup | speedup / min(N, slots) "
          "| of the server's limit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, wall, done, answered, requests in rows:
        rate = done / wall
        speedup = rate / base * rows[0][0]
        ideal = min(n, args.slots)
        limit = ideal / args.latency / (requests / done)  # tasks/s if every slot were busy all the time
        print(f"| {n} | {done} | {answered} | {requests} | {wall:.2f} | {rate:.2f} | {speedup:.2f}x "
              f"| {speedup / ideal:.2f} | {rate / limit:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
