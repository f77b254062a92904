"""Quoting the result that answers the question at the start of the model's next thought.

Why: a small model imitates whichever few-shot episode its turn starts like. Shown a
search result that plainly answers the question, it still often copies the refusal
episode ("The results name the lake but say nothing about its depth") because that is
what the refusal episode does after a search. The lookup episode starts its thought by
quoting the result; when one result sentence holds the question's terms (and its
numbers, and a new number when a number is asked for), the loop writes that quote
for the model, in the episodes' own words, and the model finishes the thought.

The test is lexical and strict on purpose: a quote that does not answer the question
would push the model into a wrong answer, so anything doubtful gets no quote and the
model reads the result on its own, as before.
"""

from __future__ import annotations

import re

from ..protocol.question import asks_for_number, numbers_in
from ..tools.search import query_terms

__all__ = ["answering_sentence", "evidence_lead"]

_ANSWER_WORDS = frozenset("many much long deep tall high far old big wide heavy answer number give round nearest".split())
"""Words that say how to answer, not what about (beyond the search tool's stopwords)."""
_CJK_FUNCTION = frozenset("的是了在有多少几吗呢什么哪谁个请问")
"""Chinese function characters: a character pair holding one says nothing about the topic."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
"""Sentences keep their closing mark, as the episodes quote them."""
_RESULT = re.compile(r"^\s*\[(\d{1,2})\]\s*[^:：\s]*[:：]\s*(.*)$")
_COVERAGE = 0.7
"""Share of the question's content terms the sentence must hold."""
_MAX_QUOTE = 300
_ORDINALS_ZH = "一二三四五六七八九十"


def _terms(text: str) -> tuple[set[str], set[str]]:
    """Content terms (the search tool's terms, numbers and answer words aside) and the numbers."""
    words = {t for t in query_terms(text)
             if not t.isdigit() and t not in _ANSWER_WORDS and not _CJK_FUNCTION.intersection(t)}
    return words, numbers_in(text)


def answering_sentence(question: str, observation: str) -> tuple[int, str] | None:
    """The numbered search result ``[k]`` and its sentence that look like the answer to ``question``.

    The sentence holds every number of the question and at least 70% of its content
    terms, and a number of its own when the question asks for one. The best-covering
    sentence wins; ties go to the earlier result. None when no sentence qualifies or
    the observation is not a list of numbered results.
    """
    q_words, q_numbers = _terms(question)
    if len(q_words) < 2:
        return None
    asks_number = asks_for_number(question)
    best: tuple[float, int, str] | None = None
    for line in observation.splitlines():
        m = _RESULT.match(line)
        if m is None:
            continue
        for sentence in _SENTENCE_END.split(m.group(2)):
            words, numbers = _terms(sentence)
            if not q_numbers <= numbers or (asks_number and not numbers - q_numbers):
                continue
            coverage = len(q_words & words) / len(q_words)
            if coverage >= _COVERAGE and (best is None or coverage > best[0]):
                best = (coverage, int(m.group(1)), sentence.strip())
    if best is None or len(best[2]) > _MAX_QUOTE:
        return None
    return best[1], best[2]


def evidence_lead(question: str, observation: str, lang: str) -> str | None:
    """The start of the next thought, quoting the answering result as the episodes do; None without one."""
    found = answering_sentence(question, observation)
    if found is None:
        return None
    k, sentence = found
    if lang == "zh":
        ordinal = _ORDINALS_ZH[k - 1] if 1 <= k <= len(_ORDINALS_ZH) else str(k)
        return f" 第{ordinal}条结果写的是：“{sentence}”"
    return f' Result [{k}] says: "{sentence}"'
