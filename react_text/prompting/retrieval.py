"""Choosing which of many tools a small model sees for one question.

A small model given fifty tool descriptions reads mostly noise and pays for
every one of them in prompt tokens on every turn. With retrieval the prompt
lists only the ``max_shown`` tools whose name, description and arguments best
match the question (BM25 over the same terms the ``search`` tool uses: stemmed
words, Chinese character bigrams), plus a built-in ``list_tools(query)`` the
model can call to see more. A tool it lists becomes callable from the next
turn on; its signature stays in the scratchpad, so the prompt head (and the
backend's prefix cache) never changes.

Everything here is pure except ``ToolRetrieval.list_tool``, whose function
records what it revealed for the run that owns it.
"""

from __future__ import annotations

import bisect
import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..lexicon import en
from ..lexicon.cjk import CJK

from ..tools.spec import tool
from ..tools.search import query_terms  # the search tool's terms: one notion of a "word" in the project
from .tool_views import describe_tools, json_args

__all__ = ["LIST_TOOLS", "Listing", "ToolIndex", "ToolMatch", "ToolRetrieval", "clear_pick", "fits_nothing",
           "named_tools", "tool_terms"]

LIST_TOOLS = "list_tools"
DEFAULT_MAX_SHOWN = 8
DEFAULT_LIST_SIZE = 5

_STEM_CHARS = 6
"""Latin terms are cut to this many characters: a crude stemmer that makes
``convert``/``conversion`` and ``calculate``/``calculator`` meet."""
_NAME_WEIGHT = 3
"""A word in the tool's name counts as this many occurrences."""
_CLEAR_SCORE = 1.0
_CLEAR_MARGIN = 1.5
"""A clear pick scores at least this much, and this many times the next tool's score."""
_IDENTIFIER_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-.]+")
_OPEN_ARGUMENTS = frozenset({"query", "q", "question", "prompt", "search", "keywords", "expression", "formula",
                             "code", "input", "command", "url", "answer"})
"""Arguments that take free text to work on (or, for a ``final_answer`` tool, give the answer): a tool
with one serves questions in any words."""
_CJK = re.compile(f"[{CJK}]")


def tool_terms(text: str) -> list[str]:
    """Index terms of ``text``: identifiers split at ``_``, ``-``, ``.`` and camelCase,
    then the search tool's terms (stopwords dropped, plural stemmed, CJK bigrams),
    Latin ones cut to a common stem; bare numbers say nothing about which tool to use."""
    split = _IDENTIFIER_BREAK.sub(" ", text)
    return [t if not t.isascii() or len(t) <= _STEM_CHARS else t[:_STEM_CHARS]
            for t in query_terms(split) if not t.isdigit() and t not in en.TOOL_NEUTRAL_WORDS]


@dataclass(frozen=True)
class ToolMatch:
    name: str
    score: float


@dataclass(frozen=True)
class Listing:
    """What one ``list_tools`` call showed: the tools it revealed and the observation text."""

    names: tuple[str, ...]
    text: str


def _document(tool: Any) -> Counter:
    """A tool as weighted terms: name words weigh more than description and argument words."""
    terms: Counter = Counter()
    for term in tool_terms(tool.name):
        terms[term] += _NAME_WEIGHT
    parts = [tool.description or ""]
    for arg, schema in (tool.parameters.get("properties") or {}).items():
        parts.append(arg)
        if isinstance(schema, dict):
            parts.append(str(schema.get("description") or ""))
            enum = schema.get("enum")
            if isinstance(enum, list):
                parts.extend(str(v) for v in enum)
    for term in tool_terms(" ".join(parts)):
        terms[term] += 1
    return terms


def tool_words(tool: Any) -> frozenset[str]:
    """Every term a tool is known by: its name, description, argument names, their descriptions and enums."""
    return frozenset(_document(tool))


class ToolIndex:
    """BM25 over tool documents (name, description, argument names, descriptions and enums).

    Built once per tool set as an inverted index (term -> the tools holding it), so
    ranking a query costs its own terms plus the tools those terms name: a
    megabyte of query over thousands of tools stays linear, never terms x tools.
    """

    def __init__(self, tools: Sequence[Any]) -> None:
        self.names: tuple[str, ...] = tuple(t.name for t in tools)
        docs = [_document(t) for t in tools]
        lengths = [max(1, sum(d.values())) for d in docs]
        average = sum(lengths) / max(1, len(lengths))
        postings: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(docs):
            for term, f in doc.items():
                postings.setdefault(term, []).append((i, f))
        n = len(docs)
        self._postings: dict[str, tuple[tuple[int, float], ...]] = {}
        for term, hits in postings.items():
            idf = math.log(1 + (n - len(hits) + 0.5) / (len(hits) + 0.5))
            self._postings[term] = tuple(
                (i, idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * lengths[i] / average))) for i, f in hits)
        self.vocabulary: tuple[str, ...] = tuple(sorted(postings))
        """Every term of every tool, sorted (for prefix look-ups)."""

    def rank(self, query: str, *, exclude: Sequence[str] = ()) -> tuple[ToolMatch, ...]:
        """Every tool matching at least one query term, best first (ties keep declaration order)."""
        scores: dict[int, float] = {}
        for term in dict.fromkeys(tool_terms(query)):
            for i, weight in self._postings.get(term, ()):
                scores[i] = scores.get(i, 0.0) + weight
        skip = set(exclude)
        scored = sorted((-score, i) for i, score in scores.items() if score > 0 and self.names[i] not in skip)
        return tuple(ToolMatch(self.names[i], round(-score, 4)) for score, i in scored)

    def top(self, query: str, k: int) -> tuple[ToolMatch, ...]:
        """Exactly ``min(k, len(tools))`` tools: the best matches, then unmatched tools in declaration order."""
        matches = list(self.rank(query)[:k])
        taken = {m.name for m in matches}
        for name in self.names:
            if len(matches) >= k:
                break
            if name not in taken:
                matches.append(ToolMatch(name, 0.0))
        return tuple(matches)

    def meets(self, word: str) -> bool:
        """Whether ``word`` meets a term loosely: one of the two is the start of the other (two characters
        at least). Looked up in the sorted vocabulary, so a word costs its length, not the vocabulary's."""
        if len(word) >= 2:
            at = bisect.bisect_left(self.vocabulary, word)
            if at < len(self.vocabulary) and self.vocabulary[at].startswith(word):
                return True
        return any(word[:k] in self._postings for k in range(2, len(word)))


_INDEXES: OrderedDict[tuple[int, ...], tuple[Sequence[Any], ToolIndex]] = OrderedDict()
_INDEXES_LOCK = threading.Lock()


def index_for(tools: Sequence[Any]) -> ToolIndex:
    """The index of ``tools``, built once per tool set: a run (or a request) asks about the same tools
    several times. The cache holds the tools themselves, so an ``id`` in its key cannot be reused."""
    key = tuple(map(id, tools))
    with _INDEXES_LOCK:
        if key in _INDEXES:
            _INDEXES.move_to_end(key)
            return _INDEXES[key][1]
    index = ToolIndex(tools)
    with _INDEXES_LOCK:
        _INDEXES[key] = (tuple(tools), index)
        while len(_INDEXES) > 16:
            _INDEXES.popitem(last=False)
    return index


def clear_pick(tools: Sequence[Any], question: str) -> str | None:
    """The one tool the question's own words point to, when they point clearly: the best match scores
    at least ``_CLEAR_SCORE`` and ``_CLEAR_MARGIN`` times the next. None when they point nowhere (a
    question no tool fits) or to several alike, where only the model can judge."""
    ranked = index_for(tools).rank(question)
    if not ranked or ranked[0].score < _CLEAR_SCORE:
        return None
    if len(ranked) > 1 and ranked[0].score < _CLEAR_MARGIN * ranked[1].score:
        return None
    return ranked[0].name


def named_tools(tools: Sequence[Any], question: str) -> tuple[str, ...]:
    """The tools the question's own words point to as clearly as ``clear_pick`` asks of one, best first, when
    two or more are (a request in several parts: "the GCD of 96 and 128, and the LCM of 15 and 25"); none
    otherwise."""
    named = tuple(t.name for t in index_for(tools).rank(question) if t.score >= _CLEAR_SCORE)
    return named if len(named) >= 2 else ()


def fits_nothing(tools: Sequence[Any], question: str) -> bool:
    """Whether no offered tool shares a word with the question, even loosely (one word the start of
    the other: ``mi`` and ``miles``). Asked "What is the weather in Oslo?" with shop tools, a small
    model still calls one (``item_price {"item": "Oslo"}``); a question that meets no tool's name,
    description, arguments or enums is one it should answer without a tool. Never for a question in
    a script the tools are not written in (a Chinese question meets no English tool, fit or not), nor
    with a tool that takes free text to work on (``_OPEN_ARGUMENTS``: a search, a fetch, a calculator, a
    ``final_answer``), which fits questions that share no word with it."""
    if any(_OPEN_ARGUMENTS.intersection(t.parameters.get("properties") or {}) for t in tools):
        return False
    words = set(tool_terms(question))
    index = index_for(tools)
    vocabulary = index.vocabulary
    if len(words) < 2 or not vocabulary or (_CJK.search(question) and not any(_CJK.search(v) for v in vocabulary)):
        return False
    return not any(index.meets(word) for word in words)


def describe_line(tool: Any) -> str:
    """One tool as ``list_tools`` shows it: name, description and JSON argument shape."""
    (spec,) = describe_tools([tool])
    return f"- {spec.name}: {spec.description} Arguments: {json_args(spec)}"


class ToolRetrieval:
    """Which tools a run shows: the top ``max_shown`` for the question, plus what ``list_tools`` reveals."""

    def __init__(self, tools: Sequence[Any], *, max_shown: int = DEFAULT_MAX_SHOWN,
                 list_size: int = DEFAULT_LIST_SIZE) -> None:
        if max_shown < 1 or list_size < 1:
            raise ValueError(f"max_shown and list_size must be at least 1, got {max_shown} and {list_size}")
        if any(t.name == LIST_TOOLS for t in tools):
            raise ValueError(f"a tool is named {LIST_TOOLS!r}, the name of the built-in tool finder")
        self.tools = {t.name: t for t in tools}
        self.index = index_for(tools)
        self.max_shown = max_shown
        self.list_size = list_size

    def shown(self, question: str) -> tuple[ToolMatch, ...]:
        """The tools the prompt lists for ``question`` (``list_tools`` comes on top)."""
        return self.index.top(question, self.max_shown)

    def listing(self, query: str, visible: Sequence[str]) -> Listing:
        """The ``list_tools`` observation for ``query``, given the tools the model already has."""
        query = query.strip()
        shown = set(visible)
        hidden = [n for n in self.index.names if n not in shown]
        if not hidden:
            return Listing((), "You already have every tool; there are no others.")
        matches = self.index.rank(query, exclude=visible)[: self.list_size] if query else ()
        if not matches:
            names = ", ".join(hidden)
            return Listing((), f'No other tool matches "{query[:100]}". Other tools: {names}. '
                               "Call list_tools with words from a tool's name to see how to use it.")
        names = tuple(m.name for m in matches)
        lines = [describe_line(self.tools[n]) for n in names]
        return Listing(names, "Tools you can use now:\n" + "\n".join(lines))

    def list_tool(self, visible: Callable[[], tuple[str, ...]], reveal: Callable[[tuple[str, ...]], None]) -> Any:
        """The ``list_tools`` tool for one agent: lists tools hidden from ``visible()`` and ``reveal``s them."""
        lock = threading.Lock()

        def list_tools(query: str) -> str:
            """List more tools whose name or description matches the query, with their arguments."""
            with lock:
                found = self.listing(query, visible())
                if found.names:
                    reveal(found.names)
            return found.text

        return tool(name=LIST_TOOLS, timeout=None, examples={"query": "convert units"},
                    description="List more tools that match the query (a few words about what you need), "
                                "with their arguments.")(list_tools)
