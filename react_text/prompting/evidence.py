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
Tarnwick Rovers FC never answers when Tarnwick itself was founded, nor "The lake has a
maximum depth of 48 metres" its average depth.

``read_sentences`` is that reading of a result list; ``facts`` reads results with it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..lexicon import en, zh
from ..lexicon.cjk import HAN

from ..lexicon.question import asks_for_number, numbers_in
from ..protocol.results import result_lines
from ..tools.search import query_terms

__all__ = ["COVERAGE", "MAX_QUOTE", "Sentence", "answering_sentence", "evidence_lead", "quote", "read_sentences", "terms"]

_HOW_MANY_ZH = re.compile(f"(?:多少|几)[{zh.MEASURE_WORDS}]?")
""""How many" with its measure word (多少名, 几座): the shape of the answer, not its topic."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
"""Sentences keep their closing mark, as the episodes quote them."""
COVERAGE = 0.7
"""Share of the question's content terms the sentence must hold."""
MAX_QUOTE = 300
_REFERENCE = re.compile(r"(?:it|its|she|her|he|his|they|their|(?:the|this)\s+(?P<noun>[a-z]+))\b|[它她他其此该这]",
                        re.IGNORECASE)
"""A sentence that opens by referring back: a pronoun, "the/this <noun>", or 它/她/他/其/此/该/这."""
_SUBJECT_END = re.compile(r"\s(?:is|was|are|were|has|had|have)\s|是|位于")
"""Where the subject of a passage's first sentence ends."""
_ASIDE = re.compile(r"[(（][^)）]*[)）]")
"""A title's aside ("Tarnwick (town)", "沈绮蘅（刺绣艺术家）"): not part of the name."""
_NAME_WORD = re.compile(rf"\b[A-Z][\w'-]*|[{HAN}]+")
_OPERAND = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:%|倍|percent\b|per\s*cent\b|times\b)", re.IGNORECASE)
"""A number the question computes with ("3倍", "15%", "4 times"), not one the fact must hold."""


def terms(text: str) -> tuple[set[str], set[str]]:
    """Content terms (the search tool's terms, numbers and answer words aside) and the numbers."""
    words = {t for t in query_terms(text)
             if not t.isdigit() and t not in en.ANSWER_WORDS and not zh.FUNCTION_CHARS.intersection(t)}
    return words, numbers_in(text)


@dataclass(frozen=True)
class Sentence:
    """One sentence of a numbered search result, read for the question at hand."""

    k: int
    """The result's number ``[k]``."""
    text: str
    words: frozenset[str]
    """Its content terms (``terms``)."""
    numbers: frozenset[str]
    borrowed: frozenset[str] = frozenset()
    """The name terms of the subject it refers back to ("It had 12,408 residents"), when the question names
    that subject and the sentence does not."""
    named_by: str = ""
    """The sentence that names the borrowed subject, when it opens the same result just before this one."""
    source: frozenset[str] = frozenset()
    """The terms of its file's name ("en/oskelby.txt": oskelby): documents are often named for their subject."""


def read_sentences(question_words: set[str], observation: str) -> list[Sentence]:
    """The sentences of every numbered result in ``observation``, in order; none when it is not a list of
    results. A result that names no subject of its own ("The bridge is 412 metres long.") takes the
    subject of the earliest result from the same file that names one."""
    results = [(r.k, r.source, _SENTENCE_END.split(r.text)) for r in result_lines(observation) if r.source is not None]
    of_file: dict[str, tuple[set[str], str]] = {}
    for _, path, sentences in reversed(results):
        name = _subject(sentences[0])
        if name:
            of_file[path] = (name, sentences[0])
    read: list[Sentence] = []
    for k, path, sentences in results:
        source = frozenset(terms(re.sub(r"[_\-]+", " ", path.rsplit("/", 1)[-1].rsplit(".", 1)[0]))[0])
        own = _subject(sentences[0])
        subject, first = (own, sentences[0]) if own else of_file.get(path, (set(), ""))
        if not subject <= question_words:
            subject = set()
        for i, sentence in enumerate(sentences):
            words, numbers = terms(sentence)
            borrowed = _referred(sentence, first, subject) - words if subject and (i or not own) else set()
            named_by = first.strip() if borrowed and own and i == 1 else ""
            read.append(Sentence(k, sentence.strip(), frozenset(words), frozenset(numbers), frozenset(borrowed),
                                 named_by, source))
    return read


def answering_sentence(question: str, observation: str) -> tuple[int, str] | None:
    """The numbered search result ``[k]`` and its sentence that look like the answer to ``question``.

    The sentence holds every number of the question (but those it computes with) and at
    least 70% of its content terms (all but the name when it borrows its subject's name,
    see above), and a number of its own when the question asks for one. The best-covering
    sentence wins; ties go to the earlier result. None when no sentence qualifies or
    the observation is not a list of numbered results.
    """
    q_words, q_numbers = terms(question)
    q_numbers -= numbers_in(" ".join(_OPERAND.findall(question)))
    if len(q_words) < 2:
        return None
    asks_number = asks_for_number(question)
    asked, _ = terms(_HOW_MANY_ZH.sub(" ", question))
    best: tuple[float, int, str] | None = None
    for sentence in read_sentences(q_words, observation):
        if not q_numbers <= sentence.numbers or (asks_number and not sentence.numbers - q_numbers):
            continue
        if sentence.borrowed and not asked - sentence.borrowed <= sentence.words:
            continue  # the name may come from the passage's subject; all the rest, the sentence must say
        coverage = len(q_words & (sentence.words | sentence.borrowed)) / len(q_words)
        if coverage >= COVERAGE and (best is None or coverage > best[0]):
            best = (coverage, sentence.k, sentence.text)
    if best is None or len(best[2]) > MAX_QUOTE:
        return None
    return best[1], best[2]


def _subject(first: str) -> set[str]:
    """The name terms of what a passage is about: the names before its first sentence's verb."""
    end = _SUBJECT_END.search(first)
    if end is None:
        return set()
    name, _ = terms(" ".join(_NAME_WORD.findall(_ASIDE.sub(" ", first[:end.start()]))))
    return name


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
    return quote(*found, lang)


def quote(k: int, sentence: str, lang: str) -> str:
    """Result ``[k]``'s sentence as the episodes quote it, opening a thought."""
    if zh.is_chinese(lang):
        ordinal = zh.ONE_TO_TEN[k - 1] if 1 <= k <= len(zh.ONE_TO_TEN) else str(k)
        return f" 第{ordinal}条结果写的是：“{sentence}”"
    return f' Result [{k}] says: "{sentence}"'


