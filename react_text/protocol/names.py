"""Tool names: folding, cleaning and forgiving lookup against the tools a turn may name.

A model writes ``Search``, ``"search"``, ``functions.search`` or ``get-weather``
for the tool it means; everything here maps what it wrote to the canonical name
(or says which tool it probably meant), and nothing here reads a turn.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

ToolsArg = Union[Iterable[Any], Mapping[str, dict], None]  # names, schemas, Tool objects or functions

FINAL_NAMES: frozenset[str] = frozenset({
    "final answer", "final_answer", "final-answer", "finalanswer", "final", "finish",
    "answer", "final_response", "最终答案", "最终回答", "答案",
})
"""Tool names that mean "this is the final answer" (compared after folding case and separators)."""

MAX_NAME = 100  # longer "tool names" are sentences: no folding or fuzzy matching on them
IDENT = re.compile(r"[^\W\d][\w.\-]*")
SNAKE = re.compile(r"[a-z][a-z0-9]{0,40}(?:[_.][a-z0-9]{1,40}){1,8}")
# A tool name of a few words (crewAI: "Ask question to coworker"), read without tools=
WORDS_NAME = re.compile(r"[^\W\d][\w\-]{0,30}(?: [^\W\d][\w\-]{0,30}){1,5}")
SENTENCE_WORDS = frozenset({"i", "i'll", "we", "you", "me", "my", "let", "let's", "lets", "will", "should", "need",
                            "must", "going", "can", "could", "would", "am", "is", "are", "now", "first", "then",
                            "it", "them", "this", "that", "these", "those", "they", "he", "she", "us", "our",
                            "your", "his", "her", "final", "answer", "observation", "thought", "input"})
SEPARATORS = re.compile(r"[\s_\-]+")
NAME_PREFIXES = ("functions.", "function.", "tools.", "tool.")
NO_TOOL_WORDS = frozenset({"none", "n/a", "na", "null", "nothing", "no action", "no tool", "无"})


def fold(name: str) -> str:
    return _fold_short(name) if len(name) <= 64 else SEPARATORS.sub("", name.casefold())


@functools.lru_cache(maxsize=4096)
def _fold_short(name: str) -> str:
    """``fold`` of a short string, memoised: the same keys and tool names come back turn after turn."""
    return SEPARATORS.sub("", name.casefold())


def clean_name(raw: str) -> str:
    """Strip what models wrap a name in: quotes, backticks, bold, trailing punctuation, ``functions.``."""
    return _clean_short(raw) if len(raw) <= 64 else _clean(raw)


@functools.lru_cache(maxsize=4096)
def _clean_short(raw: str) -> str:
    """``_clean`` of a short string, memoised: a turn cleans the same name several times, and so do the next turns."""
    return _clean(raw)


def _unwrapped(raw: str) -> str:
    """``raw`` without the quotes, backticks, bold and trailing punctuation around it."""
    s = raw.strip().lstrip(":：").strip().strip("`*\"'“”‘’ ").strip()
    return s.rstrip(".,;:!?。，：").strip().strip("`*\"'“”‘’ ").strip()


def _clean(raw: str) -> str:
    s = _unwrapped(raw)
    low = s.casefold()
    for prefix in NAME_PREFIXES:
        if low.startswith(prefix) and len(s) > len(prefix):
            s = s[len(prefix):]
            break
    return s


def is_final_name(name: str) -> bool:
    return len(name) <= 40 and fold(name) in FINAL_KEYS


FINAL_KEYS = frozenset(fold(n) for n in FINAL_NAMES)


def suggest_tool(name: str, names: Sequence[str]) -> Optional[str]:
    """The tool in ``names`` that ``name`` is probably a misspelling or a part of, if any.

    ``get_wether`` and ``weather`` suggest ``get_weather``; ``search`` suggests nothing.
    """
    import difflib  # ~1 ms to import; only a misspelt tool name needs it

    key = fold(name[:MAX_NAME * 10])
    if not key or not names:
        return None
    by_key = {fold(n): n for n in names}
    if len(key) <= 64:  # difflib is quadratic; a long "name" is a sentence anyway
        close = difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.6)
        if close:
            return by_key[close[0]]
    for k, n in by_key.items():
        if len(k) >= 3 and (k in key or (len(key) >= 3 and key in k)):
            return n
    return None


@functools.lru_cache(maxsize=1024)
def _suggest(name: str, names: tuple[str, ...]) -> Optional[str]:
    """``suggest_tool`` memoised per tools tuple: a model repeats its misspelling, and difflib is slow."""
    return suggest_tool(name, names)


@dataclass(frozen=True)
class Toolset:
    """The tools a turn may name, indexed for forgiving lookup."""

    names: tuple[str, ...]
    schemas: Mapping[str, dict] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Folded other names (a tool's name in another language) -> the tool's name."""

    @functools.cached_property
    def _index(self) -> tuple[dict, dict]:
        folded: dict[str, Optional[str]] = {}
        keys: dict[str, Optional[str]] = {}
        for name in self.names:
            for table, k in ((folded, name.casefold()), (keys, fold(name))):
                table[k] = name if k not in table or table[k] == name else None
        return folded, keys

    def lookup(self, name: str) -> Optional[str]:
        if name in self.names:
            return name
        if len(name) > MAX_NAME:
            return None
        folded, keys = self._index
        return folded.get(name.casefold()) or keys.get(fold(name)) or self.aliases.get(fold(name))

    def suggest(self, name: str) -> Optional[str]:
        return _suggest(name, self.names) if len(name) <= MAX_NAME else suggest_tool(name, self.names)

    def parameters(self, name: str) -> dict:
        if not self.schemas:  # names only (the usual toolset): nothing is declared
            return {}
        schema = self.schemas.get(name) or {}
        if isinstance(schema.get("function"), dict):
            schema = schema["function"]
        if isinstance(schema.get("parameters"), dict):
            schema = schema["parameters"]
        return schema if isinstance(schema, dict) else {}

    def param_names(self, name: str) -> list[str]:
        props = self.parameters(name).get("properties")
        return list(props) if isinstance(props, dict) else []

    def owner_of(self, keys: Sequence[str]) -> Optional[str]:
        """The one tool whose declared arguments hold every key and whose required ones are all among
        them; None when no schema is declared, or none or several tools take these keys."""
        owners = []
        for name in self.names:
            params = self.parameters(name)
            props, required = params.get("properties"), params.get("required") or []
            if isinstance(props, dict) and props and set(keys) <= set(props) and set(required) <= set(keys):
                owners.append(name)
        return owners[0] if len(owners) == 1 else None

    def takes_no_arguments(self, name: str) -> bool:
        """Only a schema that declares its (empty) properties says so; ``{}`` just means "unknown"."""
        params = self.parameters(name)
        return isinstance(params.get("properties"), dict) and not params["properties"] and not params.get("required")


@functools.lru_cache(maxsize=256)
def _toolset_from_names(names: tuple[str, ...]) -> Toolset:
    return Toolset(names)


@functools.lru_cache(maxsize=256)
def _toolset_from_items(items: tuple) -> Optional[Toolset]:
    """The toolset of a list of names seen before, with no per-item checks; None when an item is no name."""
    return _toolset_from_names(items) if all(isinstance(item, str) for item in items) else None


def toolset(tools: Any) -> Optional[Toolset]:
    """Normalise ``tools``: names, a name -> schema mapping, Tool objects or OpenAI tool dicts."""
    if tools is None:
        return None
    if isinstance(tools, str):
        return _toolset_from_names((tools,))
    if type(tools) is list or type(tools) is tuple:  # the usual argument: names
        try:
            ts = _toolset_from_items(tuple(tools))
        except Exception:  # an unhashable item (a dict) cannot be looked up: read below
            ts = None
        if ts is not None:
            return ts
    if not isinstance(tools, (list, tuple)) and isinstance(tools, Mapping):  # a list skips the slow ABC check
        return Toolset(tuple(str(k) for k in tools), {str(k): v for k, v in tools.items() if isinstance(v, dict)})
    names: list[str] = []
    schemas: dict[str, dict] = {}
    aliases: dict[str, str] = {}
    for item in tools:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, Mapping):
            spec = item.get("function") if isinstance(item.get("function"), Mapping) else item
            if not isinstance(spec.get("name"), str):
                raise TypeError("a tool given as a dict needs a \"name\"")
            names.append(spec["name"])
            schemas[spec["name"]] = dict(spec)
        elif isinstance(getattr(item, "name", None), str):
            names.append(item.name)
            aliases.update((fold(a), item.name) for a in getattr(item, "aliases", ()) if isinstance(a, str))
            params = getattr(item, "parameters", None)
            if isinstance(params, dict):
                schemas[item.name] = params
        elif callable(item) and isinstance(getattr(item, "__name__", None), str):
            names.append(item.__name__)
            schemas[item.__name__] = _parameters_of(item)
        else:
            raise TypeError(f"cannot read a tool name from {type(item).__name__}")
    if not schemas and not aliases:
        return _toolset_from_names(tuple(names))
    return Toolset(tuple(names), schemas, {k: v for k, v in aliases.items() if k not in map(fold, names)})


def _parameters_of(fn: Any) -> dict:
    """Argument names (and which are required) of a plain function given as a tool: enough to map a
    positional or keyless input onto it. Types are the tool layer's business, not the parser's."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a readable signature: its name is enough
        return {}
    named = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return {"type": "object", "properties": {p.name: {} for p in named},
            "required": [p.name for p in named if p.default is p.empty]}


def match_tool(name: str, tools: ToolsArg) -> tuple[Optional[str], Optional[str]]:
    """The canonical tool ``name`` refers to (or None) and, when none, the closest suggestion.

    Matching forgives case, spaces vs ``_``/``-``, quotes, backticks, trailing
    punctuation and a ``functions.`` prefix. Without ``tools`` any
    identifier-like name is accepted as written (cleaned).
    """
    ts = toolset(tools)
    cleaned = clean_name(name)
    if ts is None:
        ok = bool(cleaned) and len(cleaned) <= 100 and IDENT.fullmatch(cleaned) is not None
        return (cleaned if ok else None), None
    found = ts.lookup(cleaned) if cleaned else None
    if found is None and cleaned:
        found = ts.lookup(_unwrapped(name))  # a tool whose own name has the prefix: ``functions.zero``
    if found is not None:
        return found, None
    return None, ts.suggest(cleaned or name)
