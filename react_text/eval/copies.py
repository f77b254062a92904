"""The judge's own rule for an answer copied from the few-shot examples (the report's "copied" count).

Why its own, and frozen: the engine has a check for copied values (``example_value``) that it tunes
to steer the model; the report counting copies with that same rule could not tell when the check
misses. This rule changes only on purpose, with its own tests (``tests/test_judge.py``).
"""

from __future__ import annotations

from typing import Any, Iterable

import regex

from .refusals import is_refusal

__all__ = ["copied_value", "example_values"]

_NUMBER = regex.compile(r"\d[\d,]*(?:\.\d+)?")


def _numbers(text: str) -> set[str]:
    """Numbers as digits only ("48,213." -> "48213")."""
    return {raw.replace(",", "").rstrip(".") for raw in _NUMBER.findall(text)}


def example_values(episodes: Iterable[Any]) -> frozenset[str]:
    """The numbers in the episodes' observations and answers, and each answer that holds no number and
    refuses nothing (a name): what a run's answer must not hold unless it saw it itself."""
    found: set[str] = set()
    for ep in episodes:
        for text in [ep.answer, *(s.observation for s in ep.steps)]:
            found |= _numbers(text)
        if ep.answer and not _numbers(ep.answer) and not is_refusal(ep.answer):
            found.add(ep.answer.strip())
    return frozenset(found)


def copied_value(answer: str, episodes: Iterable[Any], own_texts: Iterable[str]) -> str | None:
    """A number of two digits or more in ``answer`` that the shown episodes hold, or an episode's answer
    that is a name, appearing in none of ``own_texts`` (the question, the tools' results)."""
    values = example_values(episodes)
    if not values:
        return None
    texts = list(own_texts)
    own = set().union(*(_numbers(t) for t in texts)) if texts else set()
    for value in sorted(_numbers(answer), key=lambda v: (-len(v), v)):  # the most telling number first
        if value in values and value not in own and len(value.replace(".", "")) >= 2:
            return value
    folded_answer, folded_own = answer.casefold(), "\n".join(texts).casefold()
    for value in sorted(v for v in values if not v.replace(".", "").isdigit()):
        if len(value) >= 3 and value.casefold() in folded_answer and value.casefold() not in folded_own:
            return value
    return None
