"""Docs that cannot drift: README's and docs/'s figures come from the committed results, their code runs.

Figures are written between ``<!-- fig:KEY -->`` markers by ``python scripts/figures.py``; a Python block
runs here unless a ``<!-- needs-model -->`` or ``<!-- needs-server -->`` line stands right above it.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- needs-\w+ -->\n)?```python\n(.+?)\n```", re.S)


def _figures_module():
    spec = importlib.util.spec_from_file_location("figures", ROOT / "scripts" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_figure_is_the_committed_results_one():
    figures = _figures_module()
    known = figures.figures()
    marked = 0
    for path in figures.documents():
        text = path.read_text(encoding="utf-8")
        marked += len(figures.MARKER.findall(text))
        assert figures.rewrite(text, known) == text, f"{path.name}: run python scripts/figures.py"
    assert marked >= 20


def test_a_figure_that_drifts_is_caught():
    figures = _figures_module()
    text = "solves <!-- fig:qwen2.5-coder-0.5b.classic.solved -->99/60<!-- /fig -->"
    assert figures.rewrite(text, figures.figures()) != text
    with pytest.raises(KeyError):
        figures.rewrite("<!-- fig:no.such.figure -->1<!-- /fig -->", figures.figures())


def _blocks() -> list[tuple[str, str]]:
    return [(f"{path.name}#{i}", code) for path in DOCS
            for i, (needs, code) in enumerate(BLOCK.findall(path.read_text(encoding="utf-8"))) if not needs]


@pytest.mark.parametrize("where,code", _blocks(), ids=[w for w, _ in _blocks()])
def test_every_python_block_that_needs_no_model_runs(where, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, {}, where, where, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert runner.failures == 0, where
    else:
        exec(compile(code, where, "exec"), {"__name__": "__docs__"})


def test_readme_and_docs_link_only_to_files_that_exist():
    for path in DOCS + [ROOT / "CHANGELOG.md"]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if "://" not in target:
                assert (path.parent / target).exists(), f"{path.name} -> {target}"


def test_readme_is_short_enough_to_finish():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def test_every_security_promise_names_a_test_that_exists():
    """docs/security.md lists each promise with the test that keeps it; a renamed or deleted test must not
    leave a promise that nothing checks."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent
    named = set(re.findall(r"`(test_\w+)`", (root.parent / "docs" / "security.md").read_text(encoding="utf-8")))
    defined = {m for f in root.glob("test_*.py") for m in re.findall(r"^def (test_\w+)", f.read_text(encoding="utf-8"), re.M)}
    assert len(named) >= 40
    assert named <= defined, sorted(named - defined)
