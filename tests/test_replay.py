"""A recorded run, replayed without the model, comes out identical."""

from __future__ import annotations

import dataclasses

import pytest

from react_text.backends.base import BackendError
from react_text.backends.replay import ReplayBackend
from react_text.backends.scripted import ScriptedBackend
from react_text.tools.calculator import calculator
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.loop import Agent
from react_text.agent.results import RunResult
from react_text.agent.state import Limits
from react_text.prompting.templates import load_template
from react_text.trace import read_trace, without_timings


def act(name: str, args, thought: str = "I need a tool.") -> str:
    return f" {thought}\n{format_action('classic', name, args)}"


def final(answer: str) -> str:
    return f" I have it.\n{format_final('classic', answer)}"


SCRIPT = [
    " I will just guess.",  # stops after the thought: asked once to go on (policy.wants_label)
    "",  # still no label: a format error, fed back
    act("calculator", {"expression": "37 * 91"}),
    act("calculator", {"expression": "37 * 91"}),  # a repeat: nudged
    act("calculator", {"expression": "3367 + 12"}) + "\nObservation: 3000",  # made-up tail: cut
    final("3379"),
]


@pytest.fixture(scope="module")
def template():
    return load_template("classic")


def strip_timings(result: RunResult) -> RunResult:
    """The result with every wall-clock measurement zeroed (they differ between runs)."""
    steps = tuple(
        dataclasses.replace(
            s,
            model_seconds=0.0,
            tool_seconds=0.0,
            observation=dataclasses.replace(s.observation, seconds=0.0) if s.observation else None,
        )
        for s in result.steps
    )
    totals = dataclasses.replace(result.totals, model_seconds=0, tool_seconds=0, engine_seconds=0, wall_seconds=0)
    return dataclasses.replace(result, steps=steps, totals=totals, trace_path=None)


def record(tmp_path, template, script=SCRIPT, wrap=None, question="What is 37 * 91 + 12?"):
    path = tmp_path / "recorded.jsonl"
    backend = ScriptedBackend(script, name="scripted-model", wrap=wrap)
    result = Agent(backend, [calculator], template, trace=path).run(question)
    return path, result, backend


def test_replay_reproduces_the_run_exactly(tmp_path, template):
    path, original, scripted = record(tmp_path, template)
    assert original.status == "answered" and original.answer == "3379"
    assert [type(s.decision).__name__ for s in original.steps] == ["Retry", "RunTool", "Retry", "RunTool", "Finish"]

    replay = ReplayBackend.from_trace(path)
    replay_path = tmp_path / "replayed.jsonl"
    again = Agent(replay, [calculator], template, trace=replay_path).run("What is 37 * 91 + 12?")

    assert replay.remaining == 0
    assert strip_timings(again) == strip_timings(original)
    a, b = read_trace(path), read_trace(replay_path)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if x["event"] == "run_start":  # only the backend's name differs
            x, y = {**x, "backend": None}, {**y, "backend": None}
        assert without_timings(x) == without_timings(y)


def test_replay_keeps_the_chat_wrapping(tmp_path, template):
    wrap = lambda p: f"<|im_start|>user\n{p}<|im_end|>\n<|im_start|>assistant\n"  # noqa: E731
    path, original, scripted = record(tmp_path, template, wrap=wrap)
    replay = ReplayBackend.from_trace(path)
    again = Agent(replay, [calculator], template).run("What is 37 * 91 + 12?")
    assert again.status == "answered" and again.answer == original.answer
    assert replay.remaining == 0


def test_divergent_prompt_is_a_clear_error(tmp_path, template):
    path, original, _ = record(tmp_path, template)
    replay = ReplayBackend.from_trace(path)
    result = Agent(replay, [calculator], template).run("What is 38 * 91 + 12?")
    assert result.status == "backend_error"
    assert "replay diverged" in result.answer and "model turn 1" in result.answer
    assert "character" in result.answer


def test_divergence_later_in_the_run_names_the_turn(tmp_path, template):
    path, original, _ = record(tmp_path, template)

    # Same name, description and schema (so the prompt matches), but wrong results.
    wrong_calculator = dataclasses.replace(calculator, fn=lambda expression: "0")

    replay = ReplayBackend.from_trace(path)
    result = Agent(replay, [wrong_calculator], template).run("What is 37 * 91 + 12?")
    assert result.status == "backend_error"
    assert "model turn 3" in result.answer


def test_replay_without_verify_and_exhaustion(tmp_path, template):
    path, original, _ = record(tmp_path, template)
    replay = ReplayBackend.from_trace(path, verify=False)
    result = Agent(replay, [calculator], template, limits=Limits(max_steps=20)).run("something else")
    assert result.status == "answered" and result.answer == "3379"
    with pytest.raises(BackendError, match="exhausted"):
        replay.complete("more")


def test_replay_of_a_torn_trace(tmp_path, template):
    path, original, _ = record(tmp_path, template)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    # Keep everything up to the third step's model turn (step 1 took two: the turn and its
    # continuation), then half a line: a crash mid-write.
    turns = [i for i, line in enumerate(lines) if '"event": "model_turn"' in line]
    cut = lines[: turns[3]] + [lines[turns[3]][:25]]
    path.write_text("".join(cut), encoding="utf-8")
    replay = ReplayBackend.from_trace(path)
    assert replay.remaining == 3
    result = Agent(replay, [calculator], template).run("What is 37 * 91 + 12?")
    assert result.status == "backend_error" and "exhausted" in result.answer
    assert len(result.steps) == 2


# --- printing a run (what `react-text run` streams and `react-text replay` prints) ---

def test_console_prints_the_same_transcript_live_and_from_the_trace(tmp_path, template):
    import io

    from react_text.cli.console import Console

    live = io.StringIO()
    path = tmp_path / "printed.jsonl"
    backend = ScriptedBackend(SCRIPT)
    Agent(backend, [calculator], template, trace=path, on_event=Console(live, colour=False)).run(
        "What is 37 * 91 + 12?")
    text = live.getvalue()
    assert "Question: What is 37 * 91 + 12?" in text
    assert "Format error (no_action):" in text
    assert 'Action 2: calculator {"expression": "37 * 91"}' in text
    assert "Observation 2: 3367" in text
    assert "Nudge: You already called calculator" in text
    assert "Observation 4: 3379" in text and "3000" not in text  # the made-up observation never shows
    assert "Answer: 3379" in text
    assert "\x1b[" not in text

    replayed = io.StringIO()
    console = Console(replayed, colour=False)
    for event in read_trace(path):
        console(event)
    strip = lambda s: [line for line in s.splitlines() if not line.startswith("[")]  # noqa: E731
    assert strip(replayed.getvalue()) == strip(text)


def test_console_colour_only_when_asked_or_on_a_tty(monkeypatch):
    import io

    from react_text.cli.console import Console, use_colour

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_colour(Tty()) and not use_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(Tty())
    out = io.StringIO()
    Console(out, colour=True)({"event": "run_end", "status": "answered", "answer": "42", "totals": {}})
    assert "\x1b[" in out.getvalue() and "Answer: 42" in out.getvalue()


def test_replay_reproduces_a_turn_asked_to_go_on(tmp_path, template):
    """A turn that stopped after its thought and was asked to go on (two model calls, one step)
    replays exactly: the continuation's prompt is in the trace as a delta, the next prompt whole."""
    question = "How many days are 11 weeks?"
    path = tmp_path / "recorded.jsonl"
    backend = ScriptedBackend([" The answer is 77.", "Final Answer: 77"])
    original = Agent(backend, [], template, trace=path).run(question)
    assert original.status == "answered" and original.answer == "77" and len(original.steps) == 1
    events = read_trace(path)
    assert [e.get("reason") for e in events if e["event"] == "prompt"] == [None, "label_left_out"]

    replay = ReplayBackend.from_trace(path)
    replay_path = tmp_path / "replayed.jsonl"
    again = Agent(replay, [], template, trace=replay_path).run(question)
    assert replay.remaining == 0
    assert strip_timings(again) == strip_timings(original)
    b = read_trace(replay_path)
    assert len(events) == len(b)
    for x, y in zip(events, b):
        if x["event"] == "run_start":
            x, y = {**x, "backend": None}, {**y, "backend": None}
        assert without_timings(x) == without_timings(y)


def test_a_continued_turn_then_a_tool_replays_and_a_divergence_names_the_turn(tmp_path, template):
    script = [" I need to compute it.", act("calculator", {"expression": "37 * 91 + 12"}), final("3379")]
    path, original, _ = record(tmp_path, template, script=script)
    assert [type(s.decision).__name__ for s in original.steps] == ["RunTool", "Finish"]
    replay = ReplayBackend.from_trace(path)
    again = Agent(replay, [calculator], template).run("What is 37 * 91 + 12?")
    assert strip_timings(again) == strip_timings(original) and replay.remaining == 0

    wrong = dataclasses.replace(calculator, fn=lambda expression: "0")
    result = Agent(ReplayBackend.from_trace(path), [wrong], template).run("What is 37 * 91 + 12?")
    assert result.status == "backend_error" and "model turn 2's prompt" in result.answer

    # a divergence at the continuation is named as such
    replay = ReplayBackend.from_trace(path)
    replay._prompts[1] = replay._prompts[1] + "x"  # noqa: SLF001 - a recording that differs at the continuation
    result = Agent(replay, [calculator], template).run("What is 37 * 91 + 12?")
    assert "model turn 1 (asked to go on)" in result.answer
