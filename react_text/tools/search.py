"""The search tool: ranked passages from a folder of .txt/.md files, for questions about local documents.

The folder is read once, on the first call, within fixed bounds (files, bytes
per file and in all), so a huge or hostile folder cannot exhaust memory.
``query_terms`` is also the prompt retrieval's (and the evidence quote's) notion of a word, so both
read a question the same way.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..protocol.results import format_result
from .passages import RANKINGS, Passage, make_passage, query_terms, rank, shown_text, split_passages, title_of
from .spec import Tool, tool

__all__ = ["RANKINGS", "SEARCH_TOOL", "Passage", "query_terms", "search_files"]


SEARCH_TOOL = "search"
"""The search tool's name, which the loop's search-specific rules (a refusal's second look, no
"try another tool" after a search) look for."""
SEARCH_SUFFIXES = (".txt", ".md")
MAX_FILES = 5000
MAX_FILE_BYTES = 2_000_000
MAX_CORPUS_BYTES = 50_000_000


class _Corpus:
    """The folder's passages, read once on first use (thread-safe: calls may overlap after a timeout)."""

    def __init__(self, folder: Path, ranking: str) -> None:
        self.folder = folder
        self.ranking = ranking
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
                text = data.decode("utf-8", errors="replace")
                title = title_of(text)
                passages.extend(make_passage(relative, piece, title, self.ranking) for piece in split_passages(text))
                if self.files >= MAX_FILES or budget <= 0:
                    return passages
        return passages


def search_files(folder: str | os.PathLike[str], *, name: str = SEARCH_TOOL, max_results: int = 3,
                 max_chars: int = 2000, ranking: str = RANKINGS[0]) -> Tool:
    """A ``search`` tool over the .txt/.md files under ``folder`` (read on first call, then cached);
    ``ranking`` is one of ``RANKINGS`` (``react_text.tools.passages``)."""
    if ranking not in RANKINGS:
        raise ValueError(f"unknown ranking {ranking!r}; expected one of {', '.join(RANKINGS)}")
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise NotADirectoryError(f"search folder {str(root)!r} does not exist or is not a directory")
    corpus = _Corpus(root, ranking)

    def search(query: str) -> str:
        terms = query_terms(query)
        shown = query.strip()[:100]
        if not terms:
            return f'No results for "{shown}": the query has no searchable words. Try a few keywords.'
        passages = corpus.passages()
        if not passages:
            return f'No results for "{shown}": the folder has no .txt or .md files.'
        hits = rank(passages, terms, max_results, ranking)
        if not hits:
            return f'No results for "{shown}" in {corpus.files} files. Try other keywords.'
        return "\n".join(format_result(n, passage.path, shown_text(passage, terms, ranking))
                         for n, passage in enumerate(hits, 1))

    return tool(
        name=name,
        description=f"Search the local documents in '{root.name or root}' for passages about the query "
                    "(a few keywords work best).",
        max_chars=max_chars,
        examples={"query": "opening hours"},
        aliases=("搜索",) if name == "search" else (),
    )(search)
