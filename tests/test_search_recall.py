"""Search recall without a model (react_text.eval.search_recall and bench/search_recall.py): which facts a
task needs, when the shown text holds them, and the bench on a suite file of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from react_text.eval.search_recall import Fact, facts_of, keyword_query, probe, seen
from react_text.eval.suites import parse_suite

ROOT = Path(__file__).resolve().parents[1]
CORPUS = "The mill was built in 1811. It grinds 8,750 sacks a year.\n\nThe mayor is Ada Brook.\n\n镇长是李明。"


def _task(**fields):
    record = {"id": "t1", "question": "When was the mill built?", "match": "number", "expected": 1811,
              "tools": ["search"], "lang": "en", "category": "lookup"} | fields
    record = {k: v for k, v in record.items() if v is not None}
    return parse_suite(json.dumps(record)).tasks[0]


def test_keyword_query_strips_question_words_and_punctuation() -> None:
    assert keyword_query("In which year was the mill built?") == "year mill built"
    assert keyword_query("How many sacks does the mill grind?") == "sacks mill grind"
    assert keyword_query("青石镇的镇长是谁？") == "青石镇的镇长"
    assert keyword_query("云岚茶业公司有多少员工？") == "云岚茶业公司有 员工"


def test_seen_reads_sentences_numbers_and_the_task_match() -> None:
    assert seen(Fact("sentence", "the mill was built in 1811"), "[1] a.txt: The mill was built in 1811.")
    assert not seen(Fact("sentence", "the mill was built in 1811"), "[1] a.txt: The mill was built in…")
    assert seen(Fact("answer", 8750), "8,750 sacks", _task(expected=8750))
    assert not seen(Fact("answer", ("8", "eight")), CORPUS, _task(match="one_of", expected=["8", "eight"]))
    assert seen(Fact("answer", "Ada Brook"), CORPUS, _task(match="contains", expected="Ada Brook"))
    assert seen(Fact("answer", r"ada\s+brook"), CORPUS, _task(match="regex", expected=r"ada\s+brook"))
    assert seen(Fact("answer", 1800, 20), CORPUS, _task(expected=1800, tolerance=20))


def test_facts_of_a_task() -> None:
    with_evidence = _task(evidence=["The mill was built in 1811", "not in the corpus at all"])
    assert facts_of(with_evidence, CORPUS) == (Fact("sentence", "The mill was built in 1811"),)
    assert facts_of(_task(), CORPUS) == (Fact("answer", 1811),)  # no evidence: the answer, found in the corpus
    assert facts_of(_task(expected=1999), CORPUS) == ()  # not in the corpus: nothing to find
    assert facts_of(_task(question="Is 1811 a year?"), CORPUS) == ()  # the question already says it
    assert facts_of(_task(check="1811 + 1"), CORPUS) == ()  # 1 is not in the corpus: arithmetic alone
    sacks = _task(question="How many sacks does the mill grind in 3 years?", check="8750 * 3", expected=26250)
    assert facts_of(sacks, CORPUS) == (Fact("number", 8750.0),)  # what the question does not state
    week = _task(question="How many hours are in a week?", check="7 * 24", expected=168)
    assert facts_of(week, "The Heron-7 robot.\n\nThe ferry carries 24 cars.") == ()  # numbers, not about hours
    assert facts_of(_task(match="refusal", expected=None), CORPUS) == ()


def test_probe_counts_facts_shown_and_chars() -> None:
    task = _task(evidence=["The mill was built in 1811", "The mayor is Ada Brook"])
    facts = facts_of(task, CORPUS)
    queries = []

    def search(query: str) -> str:
        queries.append(query)
        return "[1] a.txt: The mill was built in 1811."

    probes = probe(task, facts, search)
    assert queries == ["When was the mill built?", "mill built"]
    assert [(p.query_kind, p.found, p.facts, p.hit, p.chars) for p in probes] == [
        ("question", 1, 2, False, 38), ("keywords", 1, 2, False, 38)]


def test_bench_runs_on_a_suite_file_with_its_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "mill.txt").write_text("Mill\n\nThe mill was built in 1811.\n\nThe mill has 14 workers.\n", encoding="utf-8")
    tasks = [
        {"id": "a", "question": "When was the mill built?", "match": "number", "expected": 1811, "split": "dev"},
        {"id": "b", "question": "How many workers does the mill have?", "match": "number", "expected": 14,
         "split": "test", "evidence": ["The mill has 14 workers"]},
        {"id": "c", "question": "Who owns the mill?", "match": "refusal", "split": "test"},
        {"id": "d", "question": "What is 2 + 2?", "match": "number", "expected": 4, "tools": ["calculator"]},
        {"id": "e", "question": "Zebras?", "match": "number", "expected": 1811, "split": "dev"},  # nothing found
        {"id": "f", "question": "Okapis?", "match": "number", "expected": 1811, "split": "test"},
        {"id": "g", "question": "Giraffes?", "match": "number", "expected": 1811},
    ]
    suite = tmp_path / "mine.jsonl"
    suite.write_text("\n".join(json.dumps({"tools": ["search"], "lang": "en", "category": "lookup"} | t)
                               for t in tasks), encoding="utf-8")
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "search_recall.py"), "--suite", str(suite),
                          "--totals", "--misses"], capture_output=True, text=True, timeout=120, check=True).stdout
    assert "5 tasks need the corpus; skipped: 1 refusal" in out
    assert "| all | 5 | 2/5 (40%) | 2/5 (40%) | 2/5 (40%) |" in out
    assert "| split" not in out and "| lang en | 5 |" in out
    assert "refusal tasks (the question as query): 1, results shown 2.0 on average" in out
    assert "- e [question] 0/1 shown" in out and "Okapis" not in out and "Giraffes" not in out  # dev misses only
    old = subprocess.run([sys.executable, str(ROOT / "bench" / "search_recall.py"), "--suite", str(suite),
                          "--ranking", "baseline"], capture_output=True, text=True, timeout=120, check=True).stdout
    assert "ranking baseline" in old and "| split dev | 2 |" in old and "| split test | 2 |" in old and "| split - | 1 |" in old


def test_every_probe_question_of_the_bench_has_its_facts_in_the_corpus() -> None:
    from react_text.eval.suites import builtin_corpus_dir, load_suite

    corpus = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(builtin_corpus_dir().rglob("*.txt")))
    suite = load_suite(str(ROOT / "bench" / "search_probe.jsonl"))
    assert suite.tasks and all(len(facts_of(t, corpus)) == len(t.evidence) for t in suite.tasks)
    assert {t.split for t in suite.tasks} == {"dev"}
