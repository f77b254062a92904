"""README's promises: its test command is what CI runs, and its parser example is true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


@pytest.mark.model
def test_the_readme_python_example_answers_right_on_the_default_model(capsys):
    """README's flagship snippet, run as written on the real default model: it must answer 12 x 0.40 = 4.80
    after looking the price up, not answer from nowhere (issue 28)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- needs-model -->\n```python\n(.+?)\n```", text, re.S).group(1)
    assert "react_text.run(" in block and "lookup_price" in block
    exec(compile(block, "README.md", "exec"), {"__name__": "readme_example"})
    status, _, answer = capsys.readouterr().out.strip().partition(" ")
    assert status == "answered", answer
    assert [float(n) for n in re.findall(r"\d+(?:\.\d+)?", answer)][:1] == [4.8], answer
