"""Do the actions of one turn run together? Three 1-second tools in one turn.

One scripted model turn calls three tools that each take one second
(``time.sleep``, so the two cores are free for the rest); the agent runs with
``Limits(max_parallel_tools=3)``. The same turn is timed three ways in one
run, so only the ratios matter:

- independent tools: expected ~1 s of tool time;
- the same tools declared ``side_effects=True``: they must run one at a time,
  in order, so ~3 s;
- ``calling.call_tools`` directly with one worker and with three.

Target (issue 13): independent tools take well under half the time of the
sequential ones (ideal 1/3). Exits 1 when missed.

    python bench/parallel_bench.py [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import sys
import time

from react_text.backends.scripted import ScriptedBackend
from react_text.tools.calling import ToolCall, call_tools
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.prompting.templates import load_template
from react_text.tools.spec import tool

NAMES = ("weather", "stock", "news")


def slow_tools(seconds: float, *, side_effects: bool) -> list:
    made = []
    for name in NAMES:
        def fn(query: str, _name: str = name) -> str:
            time.sleep(seconds)
            return f"{_name} for {query}: fine"
        made.append(tool(fn, name=name, description=f"Look up the {name}.", side_effects=side_effects,
                         timeout=seconds * 10))
    return made


def one_turn_run(seconds: float, *, side_effects: bool) -> tuple[float, float, str]:
    """(tool seconds, wall seconds, status) of a run whose first turn calls all three tools."""
    turn = " I need all three.\n" + "\n".join(format_action("classic", n, {"query": "Oslo"}) for n in NAMES)
    backend = ScriptedBackend([turn, " Got them.\n" + format_final("classic", "all fine")])
    agent = Agent(backend, slow_tools(seconds, side_effects=side_effects), load_template("classic"),
                  limits=Limits(max_parallel_tools=3))
    started = time.perf_counter()
    result = agent.run("Weather, stock and news for Oslo?")
    return result.totals.tool_seconds, time.perf_counter() - started, result.status


def direct(seconds: float, workers: int) -> float:
    calls = [ToolCall(f"1.{i}", t, "Oslo") for i, t in enumerate(slow_tools(seconds, side_effects=False), 1)]
    started = time.perf_counter()
    results = call_tools(calls, max_workers=workers)
    assert all(r.observation.ok for r in results)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="how long each tool takes")
    args = ap.parse_args(argv)
    s = args.seconds

    together, wall_together, status_a = one_turn_run(s, side_effects=False)
    apart, wall_apart, status_b = one_turn_run(s, side_effects=True)
    one, three = direct(s, 1), direct(s, 3)
    print(f"three {s:g}-second tools in one turn, Agent(limits=Limits(max_parallel_tools=3)), scripted model:")
    print(f"  independent tools (run together):        tools {together:5.2f} s, run {wall_together:5.2f} s, "
          f"{status_a}")
    print(f"  side_effects=True (one at a time, order): tools {apart:5.2f} s, run {wall_apart:5.2f} s, {status_b}")
    print(f"  ratio sequential / together: {apart / together:.2f}x (ideal 3x)")
    print(f"calling.call_tools directly: 1 worker {one:5.2f} s, 3 workers {three:5.2f} s, "
          f"ratio {one / three:.2f}x")
    ok = together < apart / 2 and three < one / 2 and status_a == status_b == "answered"
    if not ok:
        print("MISSED: running together was not clearly faster than one at a time")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
