"""The code's shape, checked like its behaviour: layers, cycles, lint, module and function size.

Why tests and not a separate CI step: README's one test command is what CI runs, so these checks
run on every machine that runs the tests, and a wrong-way import fails as plainly as a wrong answer.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "react_text"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
REASON = "Long because"  # a docstring that states why a module or function is longer


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_imports_point_one_way_and_form_no_cycles() -> None:
    """The layers and sibling contracts live in pyproject.toml ([tool.importlinter])."""
    out = _run("-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout, out.stdout[-4000:]


def test_ruff_finds_nothing() -> None:
    out = _run("-m", "ruff", "check", "react_text", "tests", "bench")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_package_has_modules_to_check() -> None:
    assert len(_modules()) > 40


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_stay_short_or_say_why(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.count("\n")
    if lines > MAX_MODULE_LINES:
        assert REASON in (ast.get_docstring(tree) or ""), f"{lines} lines and no {REASON!r} in the module docstring"
    long = [
        f"{node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
        and REASON not in (ast.get_docstring(node) or "")
    ]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines without {REASON!r} in their docstring: {long}"


def test_import_react_text_loads_nothing_beyond_regex() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import react_text\n"
        "react_text.parse('Action: search\\nAction Input: x', ['search'])\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(sorted(new - set(sys.stdlib_module_names) - {'react_text', 'regex', '_regex'}))\n"
    )
    out = _run("-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
