"""`react-text run` and `react-text replay` as a user runs them: a real process, a real model.

The answers of a 135M model are not asserted; the exit code semantics and the
trace are: exit 0 exactly when the run answered, 1 for any other ending, 130
on Ctrl-C, 2 when the run cannot start.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from react_text.trace import read_trace

pytestmark = pytest.mark.model

SMOL = "smollm2-135m"
QUESTION = "What is 12 * 12?"


def react_text(*args: str, env: dict | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "react_text.cli", *args],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})},
    )


def check_complete(events: list[dict], max_steps: int) -> dict:
    """The trace of a finished run: start, whole steps, end, consistent with each other."""
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_start" and kinds[-1] == "run_end"
    turns = kinds.count("step")
    # a turn that stopped after its thought was asked once to go on: one more prompt and model_turn
    asked_again = sum(1 for e in events if e["event"] == "prompt" and e.get("reason") == "label_left_out")
    assert 1 <= turns <= max_steps and asked_again <= turns
    assert kinds.count("prompt") == kinds.count("model_turn") == turns + asked_again
    assert kinds.count("decision") == turns
    assert kinds.count("tool_call") == kinds.count("observation")
    end = events[-1]
    assert end["answer"].strip()
    assert end["totals"]["steps"] == turns
    return end


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, smollm2_path):
    trace = tmp_path_factory.mktemp("cli") / "run.jsonl"
    proc = react_text("run", QUESTION, "--model", SMOL, "--max-steps", "2", "--max-turn-tokens", "48",
                      "--trace", str(trace))
    return proc, trace


def test_run_exit_code_matches_status_and_trace_is_complete(recorded):
    proc, trace = recorded
    assert proc.returncode in (0, 1), proc.stderr
    end = check_complete(read_trace(trace), max_steps=2)
    assert (proc.returncode == 0) == (end["status"] == "answered")
    out = proc.stdout
    assert f"Question: {QUESTION}" in out
    assert "Thought 1:" in out or "Format error" in out
    assert f"trace: {trace}" in out
    assert "\x1b[" not in out  # piped: no colour
    if end["status"] == "answered":
        assert f"Answer: {end['answer']}" in out
    else:
        assert f"No answer ({end['status']})" in out


def test_replay_prints_the_recorded_run(recorded):
    proc, trace = recorded
    replay = react_text("replay", str(trace))
    end = read_trace(trace)[-1]
    assert replay.returncode == (0 if end["status"] == "answered" else 1)
    assert f"Question: {QUESTION}" in replay.stdout
    # The replay prints the same transcript the run streamed.
    live = [line for line in proc.stdout.splitlines() if not line.startswith("trace:") and not line.startswith("[")]
    printed = [line for line in replay.stdout.splitlines() if not line.startswith("[")]
    assert printed == live


def test_run_json_and_default_trace_location(tmp_path, smollm2_path):
    proc = react_text("run", "What time is it?", "--model", SMOL, "--max-steps", "1", "--max-turn-tokens", "32",
                      "--tools", "time", "--json", env={"REACT_TEXT_HOME": str(tmp_path), "REACT_TEXT_TRACES": ""})
    assert proc.returncode in (0, 1), proc.stderr
    result = json.loads(proc.stdout)
    assert (proc.returncode == 0) == (result["status"] == "answered")
    assert result["answer"].strip() and len(result["steps"]) == 1
    trace = Path(result["trace_path"])
    assert trace.parent == tmp_path / "traces" and trace.is_file()
    end = check_complete(read_trace(trace), max_steps=1)
    assert end["status"] == result["status"] and end["answer"] == result["answer"]
    assert [t["name"] for t in read_trace(trace)[0]["tools"]] == ["current_time"]


def test_ctrl_c_exits_130_with_a_complete_trace(tmp_path, smollm2_path):
    trace = tmp_path / "interrupted.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "react_text.cli", "run", "Search your memory and explain how tides work in detail.",
         "--model", SMOL, "--max-steps", "8", "--trace", str(trace)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if trace.exists() and '"run_start"' in trace.read_text(encoding="utf-8"):
                break
            time.sleep(0.05)
        assert proc.poll() is None, f"run ended before it could be interrupted: {proc.stdout.read()}"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    events = read_trace(trace)
    assert events[0]["event"] == "run_start"
    assert events[-1]["event"] == "run_end" and events[-1]["status"] == "interrupted"
    assert events[-1]["answer"].strip()


def test_setup_errors_exit_2_with_a_message(tmp_path):
    missing = react_text("run", "q", "--model", str(tmp_path / "absent.gguf"), "--trace", str(tmp_path / "t.jsonl"))
    assert missing.returncode == 2 and "absent.gguf" in missing.stderr
    unknown = react_text("run", "q", "--model", "no-such-model-xyz")
    assert unknown.returncode == 2 and "no-such-model-xyz" in unknown.stderr
    template = react_text("run", "q", "--template", "no-such-template", "--model", SMOL)
    assert template.returncode == 2 and "no-such-template" in template.stderr
    search = react_text("run", "q", "--tools", "search", "--model", SMOL)
    assert search.returncode == 2 and "--corpus" in search.stderr
    http = react_text("run", "q", "--backend", "http")
    assert http.returncode == 2 and "--url" in http.stderr
    assert not (tmp_path / "t.jsonl").exists()


def test_replay_of_a_broken_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("garbage\n{\"event\": \"run_end\"}\n", encoding="utf-8")
    proc = react_text("replay", str(bad))
    assert proc.returncode == 2 and "bad.jsonl:1" in proc.stderr
    torn = tmp_path / "torn.jsonl"
    torn.write_text('{"event": "run_start", "question": "q", "tools": []}\n{"event": "prom', encoding="utf-8")
    proc = react_text("replay", str(torn))
    assert proc.returncode == 1 and "without run_end" in proc.stdout
