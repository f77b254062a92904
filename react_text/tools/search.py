"""The search tool: ranked passages from a folder of .txt/.md files, for questions about local documents.

The folder is read once, on the first call, within fixed bounds (files, bytes
per file and in all), so a huge or hostile folder cannot exhaust memory.
``query_terms`` is also the prompt retrieval's (and the evidence quote's) notion of a word, so both
read a question the same way.
"""

from __future__ import annotations

import math
import os
import re
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..lexicon import en, zh
from ..lexicon.cjk import CJK

from ..protocol.results import format_result
from .spec import Tool, tool

__all__ = ["SEARCH_TOOL", "Passage", "query_terms", "search_files"]


SEARCH_TOOL = "search"
"""The search tool's name, which the loop's search-specific rules (a refusal's second look, no
"try another tool" after a search) look for."""
SEARCH_SUFFIXES = (".txt", ".md")
MAX_FILES = 5000
MAX_FILE_BYTES = 2_000_000
MAX_CORPUS_BYTES = 50_000_000
PASSAGE_CHARS = 600
SHOWN_CHARS = 500

_CJK_RUN = re.compile(f"[{CJK}]+")
_WORD = re.compile(r"[^\W_]+")

def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


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
    """A paragraph-sized piece of one file, with what the scorer needs precomputed."""

    path: str
    text: str
    folded: str
    words: Counter
    length: int


def _split_passages(text: str) -> list[str]:
    """Paragraphs, with headings joined to the paragraph they introduce and long ones cut at sentences."""
    pieces: list[str] = []
    pending = ""
    for block in re.split(r"\n\s*\n", text):
        block = " ".join(block.split())
        if not block:
            continue
        block = f"{pending} {block}".strip() if pending else block
        if len(block) < 80 and not block.endswith((".", "!", "?", "。", "！", "？", ":", "：")):
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


class _Corpus:
    """The folder's passages, read once on first use (thread-safe: calls may overlap after a timeout)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._passages: list[Passage] | None = None
        self.files = 0

    def passages(self) -> list[Passage]:
        with self._lock:
            if self._passages is None:
                self._passages = self._load()
            return self._passages

    def _load(self) -> list[Passage]:
        root = self.folder.resolve()
        passages: list[Passage] = []
        budget = MAX_CORPUS_BYTES
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                if filename.startswith(".") or not filename.lower().endswith(SEARCH_SUFFIXES):
                    continue
                path = Path(dirpath, filename)
                try:
                    real = path.resolve()
                    if not real.is_relative_to(root) or not real.is_file():
                        continue  # a link out of the folder: not part of this corpus
                    with open(real, "rb") as fh:  # at most the cap: a huge file must not be read whole
                        data = fh.read(min(MAX_FILE_BYTES, budget))
                except OSError:
                    continue
                budget -= len(data)
                self.files += 1
                relative = path.relative_to(root).as_posix()
                for piece in _split_passages(data.decode("utf-8", errors="replace")):
                    folded = piece.casefold()
                    words = Counter(_latin_terms(folded))
                    length = sum(words.values()) + len("".join(_CJK_RUN.findall(folded)))
                    passages.append(Passage(relative, piece, folded, words, max(length, 1)))
                if self.files >= MAX_FILES or budget <= 0:
                    return passages
        return passages


def _rank(passages: list[Passage], terms: list[str], limit: int) -> list[tuple[float, Passage]]:
    """BM25 over the passages: rare terms weigh more, long passages do not win by size alone."""
    def frequency(term: str, passage: Passage) -> int:
        if _CJK_RUN.fullmatch(term):
            return passage.folded.count(term)
        return passage.words.get(term, 0)

    count = len(passages)
    average = sum(p.length for p in passages) / count
    tf = {t: [frequency(t, p) for p in passages] for t in terms}
    idf = {t: math.log(1 + (count - (df := sum(1 for f in tf[t] if f)) + 0.5) / (df + 0.5)) for t in terms}
    scored = []
    for i, passage in enumerate(passages):
        score = 0.0
        for term in terms:
            f = tf[term][i]
            if f:
                score += idf[term] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * passage.length / average))
        if score > 0:
            scored.append((score, passage))
    scored.sort(key=lambda item: -item[0])
    return scored[:limit]


def search_files(folder: str | os.PathLike[str], *, name: str = SEARCH_TOOL, max_results: int = 3,
                 max_chars: int = 2000) -> Tool:
    """A ``search`` tool over the .txt/.md files under ``folder`` (read on first call, then cached)."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise NotADirectoryError(f"search folder {str(root)!r} does not exist or is not a directory")
    corpus = _Corpus(root)

    def search(query: str) -> str:
        terms = query_terms(query)
        shown = query.strip()[:100]
        if not terms:
            return f'No results for "{shown}": the query has no searchable words. Try a few keywords.'
        passages = corpus.passages()
        if not passages:
            return f'No results for "{shown}": the folder has no .txt or .md files.'
        hits = _rank(passages, terms, max_results)
        if not hits:
            return f'No results for "{shown}" in {corpus.files} files. Try other keywords.'
        lines = []
        for n, (_, passage) in enumerate(hits, 1):
            text = passage.text if len(passage.text) <= SHOWN_CHARS else passage.text[:SHOWN_CHARS] + "…"
            lines.append(format_result(n, passage.path, text))
        return "\n".join(lines)

    return tool(
        name=name,
        description=f"Search the local documents in '{root.name or root}' for passages about the query "
                    "(a few keywords work best).",
        max_chars=max_chars,
        examples={"query": "opening hours"},
        aliases=("搜索",) if name == "search" else (),
    )(search)
