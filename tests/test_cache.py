"""Identical calls are not run twice: within a run (any tool) and across runs (cacheable tools, opt-in).

Everything is checked by counting the real calls the tools receive.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from react_text.backends.scripted import ScriptedBackend
from react_text.cli.main import build_parser
from react_text.cli.options import tool_cache
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.decisions import Retry, RunTools
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.prompting.templates import load_template
from react_text.tools.cache import Hit, ToolCache, cache_key, default_cache_dir
from react_text.tools.spec import tool
from react_text.trace import read_trace


class Counter:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[tuple[str, object]] = []

    def add(self, name: str, value: object) -> None:
        with self.lock:
            self.calls.append((name, value))

    def count(self, name: str) -> int:
        return sum(1 for n, _ in self.calls if n == name)


def act(tool_name: str, args) -> str:
    return f" I will use {tool_name}.\n{format_action('classic', tool_name, args)}"


def acts(*calls) -> str:
    return " Several at once.\n" + "\n".join(format_action("classic", t, a) for t, a in calls)


def final(answer: str) -> str:
    return f" Done.\n{format_final('classic', answer)}"


@pytest.fixture
def counter() -> Counter:
    return Counter()


@pytest.fixture
def template():
    return load_template("classic")


def make_tools(counter: Counter, version: str = "1"):
    @tool(cacheable=True, version=version)
    def square(n: int) -> int:
        """Square a number."""
        counter.add("square", n)
        return n * n

    @tool
    def lookup(word: str) -> str:
        """Look a word up (not declared pure: never cached across runs)."""
        counter.add("lookup", word)
        return f"{word} means something"

    @tool(cacheable=True)
    def flaky(word: str) -> str:
        """Fails every time."""
        counter.add("flaky", word)
        raise ConnectionError("down")

    return [square, lookup, flaky]


# --- within a run ------------------------------------------------------------------

def test_repeat_is_answered_from_the_earlier_step_and_still_counts_as_no_progress(counter, template, tmp_path):
    turns = [act("lookup", {"word": "cat"}), act("lookup", "cat"), act("lookup", {"word": "cat"})]
    trace = tmp_path / "run.jsonl"
    result = Agent(ScriptedBackend(turns), make_tools(counter), template, trace=trace).run("cat?")
    assert counter.count("lookup") == 1  # "cat" and {"word": "cat"} are the same call
    assert result.status == "no_progress"
    repeat = result.steps[1]
    assert isinstance(repeat.decision, Retry) and repeat.decision.same_as == 1
    assert "(same result as step 1): cat means something" in repeat.observation_text
    hits = [e for e in read_trace(trace) if e["event"] == "cache_hit"]
    assert [(h["n"], h["scope"], h["same_as"]) for h in hits] == [(2, "run", "step 1")]


def test_turn_of_several_calls_runs_only_the_new_ones(counter, template, tmp_path):
    turns = [
        acts(("lookup", {"word": "cat"}), ("square", {"n": 3})),
        acts(("lookup", {"word": "cat"}), ("lookup", {"word": "dog"}), ("lookup", {"word": "dog"})),
        final("done"),
    ]
    trace = tmp_path / "run.jsonl"
    agent = Agent(ScriptedBackend(turns), make_tools(counter), template, limits=Limits(max_parallel_tools=4),
                  trace=trace)
    result = agent.run("words")
    assert result.status == "answered"
    assert counter.calls.count(("lookup", "cat")) == 1 and counter.calls.count(("lookup", "dog")) == 1
    second = result.steps[1]
    assert isinstance(second.decision, RunTools)
    assert [c.same_as for c in second.calls] == ["step 1", None, "2.2"]
    assert second.calls[0].shown == "(same result as step 1) cat means something"
    assert second.calls[2].shown == "(same result as call 2.2) dog means something"
    hits = [(e["call_id"], e["scope"]) for e in read_trace(trace) if e["event"] == "cache_hit"]
    assert hits == [("2.1", "run"), ("2.3", "run")]


def test_turn_of_only_repeats_is_no_progress(counter, template):
    turns = [acts(("lookup", {"word": "a"}), ("lookup", {"word": "b"})),
             acts(("lookup", {"word": "b"}), ("lookup", {"word": "a"})),
             acts(("lookup", {"word": "a"}), ("lookup", {"word": "b"}))]
    result = Agent(ScriptedBackend(turns), make_tools(counter), template,
                   limits=Limits(max_parallel_tools=2)).run("ab")
    assert counter.count("lookup") == 2
    assert result.status == "no_progress"
    assert isinstance(result.steps[1].decision, Retry)
    assert "(same result as step 1) b means something" in result.steps[1].observation_text


# --- across runs -------------------------------------------------------------------

def run_once(counter, template, cache, turns, version="1", trace=None, question="q"):
    agent = Agent(ScriptedBackend(turns), make_tools(counter, version), template, tool_cache=cache, trace=trace)
    return agent.run(question)


def test_cacheable_results_are_reused_across_runs(counter, template, tmp_path):
    cache = ToolCache(tmp_path / "cache")
    first = run_once(counter, template, cache, [act("square", {"n": 12}), final("144")], question="12 squared?")
    trace = tmp_path / "second.jsonl"
    second = run_once(counter, template, cache, [act("square", "12"), final("144")], trace=trace,
                      question="12 squared?")
    assert first.status == second.status == "answered"
    assert counter.count("square") == 1
    assert second.steps[0].observation_text == "144"
    events = read_trace(trace)
    assert [e["scope"] for e in events if e["event"] == "cache_hit"] == ["disk"]
    assert [e["cached"] for e in events if e["event"] == "observation"] == [True]


def test_a_new_version_or_a_new_folder_computes_again(counter, template, tmp_path):
    cache = ToolCache(tmp_path / "cache")
    run_once(counter, template, cache, [act("square", {"n": 5}), final("25")], question="5 squared?")
    run_once(counter, template, cache, [act("square", {"n": 5}), final("25")], version="2",
             question="5 squared?")
    run_once(counter, template, ToolCache(tmp_path / "other"), [act("square", {"n": 5}), final("25")], question="5 squared?")
    run_once(counter, template, None, [act("square", {"n": 5}), final("25")], question="5 squared?")
    assert counter.count("square") == 4
    run_once(counter, template, cache, [act("square", {"n": 5}), final("25")], version="2",
             question="5 squared?")
    assert counter.count("square") == 4


def test_tools_not_declared_pure_and_failures_are_never_stored(counter, template, tmp_path):
    cache = ToolCache(tmp_path / "cache")
    for _ in range(2):
        run_once(counter, template, cache, [act("lookup", {"word": "x"}), act("flaky", {"word": "y"}), final("?")])
    assert counter.count("lookup") == 2 and counter.count("flaky") == 2
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_a_damaged_entry_is_a_miss_and_is_rewritten(counter, template, tmp_path):
    cache = ToolCache(tmp_path / "cache")
    square = make_tools(counter)[0]
    assert cache.put(square, {"n": 7}, 49)
    (entry,) = (tmp_path / "cache").rglob("*.json")
    assert json.loads(json.loads(entry.read_text())["payload"])["tool"][-2:] == ["version", "1"]
    entry.write_text('{"payload": "{\\"format')
    assert cache.get(square, {"n": 7}) is None
    run_once(counter, template, cache, [act("square", {"n": 7}), final("49")], question="7 squared?")
    assert counter.count("square") == 1
    assert cache.get(square, "7") == Hit(49)


def test_cache_key_is_the_bound_arguments():
    @tool(cacheable=True, version="3")
    def area(width: int, height: int = 1) -> int:
        """Area."""
        return width * height

    assert cache_key(area, {"width": "4"}) == cache_key(area, {"width": 4, "height": 1}) is not None
    assert cache_key(area, {"width": 4, "height": 2}) != cache_key(area, {"width": 4})
    assert cache_key(area, {"depth": 1, "size": 2}) is None  # does not bind: never cached
    assert cache_key(tool(lambda x: x, name="impure"), "x") is None


def test_cli_cache_flags(tmp_path, monkeypatch):
    monkeypatch.setenv("REACT_TEXT_HOME", str(tmp_path / "home"))
    parse = build_parser().parse_args
    assert tool_cache(parse(["run", "q"])) is None
    assert tool_cache(parse(["run", "q", "--cache"])).folder == tmp_path / "home" / "tool-cache" == default_cache_dir()
    assert tool_cache(parse(["run", "q", "--cache", str(tmp_path / "c")])).folder == tmp_path / "c"
    assert tool_cache(parse(["run", "q", "--cache", str(tmp_path / "c"), "--no-cache"])) is None
    assert tool_cache(parse(["compare", "--cache", str(tmp_path / "d")])).folder == tmp_path / "d"


# --- from the command line ---------------------------------------------------------------

class _ScriptedServer(BaseHTTPRequestHandler):
    """A llama-server stand-in on loopback: /completion plays a script; no /props, no /tokenize."""

    turns: list[str] = []
    served: list[str] = []

    def log_message(self, *args) -> None:
        pass

    def _reply(self, status: int, data: dict) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._reply(404, {"error": "not found"})

    def do_POST(self) -> None:
        data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/completion":
            self._reply(404, {"error": "not found"})
            return
        turn = self.turns[len(self.served) % len(self.turns)]
        self.served.append(data["prompt"])
        self._reply(200, {"content": turn, "tokens_evaluated": 10, "tokens_predicted": 5, "stop_type": "eos"})


def test_cli_run_with_parallel_cache_and_ctx(tmp_path):
    turns = [acts(("calculator", {"expression": "37*91"}), ("calculator", {"expression": "2+2"})), final("3367 and 4")]
    handler = type("Handler", (_ScriptedServer,), {"turns": turns, "served": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        traces = []
        for i in range(2):
            trace = tmp_path / f"run{i}.jsonl"
            proc = subprocess.run(
                [sys.executable, "-m", "react_text.cli", "run", "What are 37*91 and 2+2?", "--backend", "http",
                 "--api", "llama", "--url", url, "--tools", "calculator", "--parallel", "2",
                 "--cache", str(tmp_path / "cache"), "--ctx", "3000", "--trace", str(trace)],
                capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, proc.stderr + proc.stdout
            traces.append(read_trace(trace))
    finally:
        server.shutdown()
        server.server_close()
    first, second = traces
    start = first[0]
    assert start["limits"]["max_parallel_tools"] == 2 and start["context_tokens"] == 3000
    assert sorted(e["call_id"] for e in first if e["event"] == "tool_call") == ["1.1", "1.2"]
    assert not [e for e in first if e["event"] == "cache_hit"]
    assert [e["scope"] for e in second if e["event"] == "cache_hit"] == ["disk", "disk"]
    shown = [e["shown"] for e in second if e["event"] == "observation"]
    assert sorted(shown) == ["3367", "4"]


def test_compare_runs_tasks_with_parallel_calls_the_cache_and_a_context_window(tmp_path):
    from react_text.eval import compare
    from react_text.eval.planning import CompareSpec

    suite = tmp_path / "mini.jsonl"
    suite.write_text(json.dumps({"id": "t1", "question": "What are 37*91 and 2+2?", "expected": 3367,
                                 "match": "number", "tools": ["calculator"], "lang": "en",
                                 "category": "arithmetic"}) + "\n", encoding="utf-8")
    script = [acts(("calculator", {"expression": "37*91"}), ("calculator", {"expression": "2+2"})), final("3367")]

    def run(out: str) -> list[dict]:
        spec = CompareSpec(templates=("classic",), models=("fake",), suite=str(suite), out_dir=tmp_path / out,
                           backend="http", urls=("http://127.0.0.1:9",), parallel_tools=2,
                           tool_cache=str(tmp_path / "cache"), context_tokens=3000)
        (record,) = compare.run_compare(spec, backend_factory=lambda model, worker: ScriptedBackend(script),
                                        progress_stream=open("/dev/null", "w"))
        assert record["correct"], record
        return read_trace(record["trace"])

    first, second = run("a"), run("b")
    assert first[0]["limits"]["max_parallel_tools"] == 2 and first[0]["context_tokens"] == 3000
    assert sorted(e["call_id"] for e in first if e["event"] == "tool_call") == ["1.1", "1.2"]
    assert [e["scope"] for e in second if e["event"] == "cache_hit"] == ["disk", "disk"]


def test_the_first_writers_racing_for_the_key_all_store(tmp_path):
    """Parallel tool calls may make a fresh cache's HMAC key at the same moment: none may read it half-written
    and drop its entry (seen in CI: two parallel calls, one entry stored)."""
    @tool(cacheable=True, version="1")
    def double(x: int) -> int:
        """Twice x."""
        return 2 * x

    for attempt in range(20):
        cache = ToolCache(tmp_path / str(attempt))
        start = threading.Barrier(8)
        stored = []

        def put(i: int) -> None:
            start.wait()
            stored.append(cache.put(double, {"x": i}, 2 * i))

        threads = [threading.Thread(target=put, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert stored == [True] * 8, (attempt, stored)
