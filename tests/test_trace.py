"""JSONL traces: flushed per event, complete after Ctrl-C, readable after a crash."""

from __future__ import annotations

import json

import pytest

from react_text.backends.scripted import ScriptedBackend
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.prompting.templates import load_template
from react_text.tools.spec import tool
from react_text.trace import TraceError, TraceWriter, prompts_from_events, read_trace, without_timings


def act(name: str, args) -> str:
    return f" I will use {name}.\n{format_action('classic', name, args)}"


def final(answer: str) -> str:
    return f" Done.\n{format_final('classic', answer)}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@pytest.fixture(scope="module")
def template():
    return load_template("classic")


def test_every_event_is_on_disk_before_the_loop_goes_on(tmp_path, template):
    path = tmp_path / "run.jsonl"
    seen: list[str] = []

    def on_event(event: dict) -> None:
        # The trace is written before on_event is called: the file already holds this event.
        on_disk = read_trace(path)
        assert [e["event"] for e in on_disk] == seen + [event["event"]]
        seen.append(event["event"])

    agent = Agent(ScriptedBackend([act("add", {"a": 2, "b": 3}), final("5")]), [add], template,
                  trace=path, on_event=on_event)
    result = agent.run("2+3?")
    assert result.status == "answered" and result.trace_path == str(path)
    assert seen == [
        "run_start",
        "prompt", "model_turn", "step", "decision", "tool_call", "observation",
        "prompt", "model_turn", "step", "decision",
        "run_end",
    ]


def test_ctrl_c_in_a_tool_leaves_a_complete_trace(tmp_path, template):
    @tool
    def slow(x: str) -> str:
        """Simulates the user pressing Ctrl-C while this tool runs."""
        raise KeyboardInterrupt

    path = tmp_path / "interrupted.jsonl"
    agent = Agent(ScriptedBackend([act("add", {"a": 1, "b": 1}), act("slow", {"x": "now"})]),
                  [add, slow], template, trace=path)
    result = agent.run("What is 1 + 1, now?")
    assert result.status == "interrupted"
    events = read_trace(path)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_start" and kinds[-1] == "run_end"
    assert kinds.count("model_turn") == 2 and kinds.count("tool_call") == 2
    assert kinds.count("observation") == 1  # the interrupted call never produced one
    assert events[-1]["status"] == "interrupted"
    assert events[-1]["answer"].strip()
    observation = next(e for e in events if e["event"] == "observation")
    assert observation["observation"]["text"] == "2"


def test_event_contents(tmp_path, template):
    path = tmp_path / "t.jsonl"
    backend = ScriptedBackend([act("add", {"a": 20, "b": 22}), final("42")])
    Agent(backend, [add], template, trace=path, limits=Limits(max_steps=4)).run("20+22?")
    events = read_trace(path)
    start = events[0]
    assert start["question"] == "20+22?"
    assert start["template"]["name"] == "classic" and start["template"]["dialect"] == "classic"
    assert start["limits"]["max_steps"] == 4
    assert start["tools"][0]["name"] == "add" and start["tools"][0]["parameters"]["required"] == ["a", "b"]
    prompts = [e for e in events if e["event"] == "prompt"]
    assert "text" in prompts[0] and "delta" not in prompts[0]
    assert "delta" in prompts[1] and "text" not in prompts[1]
    assert prompts_from_events(events) == backend.prompts
    turn = next(e for e in events if e["event"] == "model_turn")
    assert turn["text"].startswith(" I will use add.")
    assert turn["prompt_tokens"] > 0 and turn["completion_tokens"] > 0
    step = next(e for e in events if e["event"] == "step")
    assert step["step"]["actions"][0]["tool"] == "add"
    assert step["step"]["actions"][0]["args"] == {"a": 20, "b": 22}
    call = next(e for e in events if e["event"] == "tool_call")
    assert call["tool"] == "add" and call["timeout"] > 0
    decision = next(e for e in events if e["event"] == "decision")
    assert decision["decision"]["kind"] == "run_tool"
    end = events[-1]
    assert end["event"] == "run_end" and end["status"] == "answered" and end["answer"] == "42"
    assert end["totals"]["steps"] == 2
    assert all(isinstance(e["t"], float) for e in events)


def test_torn_last_line_is_tolerated(tmp_path):
    path = tmp_path / "torn.jsonl"
    with TraceWriter(path) as w:
        w.write("run_start", question="q")
        w.write("prompt", n=1, text="abc")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"event": "model_turn", "n": 1, "text": "hal')  # crash mid-write
    events = read_trace(path)
    assert [e["event"] for e in events] == ["run_start", "prompt"]


def test_broken_middle_line_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"event": "run_start"}\nnot json\n{"event": "run_end"}\n', encoding="utf-8")
    with pytest.raises(TraceError, match=r"bad\.jsonl:2"):
        read_trace(path)
    path.write_text('{"event": "run_start"}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(TraceError, match="not a trace event"):
        read_trace(path)


def test_missing_file_is_a_trace_error(tmp_path):
    with pytest.raises(TraceError, match="cannot read"):
        read_trace(tmp_path / "nope.jsonl")


def test_writer_serialises_odd_values_and_refuses_after_close(tmp_path):
    path = tmp_path / "w.jsonl"
    w = TraceWriter(path, fsync=True)
    w.write("x", blob=b"bytes", obj=object(), nested={"t": (1, 2)}, text="中文")
    w.close()
    line = path.read_text(encoding="utf-8").splitlines()[0]
    event = json.loads(line)
    assert event["nested"] == {"t": [1, 2]} and event["text"] == "中文"
    assert isinstance(event["blob"], str)
    with pytest.raises(ValueError, match="closed"):
        w.write("y")


def test_without_timings_strips_only_timings():
    event = {"event": "x", "t": 1.0, "seconds": 2, "totals": {"wall_seconds": 3, "steps": 2}, "text": "t"}
    assert without_timings(event) == {"event": "x", "totals": {"steps": 2}, "text": "t"}
