"""README's promises: its test command is what CI runs, and its parser example is true."""

from __future__ import annotations

import re
from pathlib import Path

import react_text

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_readme_opens_with_two_commands_and_ci_runs_the_second():
    first, second = _commands()[:2]
    assert "react-text run" in first
    assert "pytest" in second
    assert second in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_parser_example_holds():
    step = react_text.parse(
        'Thought: I need the product.\nAction: Calculator\nAction Input: {"expression": "37*91"}\n'
        "Observation: 3367",
        tools=["calculator"],
    )
    assert (step.actions[0].tool, step.actions[0].args) == ("calculator", {"expression": "37*91"})
    assert step.repairs == ("tool_name", "dropped_tail")
