"""Passages of a document and how a query ranks them: pure text logic behind the search tool.

The rankings (issue 25; ``bench/search_recall.py`` measures them): ``coverage`` scores
each paragraph with its document's title (so "It was built in 1962." still belongs to its subject)
and weighs a passage up by how much of its title the query names (the town asked about, not the
club named after it); it matches word forms ("founded", "founding"), picks results in turn, each
time weighing down the query terms already shown, so that a question about several things gets a
passage for each instead of all for the first; it leaves out passages far weaker than the best and
paragraphs that repeat one already shown, and shows a long passage at its best sentences rather
than cut after its first ones. ``baseline``, the default, is plain BM25 over each paragraph.
``coverage`` finds more of the facts a question needs without a model (recall@3 on the test split 22/23
against 21/23, held-out 23/27 against 21/27) yet the agent solved fewer test-split tasks with it (lookups
9/13 against 12/13), so it is a switch (``--search-ranking coverage``), not the default.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ..lexicon import en, zh
from ..lexicon.cjk import CJK

__all__ = ["Passage", "RANKINGS", "make_passage", "query_terms", "rank", "shown_text", "split_passages",
           "title_of"]

RANKINGS = ("baseline", "coverage")
"""The search tool's rankings, the default first (see the module docstring)."""

PASSAGE_CHARS = 600
SHOWN_CHARS = 500
COVERED = 0.35
"""What a query term already in a chosen passage still weighs when the next one is picked."""
FLOOR = 0.4
"""A passage scoring below this share of the best one is not shown at all: fewer results beat noise."""
_SAME = 0.8
"""Share of words two passages have in common from which the later one repeats the earlier."""

_CJK_RUN = re.compile(f"[{CJK}]+")
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")
_VOWEL = re.compile(r"[aeiouy]")
_CLOSING = (".", "!", "?", "。", "！", "？", ":", "：")
"""How a sentence or a label ends: a short line without one of these is a heading."""


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 16)  # a corpus repeats its words: each is rooted once
def _root(term: str) -> str:
    """A stemmed word without an ending of ``en.SUFFIXES`` or a final "e": "founded", "founding",
    "found" meet, as do "director"/"directs" and "lived"/"lives". CJK terms and numbers are left alone."""
    if not term.isascii() or not term.isalpha():
        return term
    for suffix, shortest in en.SUFFIXES.items():
        stem = term[: -len(suffix)]
        if term.endswith(suffix) and len(stem) >= shortest and _VOWEL.search(stem):
            if stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]  # "stopped" -> "stop"
            term = stem
            break
    return term[:-1] if len(term) > 3 and term.endswith("e") else term


def _latin_terms(folded: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(_CJK_RUN.sub(" ", folded))]


def query_terms(query: str) -> list[str]:
    """Search terms: stemmed words (minus stopwords) and CJK characters/bigrams."""
    folded = query.casefold()
    terms = [t for t in _latin_terms(folded) if t not in en.STOPWORDS]
    for run in _CJK_RUN.findall(folded):
        grams = [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]
        terms.extend(g for g in grams if g not in zh.STOPWORDS)
    return list(dict.fromkeys(terms))


@dataclass(frozen=True, eq=False)
class Passage:
    """A paragraph-sized piece of one file, with what its ranking's scorer needs precomputed: the text
    it counts CJK terms in and the counts of its Latin terms -- for ``baseline`` the paragraph's own
    stemmed words, for ``coverage`` their roots with the document's title."""

    path: str
    text: str
    folded: str
    words: Counter
    length: int
    title: str = ""
    title_terms: frozenset[str] = frozenset()


def make_passage(path: str, text: str, title: str = "", ranking: str = RANKINGS[0]) -> Passage:
    """A passage of the file at ``path`` whose document is titled ``title`` ("" for none), for ``ranking``."""
    folded = text.casefold()
    if ranking == "baseline":
        words = Counter(_latin_terms(folded))
        return Passage(path, text, folded, words, _length(words, folded), title)
    if title.casefold() not in folded:
        folded = f"{title.casefold()} {folded}".strip()
    words = Counter(_root(w) for w in _latin_terms(folded))
    return Passage(path, text, folded, words, _length(words, folded), title,
                   frozenset(_root(t) for t in query_terms(title)))


def _length(words: Counter, folded: str) -> int:
    return max(sum(words.values()) + len("".join(_CJK_RUN.findall(folded))), 1)


def title_of(text: str) -> str:
    """The document's first line when it is a heading (short, no closing punctuation), else ""."""
    first = text.strip().split("\n", 1)[0].strip().lstrip("#").strip()
    return first if 0 < len(first) < 80 and not first.endswith(_CLOSING) else ""


def split_passages(text: str) -> list[str]:
    """Paragraphs, with headings joined to the paragraph they introduce and long ones cut at sentences."""
    pieces: list[str] = []
    pending = ""
    for block in re.split(r"\n\s*\n", text):
        block = " ".join(block.split())
        if not block:
            continue
        block = f"{pending} {block}".strip() if pending else block
        if len(block) < 80 and not block.endswith(_CLOSING):
            pending = block  # a heading or a label: keep it with the paragraph it introduces
            continue
        pending = ""
        while len(block) > PASSAGE_CHARS:
            cut = max(block.rfind(mark, 0, PASSAGE_CHARS) for mark in (". ", "! ", "? ", "。", "！", "？", "; "))
            cut = cut + 1 if cut > PASSAGE_CHARS // 3 else PASSAGE_CHARS
            pieces.append(block[:cut].strip())
            block = block[cut:].strip()
        if block:
            pieces.append(block)
    if pending:
        pieces.append(pending)
    return pieces


def rank(passages: list[Passage], terms: list[str], limit: int, ranking: str = RANKINGS[0]) -> list[Passage]:
    """The ``limit`` passages to show for ``terms`` under ``ranking``, best first."""
    if ranking == "baseline":
        return _bm25(passages, terms, limit)
    if ranking == "coverage":
        return _cover(passages, [_root(t) for t in dict.fromkeys(terms)], limit)
    raise ValueError(f"unknown ranking {ranking!r}; expected one of {', '.join(RANKINGS)}")


def _saturated(f: int, length: int, average: float) -> float:
    return f * 2.2 / (f + 1.2 * (0.25 + 0.75 * length / average))


def _frequency(term: str, passage: Passage) -> int:
    if _CJK_RUN.fullmatch(term):
        return passage.folded.count(term)
    return passage.words.get(term, 0)


def _bm25(passages: list[Passage], terms: list[str], limit: int) -> list[Passage]:
    """BM25 over the passages: rare terms weigh more, long passages do not win by size alone."""
    count = len(passages)
    average = sum(p.length for p in passages) / count
    tf = {t: [_frequency(t, p) for p in passages] for t in terms}
    idf = {t: math.log(1 + (count - (df := sum(1 for f in tf[t] if f)) + 0.5) / (df + 0.5)) for t in terms}
    scored = []
    for i, passage in enumerate(passages):
        score = sum(idf[t] * _saturated(tf[t][i], passage.length, average) for t in terms if tf[t][i])
        if score > 0:
            scored.append((score, passage))
    scored.sort(key=lambda item: -item[0])
    return [passage for _, passage in scored[:limit]]


def _cover(passages: list[Passage], terms: list[str], limit: int) -> list[Passage]:
    """BM25 with titles and word roots, times one plus the share of the title the query names,
    picked greedily: after each pick the terms it shows weigh ``COVERED``, so the next pick is the
    best passage for what the results do not show yet; none below ``FLOOR`` of the best."""
    count = len(passages)
    average = sum(p.length for p in passages) / count
    gains: dict[int, dict[str, float]] = {}  # only the passages that hold a query term
    for i, passage in enumerate(passages):
        found = {t: f for t in terms if (f := _frequency(t, passage))}
        if found:
            gains[i] = {t: _saturated(f, passage.length, average) for t, f in found.items()}
    df = Counter(t for gain in gains.values() for t in gain)
    idf = {t: math.log(1 + (count - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    asked = set(terms)
    about = {i: 1 + len(passages[i].title_terms & asked) / max(len(passages[i].title_terms), 1) for i in gains}
    full = {i: about[i] * sum(idf[t] * g for t, g in gain.items()) for i, gain in gains.items()}
    floor = FLOOR * max(full.values(), default=0.0)
    gains = {i: gain for i, gain in gains.items() if full[i] >= floor}
    weight = dict.fromkeys(terms, 1.0)
    chosen: list[int] = []
    while len(chosen) < limit:
        best, best_score = -1, 0.0
        for i, gain in gains.items():
            score = about[i] * sum(weight[t] * idf[t] * g for t, g in gain.items())
            if score > best_score and not any(_repeats(passages[j], passages[i]) for j in chosen):
                best, best_score = i, score
        if best < 0:
            break
        chosen.append(best)
        for t in gains.pop(best):
            weight[t] *= COVERED
    return [passages[i] for i in chosen]


def _repeats(earlier: Passage, later: Passage) -> bool:
    """Whether ``later`` says nearly what ``earlier`` says (the same paragraph in another file)."""
    first, second = _shingles(earlier.text.casefold()), _shingles(later.text.casefold())
    shared = len(first & second)
    return shared > 0 and shared / len(first | second) >= _SAME


def _shingles(folded: str) -> set[str]:
    """Its words and CJK character pairs: what two copies of a paragraph have in common."""
    return set(_WORD.findall(_CJK_RUN.sub(" ", folded))) | {
        run[i:i + 2] for run in _CJK_RUN.findall(folded) for i in range(max(len(run) - 1, 1))}


def shown_text(passage: Passage, terms: list[str], ranking: str = RANKINGS[0]) -> str:
    """What the model sees of ``passage``: under ``coverage`` its title first and, when too long, the
    run of sentences that holds most query terms; under ``baseline`` its first ``SHOWN_CHARS``."""
    if ranking == "baseline":
        return passage.text if len(passage.text) <= SHOWN_CHARS else passage.text[:SHOWN_CHARS] + "…"
    head = f"{passage.title}: " if passage.title and passage.title.casefold() not in passage.text.casefold() else ""
    if len(head) + len(passage.text) <= SHOWN_CHARS:
        return head + passage.text
    sentences = [s for s in _SENTENCE_END.split(passage.text) if s.strip()]
    wanted = {_root(t) for t in terms}
    best, best_hits = (0, 1), -1
    for start in range(len(sentences)):
        end = start
        while end < len(sentences) and len(head) + len(" ".join(sentences[start:end + 1])) <= SHOWN_CHARS:
            end += 1
        end = max(end, start + 1)
        hits = len(wanted & set(map(_root, query_terms(" ".join(sentences[start:end])))))
        if hits > best_hits:
            best, best_hits = (start, end), hits
    start, end = best
    body = " ".join(sentences[start:end])
    body = body if len(head) + len(body) <= SHOWN_CHARS else body[:SHOWN_CHARS - len(head)] + "…"
    return head + ("…" if start else "") + body + ("…" if end < len(sentences) else "")
