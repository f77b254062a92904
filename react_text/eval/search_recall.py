"""Whether the search tool shows the model what a task needs: recall@k without a model.

A task that needs the corpus is answerable only if the facts it rests on reach the model; this
measures that part alone, deterministically, so a change to the search can be judged in seconds
on any suite file (the model's share of a failure is the rest). A task's facts are, in order of
preference: its ``evidence`` sentences (those found in the corpus); else, when it has a ``check``,
the numbers of the check that the question does not state (if the corpus holds them all: if not,
the task is arithmetic alone); else its expected answer, if the corpus holds it and the question
does not. A task with none of these (refusals, answers already in the question) has nothing to
find and is counted apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import regex

from .answers import contains_phrase, extract_numbers, normalize_text, within
from .suites import Task

__all__ = ["Fact", "Probe", "QUERY_KINDS", "facts_of", "keyword_query", "probe", "seen"]

QUERY_KINDS = ("question", "keywords")
"""How the model's query is imitated: the question as asked, and the question with its question
words and punctuation stripped (what a model writes when it follows "a few keywords work best")."""

# The judge's own list (eval never borrows the engine's): words that only make a sentence a question.
_QUESTION_WORDS_EN = frozenset(
    "what which who whom whose when where why how many much is are was were did does do the a an of "
    "in on at to for please tell me find".split())
_QUESTION_WORDS_ZH = ("为什么", "是什么", "什么", "多少", "哪一", "哪个", "哪些", "哪里", "哪年", "怎么", "如何",
                      "请问", "是谁", "谁", "吗", "呢", "几")
_PUNCTUATION = re.compile(r"[?？!！。，,、;；:：\"“”'‘’()（）]")


@dataclass(frozen=True)
class Fact:
    """One thing the model must be shown: an evidence sentence, a number a check computes with, or the answer."""

    kind: str  # "sentence" | "number" | "answer"
    value: object
    tolerance: float | str | None = None


@dataclass(frozen=True)
class Probe:
    """One query of one task: how many of its facts the shown text holds, and its length."""

    task_id: str
    query_kind: str
    query: str
    facts: int
    found: int
    chars: int

    @property
    def hit(self) -> bool:
        """Every fact shown: what recall@k counts."""
        return self.facts > 0 and self.found == self.facts


def keyword_query(question: str) -> str:
    """``question`` without question words and punctuation (a model's keyword query)."""
    text = _PUNCTUATION.sub(" ", question)
    for word in _QUESTION_WORDS_ZH:
        text = text.replace(word, " ")
    words = [w for w in text.split() if w.casefold() not in _QUESTION_WORDS_EN]
    return " ".join(words)


def seen(fact: Fact, text: str, task: Task | None = None) -> bool:
    """Whether ``text`` shows ``fact``: a sentence word for word (after normalising case,
    punctuation and spacing), an answer by the task's kind of match -- a number as any written
    form of its value anywhere in the text ("8" is not seen in "8,750")."""
    if fact.kind == "sentence":
        return normalize_text(str(fact.value)) in normalize_text(text)
    if fact.kind == "number":
        return _shows(fact.value, text, fact.tolerance)
    kind = task.match if task is not None else "contains"
    options = fact.value if kind == "one_of" else (fact.value,)
    if kind == "regex":
        return regex.search(str(fact.value), text, regex.IGNORECASE) is not None
    return any(_shows(option, text, fact.tolerance) for option in options)  # type: ignore[union-attr]


def _stated_near(fact: Fact, question: str, corpus_text: str) -> bool:
    """Whether a paragraph of the corpus shows ``fact`` and shares a word with ``question``: a number
    such as 7 or 24 is in any corpus, but not in a paragraph about what is asked."""
    asked = _words(question)
    return any(seen(fact, para) and asked & _words(para) for para in regex.split(r"\n\s*\n", corpus_text))


def _words(text: str) -> set[str]:
    """Words of four letters or more and pairs of Chinese characters: enough to tell a topic."""
    folded = text.casefold()
    return set(regex.findall(r"[^\W\d_\p{Han}]{4,}", folded)) | {
        run[i:i + 2] for run in regex.findall(r"\p{Han}+", folded) for i in range(len(run) - 1)}


def _shows(value: object, text: str, tolerance: float | str | None) -> bool:
    number = _number(value)
    if number is None:
        return contains_phrase(text, str(value))
    return any(within(v, number, tolerance) for m in extract_numbers(text) for v in m.values)


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


def facts_of(task: Task, corpus_text: str) -> tuple[Fact, ...]:
    """What ``task`` needs from the corpus (see the module docstring); () when nothing."""
    if task.match == "refusal":
        return ()
    sentences = tuple(f for f in (Fact("sentence", s) for s in task.evidence) if seen(f, corpus_text))
    if sentences:
        return sentences
    if task.check is not None:
        stated = {v for m in extract_numbers(task.question) for v in m.values}
        numbers = dict.fromkeys(float(m.values[0]) for m in extract_numbers(task.check))
        facts = tuple(Fact("number", n) for n in numbers if n not in stated)
        # every number the question does not state must be in the corpus, or the task is arithmetic alone
        return facts if facts and all(_stated_near(f, task.question, corpus_text) for f in facts) else ()
    answer = Fact("answer", task.expected, task.tolerance)
    if seen(answer, corpus_text, task) and not seen(answer, task.question, task):
        return (answer,)
    return ()


def probe(task: Task, facts: Sequence[Fact], search: Callable[[str], str],
          kinds: Iterable[str] = QUERY_KINDS) -> list[Probe]:
    """Each kind of query of ``task`` through ``search`` (the text the model is shown), scored."""
    probes = []
    for kind in kinds:
        query = task.question if kind == "question" else keyword_query(task.question)
        shown = search(query)
        found = sum(1 for fact in facts if seen(fact, shown, task))
        probes.append(Probe(task.id, kind, query, len(facts), found, len(shown)))
    return probes
