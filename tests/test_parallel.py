"""Several actions of one turn run together; tools with side effects never do.

Overlap is proven by synchronisation, never by timing: tools that wait on a
shared barrier can only all succeed when they run at the same time (the
barrier's timeout turns a serial run into a failed test, not a hang).
"""

from __future__ import annotations

import threading

import pytest

from react_text.backends.scripted import ScriptedBackend
from react_text.tools.calling import ToolCall, call_groups, call_tools
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.decisions import RunTool, RunTools
from react_text.agent.loop import Agent
from react_text.agent.policy import decide_turn, plan_calls
from react_text.agent.state import Limits, RunState
from react_text.protocol.parser import parse
from react_text.prompting.templates import load_template
from react_text.tools.schemas import ToolDefinitionError
from react_text.tools.spec import tool, tool_from_schema
from react_text.trace import read_trace
from react_text.types import Action

BARRIER_TIMEOUT = 20.0  # only reached when the calls do not overlap: the test then fails


class Log:
    """Enter/exit events of tool calls, in the order they happened."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, str]] = []

    def add(self, kind: str, name: str) -> None:
        with self.lock:
            self.events.append((kind, name))

    def active_during(self, name: str) -> set[str]:
        """Names of calls that were running at some moment while ``name`` ran."""
        active: set[str] = set()
        overlapping: set[str] = set()
        inside = False
        for kind, who in self.events:
            if kind == "enter":
                active.add(who)
            else:
                active.discard(who)
            if who == name:
                inside = kind == "enter"
                if inside:
                    overlapping |= active - {name}
            elif inside and kind == "enter":
                overlapping.add(who)
        return overlapping


def waiting_tools(n: int, log: Log, *, timeout: float = BARRIER_TIMEOUT):
    barrier = threading.Barrier(n, timeout=timeout)
    made = []
    for i in range(n):
        def fn(x: str, _name=f"wait{i}") -> str:
            log.add("enter", _name)
            barrier.wait()  # BrokenBarrierError unless all n calls are inside at once
            log.add("exit", _name)
            return f"{_name} saw {x}"
        made.append(tool(fn, name=f"wait{i}", description="Waits for its siblings.", timeout=60))
    return made


def recording_tool(name: str, log: Log, *, side_effects: bool = False, gate: threading.Barrier | None = None):
    def fn(x: str) -> str:
        log.add("enter", name)
        if gate is not None:
            gate.wait()
        log.add("exit", name)
        return f"{name}:{x}"
    return tool(fn, name=name, description="Records when it runs.", side_effects=side_effects, timeout=60)


# --- calling.call_tools --------------------------------------------------------

def test_independent_calls_run_at_the_same_time():
    log = Log()
    tools = waiting_tools(3, log)
    calls = [ToolCall(f"1.{i + 1}", t, {"x": str(i)}) for i, t in enumerate(tools)]
    results = call_tools(calls, max_workers=3)
    assert [r.call_id for r in results] == ["1.1", "1.2", "1.3"]
    assert all(r.observation.ok for r in results), [r.observation.text for r in results]
    assert [r.observation.text for r in results] == ["wait0 saw 0", "wait1 saw 1", "wait2 saw 2"]
    # all three entered before any left
    kinds = [k for k, _ in log.events]
    assert kinds[:3] == ["enter"] * 3


def test_one_worker_runs_them_one_by_one_so_the_barrier_breaks():
    """The same tools with one worker cannot meet: the overlap test above can fail."""
    log = Log()
    tools = waiting_tools(2, log, timeout=0.3)
    results = call_tools([ToolCall("1.1", tools[0], "a"), ToolCall("1.2", tools[1], "b")], max_workers=1)
    assert not any(r.observation.ok for r in results)
    assert all("BrokenBarrierError" in r.observation.text for r in results)


def test_results_match_their_calls_when_they_finish_out_of_order():
    fast_ended = threading.Event()

    @tool(timeout=60)
    def slow(x: str) -> str:
        """Finishes only after the other call has ended."""
        if not fast_ended.wait(BARRIER_TIMEOUT):
            raise RuntimeError("the other call never ran alongside")
        return f"slow {x}"

    @tool(timeout=60)
    def fast(x: str) -> str:
        """Finishes at once."""
        return f"fast {x}"

    ended: list[str] = []

    def on_end(call, result) -> None:
        ended.append(call.call_id)
        if call.call_id == "b":
            fast_ended.set()

    results = call_tools([ToolCall("a", slow, "1"), ToolCall("b", fast, "2")], max_workers=2, on_end=on_end)
    assert ended == ["b", "a"]  # fast ended first...
    assert [(r.call_id, r.observation.text) for r in results] == [("a", "slow 1"), ("b", "fast 2")]  # ...matched by id


def test_partial_failure_is_reported_per_call():
    @tool
    def ok(x: str) -> str:
        """Works."""
        return "fine"

    @tool
    def broken(x: str) -> str:
        """Fails."""
        raise ValueError("no such record")

    results = call_tools([ToolCall("1", ok, "a"), ToolCall("2", broken, "b"), ToolCall("3", ok, "c")], max_workers=3)
    assert [r.observation.ok for r in results] == [True, False, True]
    assert results[1].observation.code == "tool_error" and "no such record" in results[1].observation.text


def test_side_effect_calls_run_alone_and_in_order():
    log = Log()
    pair = threading.Barrier(2, timeout=BARRIER_TIMEOUT)
    pair2 = threading.Barrier(2, timeout=BARRIER_TIMEOUT)
    a, b = recording_tool("a", log, gate=pair), recording_tool("b", log, gate=pair)
    write = recording_tool("write", log, side_effects=True)
    c, d = recording_tool("c", log, gate=pair2), recording_tool("d", log, gate=pair2)
    send = recording_tool("send", log, side_effects=True)
    calls = [ToolCall(str(i), t, "x") for i, t in enumerate([a, b, write, c, d, send])]
    assert [[c.tool.name for c in g] for g in call_groups(calls)] == [["a", "b"], ["write"], ["c", "d"], ["send"]]
    results = call_tools(calls, max_workers=8)
    assert all(r.observation.ok for r in results)
    assert log.active_during("write") == set() and log.active_during("send") == set()
    assert log.active_during("a") == {"b"}  # the pure neighbours still ran together
    order = [who for kind, who in log.events if kind == "enter"]
    assert order.index("write") > max(order.index("a"), order.index("b"))
    assert order.index("write") < min(order.index("c"), order.index("d")) < order.index("send")


def test_side_effects_flag_from_decorator_and_schema():
    @tool(side_effects=True)
    def pay(amount: int) -> str:
        """Pay."""
        return "paid"

    assert pay.side_effects and not pay.cacheable
    spec = {"type": "function", "function": {"name": "send_mail", "description": "Send.", "x-side-effects": True,
                                             "parameters": {"type": "object", "properties": {}}}}
    assert tool_from_schema(spec, lambda: "sent").side_effects
    assert not tool_from_schema({"name": "read", "parameters": {"type": "object"}}, lambda: "x").side_effects
    with pytest.raises(ToolDefinitionError, match="side effects cannot be cacheable"):
        tool(lambda: "x", name="both", side_effects=True, cacheable=True)


# --- the loop --------------------------------------------------------------------

def three_actions(args=("a", "b", "c"), tools=("wait0", "wait1", "wait2")) -> str:
    return " I need all three.\n" + "\n".join(
        format_action("classic", t, {"x": a}) for t, a in zip(tools, args))


def test_plan_and_decision_for_a_turn_of_several_actions():
    state = RunState(limits=Limits(max_parallel_tools=4), tool_names=("wait0", "wait1"))
    actions = (Action("wait0", {"x": "a"}), Action("nope", "x"), Action("wait1", {"x": "b"}), Action("wait0", "a"))
    planned = plan_calls(state, actions, 3)
    assert [p.call_id for p in planned] == ["3.1", "3.2", "3.3", "3.4"]
    assert [p.runs for p in planned] == [True, False, True, False]
    assert planned[1].error == "unknown_tool" and "There is no tool" in planned[1].shown
    assert planned[3].same_as == "3.1"  # the same call twice in one turn runs once
    step = parse("Thought:" + three_actions(tools=("wait0", "wait1", "wait0")), ["wait0", "wait1"])
    assert isinstance(decide_turn(state, step), RunTools)
    assert isinstance(decide_turn(RunState(limits=Limits(), tool_names=("wait0", "wait1")), step), RunTool)


def test_agent_runs_a_turns_actions_together_and_traces_each_call(tmp_path):
    log = Log()
    tools = waiting_tools(3, log)
    template = load_template("classic")
    backend = ScriptedBackend([three_actions(), " Done.\n" + format_final("classic", "abc")])
    trace = tmp_path / "run.jsonl"
    agent = Agent(backend, tools, template, limits=Limits(max_parallel_tools=3), trace=trace)
    result = agent.run("Run all three")
    assert result.status == "answered", result.answer
    first = result.steps[0]
    assert isinstance(first.decision, RunTools)
    assert [(c.call_id, c.observation.ok) for c in first.calls] == [("1.1", True), ("1.2", True), ("1.3", True)]
    # the scratchpad keeps all three actions and shows each result by tool
    assert first.kept.count("Action:") == 3
    assert first.observation_text == "wait0: wait0 saw a\nwait1: wait1 saw b\nwait2: wait2 saw c"
    assert backend.prompts[1] == backend.prompts[0] + first.kept + template.observation(first.observation_text, 1)
    events = read_trace(trace)
    starts = [e for e in events if e["event"] == "tool_call"]
    ends = [e for e in events if e["event"] == "observation"]
    assert sorted(e["call_id"] for e in starts) == sorted(e["call_id"] for e in ends) == ["1.1", "1.2", "1.3"]
    # every call started before any ended: they ran together
    assert events.index(starts[-1]) < events.index(ends[0])


def test_agent_reports_a_partly_failed_turn_and_goes_on(tmp_path):
    @tool
    def lookup(word: str) -> str:
        """Look a word up."""
        if word == "zzz":
            raise KeyError(word)
        return f"{word}: known"

    template = load_template("classic")
    turn = " Two words.\n" + format_action("classic", "lookup", {"word": "cat"}) + "\n" + format_action(
        "classic", "lookup", {"word": "zzz"})
    backend = ScriptedBackend([turn, " ok\n" + format_final("classic", "cat is known")])
    result = Agent(backend, [lookup], template, limits=Limits(max_parallel_tools=2)).run("words")
    assert result.status == "answered"
    shown = result.steps[0].observation_text
    assert "lookup: cat: known" in shown
    assert "lookup: Error (tool_error): Tool lookup failed: KeyError" in shown
    assert [c.observation.ok for c in result.steps[0].calls] == [True, False]


def test_console_prints_each_call_of_a_turn(tmp_path):
    import io

    from react_text.cli.console import Console

    log = Log()
    tools = waiting_tools(2, log)
    out = io.StringIO()
    backend = ScriptedBackend([three_actions(args=("a", "b"), tools=("wait0", "wait1")),
                               " Done.\n" + format_final("classic", "ab")])
    Agent(backend, tools, load_template("classic"), limits=Limits(max_parallel_tools=2),
          on_event=Console(out, colour=False)).run("both")
    text = out.getvalue()
    assert "Action 1.1: wait0" in text and "Action 1.2: wait1" in text
    assert "Observation 1.1: wait0 saw a" in text and "Observation 1.2: wait1 saw b" in text
    assert "not run" not in text
