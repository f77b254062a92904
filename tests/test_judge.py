"""The judge of its own: ``eval`` reads refusals and copied values with frozen rules of its own, never
the engine's, and every committed result still judges as it was recorded."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from react_text.eval.copies import copied_value, example_values
from react_text.eval.refusals import canonical, is_refusal
from react_text.eval.suites import load_suite, match_answer

ROOT = Path(__file__).resolve().parents[1]
ENGINE_RULES = ("react_text.checks", "react_text.protocol.answer_text", "react_text.protocol.guards",
                "react_text.protocol.question", "react_text.protocol.nudges",
                "react_text.prompting.episodes", "react_text.prompting.evidence", "react_text.prompting.facts",
                "react_text.lexicon")


def _imports(path: Path) -> set[str]:
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            found.add(f"{base}.{node.module}" if node.level and node.module else node.module or base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "react_text" / "eval").rglob("*.py")), ids=lambda p: p.name)
def test_the_judge_reads_none_of_the_engines_rules(path: Path) -> None:
    bad = {m for m in _imports(path) for rule in ENGINE_RULES if m == rule or m.startswith(rule + ".")}
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("answer", [
    "I cannot find that.", "The documents do not say.", "It is not mentioned in the results.", "Unknown.",
    "无法确定。", "资料里没有相关信息", "没有找到", "I don't know", "Sorry, there is no information about it.",
])
def test_refusals(answer: str) -> None:
    assert is_refusal(answer)


@pytest.mark.parametrize("answer", [
    "48,213", "The error rate was 3%.", "Error: bad input", "No results for 'x'", "Varn is a town.",
    "12; if they do not give the answer, say that you cannot find it", "它有 5 座桥。",
])
def test_not_refusals(answer: str) -> None:
    assert not is_refusal(answer)


def test_canonical_folds_full_width_digits_quotes_and_minus() -> None:
    assert canonical("１２３ \u2212 “x”") == '123 - "x"'


@dataclass(frozen=True)
class _Step:
    observation: str


@dataclass(frozen=True)
class _Episode:
    answer: str
    steps: tuple[_Step, ...] = ()


EPISODES = (_Episode("1,074", (_Step("The bridge is 1,074 m long."),)), _Episode("Runa Vell"),
            _Episode("I cannot find it."))


def test_example_values_are_numbers_and_answers_that_are_names() -> None:
    assert example_values(EPISODES) == {"1074", "Runa Vell"}


@pytest.mark.parametrize(("answer", "own", "copied"), [
    ("It is 1074 metres.", ("How long is the tower?",), "1074"),
    ("It is 1074 metres.", ("How long is the tower?", "The tower is 1074 m."), None),
    ("Runa Vell wrote it.", ("Who wrote the book?",), "Runa Vell"),
    ("7", ("What is 3 + 4?",), None),  # one digit is not telling
    ("I cannot find it.", ("Who?",), None),
])
def test_copied_value(answer, own, copied) -> None:
    assert copied_value(answer, EPISODES, own) == copied


def test_every_committed_result_judges_as_it_was_recorded() -> None:
    """Re-judging ``results/compare/results.jsonl`` with this judge changes no verdict."""
    tasks = {t.id: t for t in load_suite("all", known_tools=None).tasks}
    records = [json.loads(line) for line in (ROOT / "results" / "compare" / "results.jsonl").read_text().splitlines()]
    changed = [r["task_id"] for r in records
               if (r["status"] == "answered" and match_answer(tasks[r["task_id"]], r["answer"])) != r["correct"]]
    assert records and changed == []
