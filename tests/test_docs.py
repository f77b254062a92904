"""Docs that cannot drift: README's and docs/'s figures come from the committed results, their code runs.

Figures are written between ``<!-- fig:KEY -->`` markers by ``python scripts/figures.py``; a Python block
runs here unless a ``<!-- needs-model -->`` or ``<!-- needs-server -->`` line stands right above it.
"""

from __future__ import annotations

import argparse
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


def _options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of a command, its own sub-commands' included (``models install --force``)."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _options(sub)
    return found


def _commands_in_code(text: str, verbs: set[str]) -> list[str]:
    """``react-text …`` lines in code blocks and code spans (a span may leave out ``react-text``:
    `serve --keepalive 0`), continuation lines joined, comments cut."""
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)
    code = [body for lang, body in blocks if lang in ("", "sh", "bash", "console")]
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))
    spans = ["react-text " + span if span.split(" ", 1)[0] in verbs and " --" in span else span for span in spans]
    lines = "\n".join(code + spans).replace("\\\n", " ").splitlines()
    return [m.group(0) for line in lines for m in re.finditer(r"react-text [a-z].*", line.split(" # ")[0])]


def _wrong_commands(text: str) -> list[str]:
    """The commands in ``text`` whose sub-command or a flag ``react-text`` does not have."""
    from react_text.cli.main import build_parser

    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    wrong = []
    for command in _commands_in_code(text, set(subs)):
        verb = command.split()[1]
        if verb not in subs:
            wrong.append(command)
            continue
        known = _options(subs[verb])
        wrong += [f"{command} ({flag})" for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", command) if flag not in known]
    return wrong


def test_every_command_and_flag_the_docs_show_exists():
    """A renamed or dropped flag must not live on in README's or docs/'s examples."""
    wrong = [f"{path.name}: {command}" for path in DOCS for command in _wrong_commands(path.read_text(encoding="utf-8"))]
    assert not wrong, "\n".join(wrong)


def test_a_flag_that_does_not_exist_is_caught_in_a_block_or_a_span():
    assert _wrong_commands("```sh\nreact-text serve --port 1 \\\n    --keep-alive 5\n```\n") == [
        "react-text serve --port 1      --keep-alive 5 (--keep-alive)"]
    assert _wrong_commands("Use `serve --keepalive 0` or `run --no-such`.") == ["react-text run --no-such (--no-such)"]
    assert _wrong_commands("`react-text servе`") != []  # a Cyrillic e: no such command
