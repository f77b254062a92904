"""What does default redaction cost a run? A 40-step scripted run, traced with and without it.

A scripted model calls a tool 40 times, each result ~2,000 characters, and
the run writes its trace; the same run is timed with the default redaction
(``Agent()``) and with ``redact=False``, best of ``--repeat``. Also: the
time to mask one 32,000-character prompt. Only the ratio matters.

    python bench/redaction_bench.py [--steps 40] [--repeat 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.backends.scripted import ScriptedBackend
from react_text.prompting.templates import load_template
from react_text.protocol.dialects import format_action, format_final
from react_text.redaction import Redactor
from react_text.tools.spec import tool

KEY = "sk-live-0123456789abcdefABCDEF"


@tool
def lookup(word: str, api_key: str = "") -> str:
    """Look a word up."""
    return f"{word}: " + "a plain sentence about the word, " * 60


def one_run(steps: int, folder: Path, redact: object) -> tuple[float, int]:
    turns = [f" Next.\n{format_action('classic', 'lookup', {'word': f'w{i}', 'api_key': KEY})}" for i in range(steps)]
    turns.append(f" Done.\n{format_final('classic', 'done')}")
    trace = folder / f"run-{redact}.jsonl"
    agent = Agent(ScriptedBackend(turns), [lookup], load_template("classic"), trace=trace, redact=redact,
                  limits=Limits(max_steps=steps + 1, timeout_s=600))
    started = time.perf_counter()
    agent.run(f"look up {' '.join(f'w{i}' for i in range(steps))} with api_key={KEY}")
    return time.perf_counter() - started, trace.read_text().count(KEY)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for redact in (False, None):
            best = min(one_run(args.steps, folder, redact) for _ in range(args.repeat))
            label = "redact=False  " if redact is False else "default redact"
            print(f"{label}: {best[0]:.3f} s for {args.steps} steps, {best[1]} copies of the key in the trace")
    prompt = ("Thought: a plain line of a long prompt with numbers 12345 and words.\n" * 500)[:32_000]
    started = time.perf_counter()
    for _ in range(20):
        Redactor().text(prompt)
    print(f"mask one 32,000-character prompt: {(time.perf_counter() - started) / 20 * 1000:.2f} ms")


if __name__ == "__main__":
    main()
