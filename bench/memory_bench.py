"""Memory: peak resident memory of ``react-text run`` per installed catalog model, and the parser's
peak allocation on 1 MB and 10 MB inputs.

(a) Each run is a child process; its peak RSS comes from ``os.wait4`` (the
kernel's ``ru_maxrss`` for that child alone). For scale, the same for
``import react_text`` and for a run whose model sits behind HTTP (the fake
completion server), i.e. the harness without a model in process.

(b) ``tracemalloc`` peak of ``react_text.parse`` on each input, after the input
string itself was allocated: what parsing adds, and that ratio to the input size.

    python bench/memory_bench.py            # both parts
    python bench/memory_bench.py --parser   # (b) only: no model needed
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from react_text.protocol.parser import parse  # noqa: E402

MB = 1_000_000
QUESTION = "What is 37 * 91 + 12?"


def child_peak_rss(argv: list[str], timeout_s: float) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, exit code) of one child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = started + timeout_s
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_maxrss / 1024, time.perf_counter() - started, proc.returncode
        if time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return usage.ru_maxrss / 1024, time.perf_counter() - started, -9
        time.sleep(0.05)


def rss_table(timeout_s: float) -> list[str]:
    from react_text.backends.fake_server import FakeCompletionServer
    from react_text.catalog import list_models

    run = [sys.executable, "-m", "react_text.cli.main", "run", QUESTION, "--max-steps", "3", "--max-turn-tokens", "64",
           "--json", "--trace", os.devnull]
    rows = [("python -c 'import react_text'", [sys.executable, "-c", "import react_text"])]
    with FakeCompletionServer(latency_s=0.01, slots=1) as fake:
        rows.append(("react-text run, model behind HTTP (fake server)",
                     run + ["--backend", "http", "--url", fake.url, "--api", "llama"]))
        out = ["| process | peak RSS | wall s | exit |", "|---|---|---|---|"]
        for label, argv in rows:
            rss, wall, code = child_peak_rss(argv, timeout_s)
            out.append(f"| {label} | {rss:.0f} MB | {wall:.1f} | {code} |")
            print(out[-1], flush=True)
    for model in sorted(list_models(), key=lambda m: m.size or 0):  # smallest first
        if not model.installed:
            out.append(f"| react-text run --model {model.name} | (not installed) | | |")
            continue
        rss, wall, code = child_peak_rss(run + ["--model", model.name], timeout_s)
        size = f"{model.size / 1e6:.0f} MB file" if model.size else "?"
        out.append(f"| react-text run --model {model.name} ({size}) | {rss:.0f} MB | {wall:.1f} | {code} |")
        print(out[-1], flush=True)
    return out


def _random_unicode(n_bytes: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    alphabet = [chr(c) for r in ((0x20, 0x7E), (0x4E00, 0x4FFF), (0x400, 0x4FF)) for c in range(*r)] + list("\n{}[]\":：")
    out, size = [], 0
    while size < n_bytes:
        chunk = rng.choices(alphabet, k=4096)
        out.extend(chunk)
        size += len("".join(chunk).encode("utf-8"))
    return "".join(out)


SHAPES = {
    "long JSON action input": lambda n: 'Thought: write it down.\nAction: search\nAction Input: {"query": "'
                                        + "varnholt ferry " * (n // 15) + '"}',
    "one line, no newline": lambda n: "Thought: " + "a" * n,
    "'{' repeated": lambda n: "{" * n,
    "'Action:' lines": lambda n: "Action:\n" * (n // 8),
    "unterminated JSON string": lambda n: '{"action": "search", "action_input": "' + "a" * n,
    "random unicode": _random_unicode,
}


def parser_table(sizes: list[int]) -> list[str]:
    out = ["| input | size | parse peak (tracemalloc) | peak / input | seconds |", "|---|---|---|---|---|"]
    for name, make in SHAPES.items():
        for n in sizes:
            text = make(n)
            size = len(text.encode("utf-8"))
            tracemalloc.start()
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            started = time.perf_counter()
            parse(text, ["search", "calculator"])
            seconds = time.perf_counter() - started
            peak = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            out.append(f"| {name} | {size / MB:.1f} MB | {peak / MB:.1f} MB | {peak / size:.2f} | {seconds:.2f} |")
            del text
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--parser", action="store_true", help="only the parser part (no model runs)")
    p.add_argument("--timeout", type=float, default=1200.0, help="seconds per child run")
    args = p.parse_args(argv)
    if not args.parser:
        print(f"(a) peak resident memory of one `react-text run \"{QUESTION}\"` (max 3 steps), per process\n",
              flush=True)
        print("\n".join(rss_table(args.timeout)))
        print()
    print("(b) parser peak allocation beyond the input itself\n")
    print("\n".join(parser_table([MB, 10 * MB])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
