"""``react-text parse`` reads a turn from a file or stdin and prints the Step as JSON.

Run as a real subprocess, the way shell scripts and other tools use it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TURN = 'Thought: weather first\nAction: search\nAction Input: {"query": "Rome"}\nObservation: made up\n'


def _command() -> list[str]:
    """The installed console script when present, else the module (same entry point)."""
    script = shutil.which("react-text")
    return [script] if script else [sys.executable, "-m", "react_text.cli"]


def run(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(_command() + args, input=stdin, capture_output=True, text=True,
                          encoding="utf-8", timeout=60)


def test_parse_from_stdin() -> None:
    out = run(["parse", "--tools", "search", "calculator"], stdin=TURN)
    assert out.returncode == 0, out.stderr
    step = json.loads(out.stdout)
    span = [TURN.index("Action:"), TURN.index("\nObservation")]
    assert step["actions"] == [{"tool": "search", "args": {"query": "Rome"}, "span": span}]
    assert step["thought"] == "weather first"
    assert step["error"] is None and "dropped_tail" in step["repairs"]
    assert TURN[:step["end"]].endswith('{"query": "Rome"}')


def test_parse_from_a_file_with_unicode(tmp_path: Path) -> None:
    turn = tmp_path / "turn.txt"
    turn.write_text("思考：好了\n最终答案：长城全长约21196公里。\n观察：...", encoding="utf-8")
    out = run(["parse", str(turn)])
    assert out.returncode == 0, out.stderr
    step = json.loads(out.stdout)
    assert step["final_answer"] == "长城全长约21196公里。"


def test_parse_error_exits_1_with_the_error_as_json(tmp_path: Path) -> None:
    turn = tmp_path / "turn.txt"
    turn.write_text("Action: calculate\nAction Input: 2+2", encoding="utf-8")
    out = run(["parse", str(turn), "--tools", "calculator", "search"])
    assert out.returncode == 1
    step = json.loads(out.stdout)
    assert step["error"]["code"] == "unknown_tool"
    assert "Did you mean calculator?" in step["error"]["message"]


@pytest.mark.parametrize("text", ["", "{" * 50_000, "Action:" * 10_000])
def test_parse_odd_input_from_stdin_still_prints_a_step(text: str) -> None:
    out = run(["parse", "-"], stdin=text)
    assert out.returncode == 1
    assert json.loads(out.stdout)["error"]["code"] in {"empty", "no_action", "bad_arguments"}


def test_dialect_words_the_error_for_the_prompt_it_came_from() -> None:
    out = run(["parse", "--tools", "search", "--dialect", "zh"], stdin="思考：我想想。")
    assert out.returncode == 1
    message = json.loads(out.stdout)["error"]["message"]
    assert message.startswith("没有找到行动") and "行动：search" in message
    bad = run(["parse", "--dialect", "yaml"], stdin="x")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
