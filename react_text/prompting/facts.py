"""The facts a question computes with, quoted together to open the model's next thought.

Why: asked "How many more employees does A have than B?", a small model finds both counts
and then answers with one of them, refuses, or subtracts numbers of its own; told the two
facts *and* which operation the question asks for, it writes the right expression ("1,842 -
264"). So when a question combines facts (a sum, a difference, a ratio, a percentage, a
multiple, a growth) and the results seen so far hold a sentence for each part of it, the
loop quotes those sentences, as the episodes quote a result, and names the calculation.

The reading is lexical, like ``evidence``'s: a fact is a sentence with a number the question
does not give that names something the question names; facts are taken, most new question
terms first, until they cover 70% of the question's terms. Two facts are needed (or one
sentence with two counts), one when the question scales a single fact ("if it doubled").
Anything less and the model reads the results on its own.
"""

from __future__ import annotations

import re
from os.path import commonprefix
from typing import Literal

from ..lexicon.question import numbers_in
from ..tools.calculator import CALCULATOR_TOOL
from ..lexicon import en, zh
from .evidence import COVERAGE, MAX_QUOTE, Sentence, evidence_lead, quote, read_sentences, terms

__all__ = ["combining_facts", "facts_lead", "named_lead", "operation", "thought_lead"]

_OPERATIONS: tuple[tuple[str, re.Pattern[str], str, str], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE), en, zh) for name, pattern, en, zh in (
        ("growth", r"\b(?:grow|grows|grew|increase[sd]?|rise|rises|rose)\b[^.?]*?\bby\s+\d[\d.]*\s*(?:%|percent)|"
                   r"增长\d[\d.]*%|增加\d[\d.]*%",
         "the number after the increase, so the calculation is number * (1 + percent / 100):",
         "增长以后的数，算式是 原数 * (1 + 百分数 / 100)："),
        ("percentage", r"\bpercentage\b|\bwhat percent\b|百分之几|百分之多少|百分比",
         "a percentage, so the calculation is part / whole * 100:", "百分比，算式是 部分 / 整体 * 100："),
        ("scale", r"\b(?:double[sd]?|triple[sd]?|quadruple[sd]?|twice|halved)\b|\d\s*倍|\d\s+times\b",
         "a multiple, so the calculation is number * factor:", "倍数，算式是 原数 * 倍数："),
        ("mean", r"\baverage\b[^?]*\band\b|平均[^？]*[和与及]",
         "the average, so the calculation is the sum divided by how many there are:", "平均数，算式是 总和 / 个数："),
        ("ratio", r"\bper\s+(?!cent\b)[a-z]+|\bon average\b|\bratio\b|平均|人均|每(?:名|个|位|户|人|天|年|平方|公里|千米)|密度",
         "one number per another, so the calculation is a division:", "平均到每一份的数，算式是除法："),
        ("difference", r"\bhow\s+(?:many|much)\s+(?:[a-z]+\s+)?(?:more|fewer|less|older|younger|longer|shorter|higher|"
                       r"taller|bigger|larger|smaller|earlier|later)\b|\bdifference\b|"
                       r"\byears?\s+(?:passed|elapsed|apart|after|before|between|earlier|later)\b|"
                       r"\b(?:older|younger|earlier|later|longer|shorter|more|fewer)\b[^?]*\bthan\b|\bhow old\b[^?]*\bwhen\b|"
                       r"相差|相隔|之差|比.{1,20}?(?:多|少|早|晚|大|小|高|低|长|短)|多少年|多少岁",
         "a difference, so the calculation is larger - smaller:", "差，算式是 大数 - 小数："),
        ("sum", r"\b(?:combined|together|total|sum|plus|in all)\b|加起来|一共|总共|合计|之和|总和",
         "a total, so the calculation is a sum:", "总和，算式是加法："),
    ))
"""How a question combines facts ("if it doubled", "per employee", "how many more", "加起来"), in the
order they are tried, with the calculation's shape in each language."""
_YEAR = re.compile(r"(?:\b(?:in|since|from|until|by)\s+|于|在)(1\d{3}|20\d{2})(?!\d|,\d)|(?<![\d,])(1\d{3}|20\d{2})\s*年")
"""A year as prose writes one ("in 1911", "于1927年"); "1,926人" is a count."""
_UNIT = re.compile(r"\bin\s+(?:square\s+)?([a-z]+)\s*[?.]")
"""The unit the answer is asked in ("…, in pounds?"): how to answer, not what about."""
_SHAPE_ZH = re.compile(f"(?:多少|几)[{zh.MEASURE_WORDS}岁]?|"
                       r"人数|倍|加起来|人均|百分之|一共|总共|合计|平均|每名|每个|每位|相差|相隔|"
                       r"密度|保留|一位|小数|四舍五入|整数|结果|对应|变成|现在|"
                       r"如果|数据|按|到|人")
_MAX_FACTS = 3
_NAME_WORD = re.compile(r"\b[A-Z][a-z][\w'-]*")
"""A capitalised word: in English, what names the things a fact must be about."""


def _covers(term: str, words: frozenset[str]) -> bool:
    """Whether ``term`` is among ``words``, or shares a stem with one ("opening" ~ "opened")."""
    if term in words:
        return True
    if not term.isascii() or len(term) < 4:
        return False
    return any(len(shared := commonprefix([term, word])) >= 4 and len(shared) >= min(len(term), len(word)) - 3
               for word in words)


def _counts(text: str) -> set[str]:
    """The numbers in ``text`` but its years."""
    return numbers_in(text) - {a or b for a, b in _YEAR.findall(text)}


def operation(question: str) -> str | None:
    """How ``question`` combines facts (``growth``, ``percentage``, ``scale``, ``ratio``, ``difference``,
    ``sum``), or None when it asks for one fact."""
    return next((name for name, pattern, _, _ in _OPERATIONS if pattern.search(question)), None)


def combining_facts(question: str, observations: list[str]) -> list[tuple[int, int, str]] | None:
    """The result sentences that give the numbers ``question`` computes with, as (observation index,
    result number, quoted text) in the order seen; None when the question does not combine facts or
    the observations (oldest first) do not cover it."""
    op = operation(question)
    q_words, q_numbers = terms(_SHAPE_ZH.sub(" ", question))
    q_words = {w for w in q_words if w not in en.COMBINING_WORDS} - terms(" ".join(_UNIT.findall(question)))[0]
    if op is None or len(q_words) < 2:
        return None
    names = terms(" ".join(w for w in _NAME_WORD.findall(question)))[0] & q_words
    candidates: list[tuple[int, Sentence, set[str]]] = []
    quoted: set[str] = set()
    for o, observation in enumerate(observations):
        for sentence in read_sentences(q_words, observation):
            covered = {t for t in q_words if _covers(t, sentence.words | sentence.borrowed | sentence.source)}
            named = covered & names if names else len(covered) >= 2
            if sentence.numbers - q_numbers and named and len(sentence.text) <= MAX_QUOTE and sentence.text not in quoted:
                quoted.add(sentence.text)
                candidates.append((o, sentence, covered))
    chosen: list[tuple[int, Sentence, set[str]]] = []
    covered: set[str] = set()
    numbers: set[str] = set()
    while len(chosen) < _MAX_FACTS and len(covered) < COVERAGE * len(q_words):
        adding = [c for c in candidates if c[2] - covered and c[1].numbers - q_numbers - numbers]
        if not adding:
            break
        pick = max(adding, key=lambda c: len(c[2] - covered))  # the most new terms; ties to the earlier
        chosen.append(pick)
        covered |= pick[2]
        numbers |= pick[1].numbers - q_numbers
    if len(covered) < COVERAGE * len(q_words):
        return None
    if op not in ("growth", "scale") and len(chosen) < 2 and (op == "sum" or len(_counts(chosen[0][1].text) - q_numbers) < 2):
        # two facts, or one sentence with two counts ("学生1,926人，教师142人"; not "in 1911, 41 boats", and not
        # for a sum, whose parts are two things the question names: "12,408, up from 11,870" is one). A
        # quotient's other fact may add no word of the question ("a workforce of 1,150" beside "revenue of
        # £138 million", per employee): the one that covers most of it, with a number that is no year
        second = [c for c in candidates if c[1] is not chosen[0][1] and _counts(c[1].text) - q_numbers - numbers]
        if op not in ("ratio", "percentage", "mean") or not second:
            return None
        chosen.append(max(second, key=lambda c: len(c[2])))
    return [(o, s.k, f"{s.named_by} {s.text}" if s.named_by else s.text)
            for o, s, _ in sorted(chosen, key=lambda c: (c[0], c[1].k))]


def facts_lead(question: str, observations: list[str], lang: str) -> str | None:
    """The start of the next thought for a question that combines facts: the results that give its
    numbers, quoted as the episodes quote, then the calculation it asks for. None unless the newest
    observation gives one of them (an older quote was offered already)."""
    facts = combining_facts(question, observations)
    if not facts or all(o != len(observations) - 1 for o, _, _ in facts):
        return None
    quotes = "".join(quote(k, text, lang) for _, k, text in facts)
    _, _, in_en, in_zh = next(o for o in _OPERATIONS if o[0] == operation(question))
    return f"{quotes} 问题问的是{in_zh}" if zh.is_chinese(lang) else f"{quotes} The question asks for {in_en}"


def thought_lead(question: str, observations: list[str], lang: str, tool_names: tuple[str, ...], *,
                 facts: bool = True, evidence: bool = True) -> str | None:
    """The quote that opens the next thought after ``observations`` (oldest first): the facts a combining
    question computes with (when a calculator is offered to compute them), else the newest result's
    answering sentence (``evidence``), else None. ``facts`` and ``evidence`` switch either off."""
    found = named_lead(question, observations, lang, tool_names, facts=facts, evidence=evidence)
    return found[1] if found else None


def named_lead(question: str, observations: list[str], lang: str, tool_names: tuple[str, ...], *,
               facts: bool = True, evidence: bool = True) -> tuple[Literal["facts", "evidence"], str] | None:
    """``thought_lead`` with the lead that made it, for the trace: an ablation must know which one acted."""
    lead = facts_lead(question, observations, lang) if facts and CALCULATOR_TOOL in tool_names else None
    if lead:
        return "facts", lead
    lead = evidence_lead(question, observations[-1], lang) if evidence and observations else None
    return ("evidence", lead) if lead else None
