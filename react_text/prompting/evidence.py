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

Prose names a thing once and then refers back to it ("The company was founded in 2009
by…", "She was born in 1931", "该公司现有员工…"). Such a sentence is read with the name
of what its passage, or an earlier result from the same file, is about (the capitalised
words, or the Chinese text, before the first sentence's verb, without a title's aside),
but only when the question names that subject in full, and the sentence must then hold
every other word of the question: "The club was founded in 1921" in a passage about
Varnholt Anchors FC never answers when Varnholt itself was founded, nor "The lake has a
maximum depth of 48 metres" its average depth.
"""

from __future__ import annotations

import re

from ..protocol.question import asks_for_number, numbers_in
from ..protocol.results import result_lines
from ..tools.search import query_terms

__all__ = ["answering_sentence", "evidence_lead"]

_ANSWER_WORDS = frozenset(
    "many much long deep tall high far old big wide heavy answer number give round nearest do doe did".split())
"""Words that say how to answer, not what about (beyond the search tool's stopwords)."""
_CJK_FUNCTION = frozenset("的是了在有多少几吗呢什么哪谁个请问和与及或")
"""Chinese function characters: a character pair holding one says nothing about the topic."""
_HOW_MANY_ZH = re.compile(r"(?:多少|几)[名个位座条本辆种次家所只头台件张支艘棵]?")
""""How many" with its measure word (多少名, 几座): the shape of the answer, not its topic."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
"""Sentences keep their closing mark, as the episodes quote them."""
_COVERAGE = 0.7
"""Share of the question's content terms the sentence must hold."""
_MAX_QUOTE = 300
_REFERENCE = re.compile(r"(?:it|its|she|her|he|his|they|their|(?:the|this)\s+(?P<noun>[a-z]+))\b|[它她他其此该这]",
                        re.IGNORECASE)
"""A sentence that opens by referring back: a pronoun, "the/this <noun>", or 它/她/他/其/此/该/这."""
_SUBJECT_END = re.compile(r"\s(?:is|was|are|were|has|had|have)\s|是|位于")
"""Where the subject of a passage's first sentence ends."""
_ASIDE = re.compile(r"[(（][^)）]*[)）]")
"""A title's aside ("Varnholt (town)", "沈绮蘅（刺绣艺术家）"): not part of the name."""
_NAME_WORD = re.compile(r"\b[A-Z][\w'-]*|[\u3400-\u9fff]+")
_OPERAND = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:%|倍|percent\b|per\s*cent\b|times\b)", re.IGNORECASE)
"""A number the question computes with ("3倍", "15%", "4 times"), not one the fact must hold."""
_ORDINALS_ZH = "一二三四五六七八九十"


def _terms(text: str) -> tuple[set[str], set[str]]:
    """Content terms (the search tool's terms, numbers and answer words aside) and the numbers."""
    words = {t for t in query_terms(text)
             if not t.isdigit() and t not in _ANSWER_WORDS and not _CJK_FUNCTION.intersection(t)}
    return words, numbers_in(text)


def answering_sentence(question: str, observation: str) -> tuple[int, str] | None:
    """The numbered search result ``[k]`` and its sentence that look like the answer to ``question``.

    The sentence holds every number of the question (but those it computes with) and at
    least 70% of its content terms (all but the name when it borrows its subject's name,
    see above), and a number of its own when the question asks for one. The best-covering
    sentence wins; ties go to the earlier result. None when no sentence qualifies or
    the observation is not a list of numbered results.
    """
    q_words, q_numbers = _terms(question)
    q_numbers -= numbers_in(" ".join(_OPERAND.findall(question)))
    if len(q_words) < 2:
        return None
    asks_number = asks_for_number(question)
    asked, _ = _terms(_HOW_MANY_ZH.sub(" ", question))
    best: tuple[float, int, str] | None = None
    results = [(r.k, r.source, _SENTENCE_END.split(r.text)) for r in result_lines(observation) if r.source is not None]
    # file -> (its subject, the sentence that names it), from the earliest of its results that names one
    named: dict[str, tuple[set[str], str]] = {}
    for _, path, sentences in reversed(results):
        subject = _subject(sentences[0], q_words)
        if subject:
            named[path] = (subject, sentences[0])
    for k, path, sentences in results:
        subject, first = named.get(path, (set(), ""))
        own = first == sentences[0]
        for i, sentence in enumerate(sentences):
            words, numbers = _terms(sentence)
            borrowed = _referred(sentence, first, subject) - words if subject and (i or not own) else set()
            if not q_numbers <= numbers or (asks_number and not numbers - q_numbers):
                continue
            if borrowed and not asked - borrowed <= words:
                continue  # the name may come from the passage's subject; all the rest, the sentence must say
            coverage = len(q_words & (words | borrowed)) / len(q_words)
            if coverage >= _COVERAGE and (best is None or coverage > best[0]):
                best = (coverage, k, sentence.strip())
    if best is None or len(best[2]) > _MAX_QUOTE:
        return None
    return best[1], best[2]


def _subject(first: str, q_words: set[str]) -> set[str]:
    """The name terms of what a passage is about (its first sentence's subject), when the question names it
    in full; else the empty set."""
    end = _SUBJECT_END.search(first)
    if end is None:
        return set()
    name, _ = _terms(" ".join(_NAME_WORD.findall(_ASIDE.sub(" ", first[:end.start()]))))
    return name if name and name <= q_words else set()


def _referred(sentence: str, first: str, subject: set[str]) -> set[str]:
    """``subject`` when ``sentence`` opens by referring back to it ("the company" only when the first
    sentence calls it a company); else the empty set."""
    m = _REFERENCE.match(sentence.strip())
    if m is None:
        return set()
    noun = m.group("noun")
    if noun is not None and not set(query_terms(noun)) & set(query_terms(first)):
        return set()
    return subject


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
