"""Read one model turn, in whatever ReAct dialect the model chose, into a ``Step``.

``parse(text, tools=None, *, prose="error") -> Step`` is pure and never raises
for any ``str``. It reads LangChain style (``Action:`` / ``Action Input:``),
calls (``Act: search(query="x")``), the paper's ``Search[x]`` / ``Finish[x]``
(labelled or alone on a line), JSON blobs in every common key convention
(bare, fenced, in prose, in ``<tool_call>`` tags, ModelScope's ``api_name`` /
``parameters``), Semantic Kernel's ``[ACTION]`` / ``[FINAL ANSWER]`` with
``action_variables``, LangChain's XML agent (``<tool>``, ``<tool_input>``,
``<final_answer>``), Haystack's ``Tool:`` / ``Tool Input:``, Chinese labels,
and the sloppy variants small models write. Labels count only at the start of
a line (after optional markdown decoration), so "Action" inside a thought is
prose. A bare input runs on over its following lines up to a blank line or a
label line.

Trust: nothing after the first action's input is trusted. A made-up
``Observation:``, a later ``Final Answer:`` or a new ``Question:`` is cut off
at ``Step.end`` (repair ``dropped_tail``); several actions written back to
back, before any observation, all come back in order. Two echoes are looked
past: an ``Observation:`` the turn opens with (the model repeating the last
result), and the prompt's format example (``Action: the action to take``,
``{"action": "tool_name", ...}``) when a real step follows it; an echo alone
is an error. When in doubt the answer is an error, never a guess.

Error codes (``Step.error.code``; stable, the message is written for the model
and shows the line it should write):

- ``empty``: nothing but whitespace (or bare labels) in the turn.
- ``no_action``: no action and no final answer (a thought alone, plain prose
  under ``prose="error"``, or a tool slot that holds no tool name at all).
- ``unknown_tool``: the tool slot names no tool in ``tools``; lists the valid
  tools and suggests the closest one.
- ``placeholder``: the model echoed the prompt's instructions
  (``the action to take``, ``$JSON_BLOB``, ``<tool>(<arguments>)``, ``...``).
- ``missing_input``: an ``Action:`` with no ``Action Input:`` after it.
- ``bad_arguments``: the input is not readable (broken JSON a person could not
  read either, or nested too deeply).
- ``truncated``: the input was cut off mid-string or after a comma (the token
  limit); never turned into a shortened call.
- ``missing_answer``: a final-answer label with nothing after it.
- ``internal``: a bug in this module; tests show it does not happen.

Repairs (``Step.repairs``) name what had to be mended: ``dropped_tail``,
``tool_name`` (case/separators/quotes fixed), ``name_on_next_line``,
``inline_input`` (``Action: search: x``), ``unlabeled_input`` (JSON right
under ``Action:`` without ``Action Input:``), ``extra_brace``,
``arguments_string_decoded``, ``positional_args``, ``raw_arguments``,
``closed_brackets``, ``dropped_truncated_action``, ``prose_as_final``,
``stated_answer`` (a thought that ends "The final answer is X." read as
``Final Answer: X``),
``too_many_actions``, ``emphasis`` (``**x**`` around an input),
``call_wrapper`` (``QueryEngineTool({...})``), ``tool_description``
(``Action: add (add two numbers)`` over an input line), ``unlabeled_action``
(a bare ``Search[x]`` line), plus the JSON repairs of ``react_text.protocol.jsonish``.

Cost: linear in the turn, and bounded on hostile input: JSON-looking lines
that are not JSON, echoed blocks and lenient JSON reading each have a per-turn
budget (``bench/parser_bench.py`` checks < 0.1 s of CPU per MB).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional, Union


from . import feedback, jsonish
from ..types import Action, FormatError, Step

__all__ = ["parse", "match_tool", "suggest_tool", "FINAL_NAMES", "ERROR_CODES", "MAX_ACTIONS"]

ToolsArg = Union[Iterable[str], Mapping[str, dict], None]

FINAL_NAMES: frozenset[str] = frozenset({
    "final answer", "final_answer", "final-answer", "finalanswer", "final", "finish",
    "answer", "final_response", "最终答案", "最终回答", "答案",
})
"""Tool names that mean "this is the final answer" (compared after folding case and separators)."""

ERROR_CODES: tuple[str, ...] = (
    "empty", "no_action", "unknown_tool", "placeholder", "missing_input",
    "bad_arguments", "truncated", "missing_answer", "internal",
)

MAX_ACTIONS = 32
"""More actions than this in one turn are dropped (repair ``too_many_actions``)."""

_MAX_NAME = 100  # longer "tool names" are sentences: no folding or fuzzy matching on them
# Linear time comes from the design: lines are found with str.find, every
# pattern is anchored with bounded, un-nested quantifiers or is a single
# character class (the walk's line filter looks ahead within one line, once a
# line), and JSON nesting is capped. (No regex timeout: its clock checks cost
# far more than these matches, up to milliseconds a call.)

# --- labels -----------------------------------------------------------------------
# Labels are matched only at a line start. Every quantifier is bounded and none
# is nested, so one match attempt costs a constant whatever the line holds.
_LABEL_KINDS = (
    ("input", r"action[ _]?input|action[ _]?\d{1,3}[ _]?input|tool[ _]?input|action[ _]?args"
              r"|args|arguments|input|行动输入|动作输入|输入|参数"),
    ("final", r"final[ _]?answer|final|answer|最终答案|最终回答|答案"),
    ("action", r"action|act|tool[ _]?call|tool[ _]?name|tool|行动|动作|操作"),
    ("thought", r"thoughts|thought|thinking|思考|想法"),
    ("observation", r"observations|observation|obs|观察|观测|结果"),
    ("question", r"question|new[ _]question|human|user|问题"),
)
_DECORATION = r"[ \t>#*_\-]{0,12}"
_DECORATION_CHARS = " \t>#*_-"
_AFTER_WORD = r"[ \t]{0,4}\d{0,4}[ \t]{0,4}[*_]{0,3}[ \t]{0,2}[:：]"
_LABEL_END = r"(?:\*\*(?=[ \t]|$)|[*_]{1,3}(?=[ \t]))?"
_LABEL_STARTS = frozenset("aAtToOqQfFiIhHuU[行动操思想观结问最答输参")


def _label_pattern(first: str) -> re.Pattern:
    """The label pattern for a line whose label word starts with ``first``: only the words that start so.

    A label word starts right after the decoration (no word starts with a
    decoration character), so the other words cannot match there; leaving them
    out saves trying each, and the order of the rest is kept."""
    groups = []
    for kind, words in _LABEL_KINDS:
        kept = [w for w in words.split("|") if w[0].lower() == first.lower()]
        if kept:
            groups.append(f"(?P<{kind}>{'|'.join(kept)})")
    return re.compile(_DECORATION + "(?:" + "|".join(groups) + ")" + _AFTER_WORD + _LABEL_END, re.IGNORECASE)


_LABEL_BY_FIRST = {c: _label_pattern(c) for c in _LABEL_STARTS if c != "["}
# First three letters (lowercased) of every label, and first characters of the Chinese ones,
# for the per-line filter; the walk leaves out thoughts (思考, 想法, thought, thinking).
_PICK3_ALL = frozenset({"act", "too", "arg", "inp", "fin", "ans", "obs", "que", "new", "hum", "use", "tho", "thi",
                        "[fi", "[ac", "[ob", "[qu", "[th"})
_PICK3 = _PICK3_ALL - {"tho", "thi", "[th"}
_PICK1_ALL = frozenset("行动操思想观结问最答输参")
_PICK1 = _PICK1_ALL - set("思想")
# Characters a picked line can start with: decoration, blanks, and the first letters of labels.
_FIRST = frozenset(_DECORATION_CHARS) | {"", "\r", "\v", "\f", "\u3000"} | frozenset("aAtToOqQfFiIhHuUnN[") | _PICK1_ALL
_FIRST_FENCE = _FIRST | {"`"}
_THOUGHT_LABEL = re.compile(
    "(?m)^" + _DECORATION + "(?:thoughts|thought|thinking|思考|想法)" + _AFTER_WORD + r"(?:\*\*(?=[ \t]|$)|[*_]{1,3}(?=[ \t]))?[ \t]?",
    re.IGNORECASE)
_BRACKET_LABEL = re.compile(
    _DECORATION + r"\[[ \t]{0,2}(final[ _\-]?answer|action|thought|observation|question)[ \t]{0,2}\][ \t]{0,4}:?",
    re.IGNORECASE)
_BRACKET_KINDS = {"finalanswer": "final", "action": "action", "thought": "thought", "observation": "observation",
                  "question": "question"}


def _cased(word: str) -> str:
    """``word`` as a pattern matching it in any ASCII case (what ``.lower()`` folds, and no more)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


# The walk's line filter as one pattern: within its first 16 characters, after decoration, a line
# opens with the first three letters of a label (any case; thoughts left out) or a Chinese label's
# first character; or it holds a "{" and opens with "{", "[" or "`" (after blanks and ">" in its
# first 64), or holds '{"', "{'", "{ " or "<tool_call>". A lookahead after each newline: the scan
# for "\n" runs in C, and each line start costs a few tries, each linear in that line.
_WALK_LINE = ("(?=" + r"[ \t>#*_\-]{0,13}(?:" + "|".join(map(_cased, sorted(_PICK3))) + ")"
              + r"|[ \t>#*_\-]{0,15}[" + "".join(sorted(_PICK1)) + "]"
              + r"|(?=[^\n]*\{)(?:[ \t>]{0,63}[{\[`]|[^\n]*<tool_call>)"
              + r"""|[^\n]*\{["' ])""")
_WALK_FIRST = re.compile(_WALK_LINE)
_WALK_NEXT = re.compile("\n" + _WALK_LINE)
_CHUNK = 8192
_NON_SPACE = re.compile(r"[ \t\r\n\f\v]*")
_BLANKS = re.compile(r"[ \t]*")
_ANY_SPACE = re.compile(r"\s*")
_TERMINATORS = frozenset({"observation", "question"})
_MAX_ECHOES = 8
_MAX_BLOB_TRIES = 64  # failed reads of JSON-looking lines that name no tool, per turn  # echoed blocks (and bare-paper candidates) looked past before a turn counts as hostile
# A line opening like a label ("Result:", "Tool Output:") ends the lines that continue a bare input.
_LABEL_LIKE = re.compile(r"(?m)^[ \t>*#]{0,6}[A-Z][A-Za-z]{1,15}(?: [A-Za-z]{1,15})?[ \t*]{0,3}:(?!//)")
_PAPER_LINE = re.compile(r"(?m)^[ \t>*]{0,6}([A-Za-z_][\w.\-]{0,40})\[")
_LABEL_WORDS = ("observation", "thought", "question", "final answer", "action", "action input")

# A terminator written mid-line after a bare input: "Action Input: Paris Observation: ..."
_MIDLINE_WORDS = ("Observation", "observation", "OBSERVATION", "Obs:", "Thought", "thought", "Final Answer",
                  "final answer", "Question", "观察", "思考", "最终答案")
_MIDLINE_RE = re.compile("|".join(map(re.escape, _MIDLINE_WORDS)))
_INLINE_INPUT = re.compile("Action Input|action input|Action input|ACTION INPUT|Action_Input|action_input")
_MIDLINE_AFTER = re.compile(r"[ \t]{0,3}\d{0,3}[ \t]{0,3}[:：]")
_SPECIAL_TOKENS = ("<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>", "<|end|>", "</s>")
# An object (or a list of them) whose first key names a tool: '{"action":', "[{'name':".
_ACTIONISH = re.compile(
    r"[\{\[][ \t\r\n]{0,40}(?:\{[ \t\r\n]{0,40})?[\"']?(?:action|tool|tool_name|name|function|tool_calls|"
    r"final_answer|api_name)[\"']?[ \t]{0,4}[:：]",
    re.IGNORECASE,
)
_IDENT = re.compile(r"[^\W\d][\w.\-]*")
_SNAKE = re.compile(r"[a-z][a-z0-9]{0,40}(?:[_.][a-z0-9]{1,40}){1,8}")
# A tool name of a few words (crewAI: "Ask question to coworker"), read without tools=
_WORDS_NAME = re.compile(r"[^\W\d][\w\-]{0,30}(?: [^\W\d][\w\-]{0,30}){1,5}")
_SENTENCE_WORDS = frozenset({"i", "i'll", "we", "you", "me", "my", "let", "let's", "lets", "will", "should", "need",
                             "must", "going", "can", "could", "would", "am", "is", "are", "now", "first", "then",
                             "it", "them", "this", "that", "these", "those", "they", "he", "she", "us", "our",
                             "your", "his", "her", "final", "answer", "observation", "thought", "input"})
_SEPARATORS = re.compile(r"[\s_\-]+")
_NAME_PREFIXES = ("functions.", "function.", "tools.", "tool.")
_NO_TOOL_WORDS = frozenset({"none", "n/a", "na", "null", "nothing", "no action", "no tool", "无"})

_NAME_KEYS = ("action", "tool", "toolname", "name", "function", "functionname", "apiname")
_ARG_KEYS = ("actioninput", "toolinput", "actionvariables", "args", "arguments", "parameters", "params",
             "input", "kwargs", "argument")
_THOUGHT_KEYS = ("thought", "thoughts", "reasoning", "thinking")
_LIST_KEYS = ("toolcalls", "actions", "calls", "functioncalls")
_ANSWER_KEYS = ("answer", "finalanswer", "output", "text", "response", "result", "content", "value")

# --- placeholders ---------------------------------------------------------------------
_PLACEHOLDER_PHRASES = (
    "the action to take", "should be one of", "the input to the action", "input to the action",
    "the final answer to the original", "final answer to the original input", "the result of the action",
    "name of the tool", "the name of the tool", "the tool to use", "the tool name", "your final answer",
    "your answer here", "action input here", "arguments here", "json_blob", "$json_blob", "$input", "$tool",
    "the input question", "you should always think", "要采取的行动", "行动的输入", "行动的结果", "你应该",
    "一个工具名", "工具名称", "原始问题的最终答案", "你必须回答的问题",
)
_PLACEHOLDER_NAMES = frozenset({"toolname", "actionname", "functionname", "nameofthetool", "nameoftool", "yourtool"})
# Whole-value placeholder shapes: "...", "$JSON_BLOB", "<tool>", "<tool>(<arguments>)",
# "{tool_names}", "[search, calculator]". Single character classes between fixed
# delimiters, so a match cannot backtrack.
_PLACEHOLDER_FORMS = re.compile(
    r"\.{2,400}|…{1,400}|\$[A-Z_]{2,40}|<[^<>\n]{1,40}>|<[^<>\n]{1,40}>\(<[^<>\n]{1,40}>\)"
    r"|\{[A-Za-z_]{1,40}\}|\[[A-Za-z_ ,]{1,400}\]"
)
_PLACEHOLDER_PHRASE = re.compile("|".join(map(re.escape, _PLACEHOLDER_PHRASES)), re.IGNORECASE)
# The ASCII pairs (lowercased) that open a phrase: ignoring case, an ASCII character matches only its two cases
_PHRASE_ASCII_PAIRS = frozenset(p[:2].lower() for p in _PLACEHOLDER_PHRASES if p[:2].isascii())


def _is_placeholder(value: str) -> bool:
    """True when ``value`` is a template instruction echoed back rather than content."""
    head = value[:2]
    if head[:1].isalnum() and head.isascii() and head.lower() not in _PHRASE_ASCII_PAIRS:
        return False  # nothing to strip in front, and neither a form nor a phrase starts so (most values)
    if len(value) > 400:
        return False
    s = value.strip().strip("`\"'*").strip()
    if not s:
        return False
    if s[0] in ".…$<{[" and _PLACEHOLDER_FORMS.fullmatch(s):
        return True
    if s[:2].isascii() and s[:2].lower() not in _PHRASE_ASCII_PAIRS:
        return False  # no phrase starts so (most values): no regex call
    return _PLACEHOLDER_PHRASE.match(s) is not None  # echoed instructions start with the phrase


# --- tools ------------------------------------------------------------------------------
def _fold(name: str) -> str:
    return _fold_short(name) if len(name) <= 64 else _SEPARATORS.sub("", name.casefold())


@functools.lru_cache(maxsize=4096)
def _fold_short(name: str) -> str:
    """``_fold`` of a short string, memoised: the same keys and tool names come back turn after turn."""
    return _SEPARATORS.sub("", name.casefold())


def _clean_name(raw: str) -> str:
    """Strip what models wrap a name in: quotes, backticks, bold, trailing punctuation, ``functions.``."""
    return _clean_short(raw) if len(raw) <= 64 else _clean(raw)


@functools.lru_cache(maxsize=4096)
def _clean_short(raw: str) -> str:
    """``_clean`` of a short string, memoised: a turn cleans the same name several times, and so do the next turns."""
    return _clean(raw)


def _clean(raw: str) -> str:
    s = raw.strip().lstrip(":：").strip().strip("`*\"'“”‘’ ").strip()
    s = s.rstrip(".,;:!?。，：").strip().strip("`*\"'“”‘’ ").strip()
    low = s.casefold()
    for prefix in _NAME_PREFIXES:
        if low.startswith(prefix) and len(s) > len(prefix):
            s = s[len(prefix):]
            break
    return s


def _is_final_name(name: str) -> bool:
    return len(name) <= 40 and _fold(name) in _FINAL_KEYS


_FINAL_KEYS = frozenset(_fold(n) for n in FINAL_NAMES)


def suggest_tool(name: str, names: Sequence[str]) -> Optional[str]:
    """The tool in ``names`` that ``name`` is probably a misspelling or a part of, if any.

    ``get_wether`` and ``weather`` suggest ``get_weather``; ``search`` suggests nothing.
    """
    import difflib

    key = _fold(name[:_MAX_NAME * 10])
    if not key or not names:
        return None
    by_key = {_fold(n): n for n in names}
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
class _Toolset:
    """The tools a turn may name, indexed for forgiving lookup."""

    names: tuple[str, ...]
    schemas: Mapping[str, dict] = field(default_factory=dict)

    @functools.cached_property
    def _index(self) -> tuple[dict, dict]:
        folded: dict[str, Optional[str]] = {}
        keys: dict[str, Optional[str]] = {}
        for name in self.names:
            for table, k in ((folded, name.casefold()), (keys, _fold(name))):
                table[k] = name if k not in table or table[k] == name else None
        return folded, keys

    def lookup(self, name: str) -> Optional[str]:
        if name in self.names:
            return name
        if len(name) > _MAX_NAME:
            return None
        folded, keys = self._index
        return folded.get(name.casefold()) or keys.get(_fold(name))

    def suggest(self, name: str) -> Optional[str]:
        return _suggest(name, self.names) if len(name) <= _MAX_NAME else suggest_tool(name, self.names)

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

    def takes_no_arguments(self, name: str) -> bool:
        """Only a schema that declares its (empty) properties says so; ``{}`` just means "unknown"."""
        params = self.parameters(name)
        return isinstance(params.get("properties"), dict) and not params["properties"] and not params.get("required")


@functools.lru_cache(maxsize=256)
def _toolset_from_names(names: tuple[str, ...]) -> _Toolset:
    return _Toolset(names)


@functools.lru_cache(maxsize=256)
def _toolset_from_items(items: tuple) -> Optional[_Toolset]:
    """The toolset of a list of names seen before, with no per-item checks; None when an item is no name."""
    return _toolset_from_names(items) if all(isinstance(item, str) for item in items) else None


def _toolset(tools: Any) -> Optional[_Toolset]:
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
        return _Toolset(tuple(str(k) for k in tools), {str(k): v for k, v in tools.items() if isinstance(v, dict)})
    names: list[str] = []
    schemas: dict[str, dict] = {}
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
            params = getattr(item, "parameters", None)
            if isinstance(params, dict):
                schemas[item.name] = params
        else:
            raise TypeError(f"cannot read a tool name from {type(item).__name__}")
    if not schemas:
        return _toolset_from_names(tuple(names))
    return _Toolset(tuple(names), schemas)


def match_tool(name: str, tools: ToolsArg) -> tuple[Optional[str], Optional[str]]:
    """The canonical tool ``name`` refers to (or None) and, when none, the closest suggestion.

    Matching forgives case, spaces vs ``_``/``-``, quotes, backticks, trailing
    punctuation and a ``functions.`` prefix. Without ``tools`` any
    identifier-like name is accepted as written (cleaned).
    """
    ts = _toolset(tools)
    cleaned = _clean_name(name)
    if ts is None:
        ok = bool(cleaned) and len(cleaned) <= 100 and _IDENT.fullmatch(cleaned) is not None
        return (cleaned if ok else None), None
    found = ts.lookup(cleaned) if cleaned else None
    if found is not None:
        return found, None
    return None, ts.suggest(cleaned or name)


# --- internal results ---------------------------------------------------------------
class _TurnError(Exception):
    """A format error found while reading; ``end`` is where the loop should cut the turn."""

    def __init__(self, code: str, message: str, end: Optional[int] = None, *, no_tool: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.end = end
        self.no_tool = no_tool  # "Action: None": the model says it needs no tool


@dataclass(slots=True)
class _Call:
    """A tool call before its name is resolved against the tools."""

    name: str
    args: Union[dict, str]
    start: int
    end: int
    thought: Optional[str] = None
    tool: Optional[str] = None
    """The canonical tool, when the reader already checked the name."""


@dataclass(slots=True)
class _Reading:
    """What the line walk found: calls, or a final answer, and where trust ends."""

    calls: tuple[_Call, ...]
    final: Optional[str]
    end: int


_FINAL = object()  # check_name's answer for a final-answer tool name


# --- the reader ---------------------------------------------------------------------------
class _Turn:
    """Reads one turn left to right.

    The cursor only moves forward; lines that may matter are picked in bulk
    (``lines_from``), so prose costs no Python work per line; and a failed
    JSON read raises ``blob_floor`` so the same text is never parsed twice:
    the work is linear in the turn's length.
    """

    # one is built per turn: no __dict__, faster attributes
    __slots__ = ("text", "ts", "style", "_voice", "limit", "repairs", "blob_floor", "resume", "thought_labels",
                 "first_start", "final_end", "blob_thought", "stray_input", "blob_line", "stopped_at", "_budget",
                 "placeholder_err", "skip_floor", "echoes", "blob_failures")

    def __init__(self, text: str, ts: Optional[_Toolset], style: tuple[str, int, Optional[str]]) -> None:
        self.text = text
        self.ts = ts
        self.style = style  # (dialect, n, lang) of the messages
        self._voice: Optional[feedback.Voice] = None
        self.limit = _hard_end(text)
        self.repairs: list[str] = []
        self.blob_floor = 0
        self.resume = 0
        self.thought_labels: list[tuple[int, int]] = []
        self.first_start: Optional[int] = None
        self.final_end = 0
        self.blob_thought: Optional[str] = None
        self.stray_input = False
        self.blob_line = 0
        self.stopped_at: Optional[int] = None
        self._budget: Optional[jsonish.Budget] = None
        self.placeholder_err: Optional[_TurnError] = None  # an echoed format example, kept while a real step may follow
        self.skip_floor = 0  # end of the echoed observation(s) a turn may open with
        self.echoes = 0  # echoed blocks skipped so far (bounded: a flood of them is not an echo)
        self.blob_failures = 0  # JSON-looking lines that were not JSON (bounded, like echoes)

    @property
    def voice(self) -> feedback.Voice:
        """Who error messages speak to; built on first use, as most turns need no message."""
        if self._voice is None:
            self._voice = feedback.Voice(self.ts, *self.style)
        return self._voice

    @property
    def budget(self) -> jsonish.Budget:
        """What this turn may still spend on lenient JSON; built on first use, as many turns hold no JSON."""
        if self._budget is None:
            self._budget = jsonish.Budget(strict=2 * len(self.text) + 65536)
        return self._budget

    # --- lines and labels ---------------------------------------------------------
    def line_end(self, i: int) -> int:
        j = self.text.find("\n", i, self.limit)
        return self.limit if j < 0 else j

    def next_line(self, i: int) -> int:
        """Start of the line after the one holding offset ``i`` (``limit`` at the end)."""
        j = self.text.find("\n", i, self.limit)
        return self.limit if j < 0 else j + 1

    def label(self, i: int, end: Optional[int] = None) -> Optional[tuple[str, int]]:
        """(kind, content start) when the line starting at ``i`` opens with a label."""
        if i >= self.limit:
            return None
        text = self.text
        le = self.line_end(i) if end is None else end
        first = text[i] if i < le else ""
        if first in _DECORATION_CHARS:  # markdown in front: the first letter after it (within 16 characters)
            first = text[i:min(le, i + 16)].lstrip(_DECORATION_CHARS)[:1]
        pattern = _LABEL_BY_FIRST.get(first)  # cheap first-letter filter
        if pattern is None:
            return self.bracket_label(i, le) if first == "[" else None
        m = pattern.match(text, i, le)
        if m is None:
            return None
        return m.lastgroup or "", m.end()

    def bracket_label(self, i: int, le: int) -> Optional[tuple[str, int]]:
        """Semantic Kernel's "[ACTION]", "[FINAL ANSWER]" as a label."""
        m = _BRACKET_LABEL.match(self.text, i, le)
        if m is None:
            return None
        return _BRACKET_KINDS[_SEPARATORS.sub("", m.group(1).casefold())], m.end()

    def is_fence(self, i: int, le: int) -> bool:
        return self.text.startswith("```", self.first_char(i, min(le, i + 12)))

    def is_boundary(self, text: str, line_start: int) -> bool:
        """A line that ends an unclosed value: a label or a code fence."""
        le = self.line_end(line_start)
        return self.label(line_start, le) is not None or self.is_fence(line_start, le)

    def find_line(self, i: int, *, fence: bool = False, blank: bool = False) -> int:
        """Start of the first line from line start ``i`` that is a label (or a fence / blank line)."""
        text = self.text
        for start in self.lines_from(i, fence=fence, blank=blank):
            le = self.line_end(start)
            if blank and not text[start:le].strip():
                return start
            if self.label(start, le) is not None or (fence and self.is_fence(start, le)):
                return start
        return self.limit

    def lines_from(self, start: int, *, blobs: bool = False, fence: bool = False,
                   blank: bool = False) -> Iterable[int]:
        """Offsets of the lines from line start ``start`` that may open with a label
        (or, on request, hold a JSON action, be a fence, or be blank), in order.

        With ``blobs`` (the walk) ``Thought:`` lines are not picked unless they may
        hold JSON: a thought is prose, and ``thought()`` finds its labels in one pass.
        A turn that fits in one chunk (most do) gets a list, without a generator.
        """
        limit = self.limit
        if start >= limit:
            return []
        if self.text.find("\n", min(start + _CHUNK, limit), limit) < 0:
            return self.picked(start, limit, blobs, fence, blank)
        return self.chunks(start, blobs, fence, blank)

    def chunks(self, start: int, blobs: bool, fence: bool, blank: bool) -> Iterator[int]:
        """``lines_from`` a chunk of about ``_CHUNK`` characters at a time, so a long turn is picked lazily."""
        text, limit = self.text, self.limit
        chunk_start = start
        while chunk_start < limit:
            cut = text.find("\n", min(chunk_start + _CHUNK, limit), limit)
            chunk_end = limit if cut < 0 else cut
            yield from self.picked(chunk_start, chunk_end, blobs, fence, blank)
            chunk_start = chunk_end + 1

    def picked(self, start: int, end: int, blobs: bool, fence: bool, blank: bool) -> list[int]:
        """``lines_from`` within the whole lines of ``text[start:end]``.

        The walk's lines are found by one pattern (``_WALK_LINE``); otherwise
        ``split`` and a comprehension of C-level tests pick them. Either way the
        lines that cannot matter cost no Python work each.
        """
        text = self.text
        if blobs and self.blob_failures < _MAX_BLOB_TRIES:  # else a flood of JSON-looking lines: labels only
            first = [start] if _WALK_FIRST.match(text, start, end) else []
            return first + [m.start() + 1 for m in _WALK_NEXT.finditer(text, start, end)]
        lines = text[start:end].split("\n")
        first_chars = _FIRST_FENCE if fence else _FIRST  # the first character rules most lines out
        picked = [k for k, line in enumerate(lines)
                  if line[:1] in first_chars
                  and (((h := line[:16].lstrip(_DECORATION_CHARS))[:3].lower() in _PICK3_ALL or h[:1] in _PICK1_ALL)
                       or (fence and line[:16].lstrip()[:3] == "```")
                       or (blank and not line.strip()))]
        offsets = []
        line_no, offset = 0, start
        for k in picked:
            offset += sum(map(len, lines[line_no:k])) + (k - line_no)
            line_no = k
            offsets.append(offset)
        return offsets

    def blob_start(self, i: int, le: int) -> int:
        """Where a JSON action may start on the line at ``i`` (-1 if nowhere).

        At the line start: ``{``, ``[{``, a ``` fence holding JSON, ``<tool_call>``;
        inside prose: an object whose first key names a tool, or ``<tool_call>``.
        """
        text = self.text
        seg = text[i:min(le, i + 64)]
        rest = seg.lstrip(" \t>")
        p = i + len(seg) - len(rest)
        if rest:
            ch = rest[0]
            if ch == "{":
                return p
            if ch == "[":
                return p if text[p + 1:p + 24].lstrip()[:1] == "{" else -1
            if ch == "`" and rest.startswith("```"):
                after = text[p + 3:le].strip()
                if after[:1] in ("{", "["):
                    return p
                if after.isidentifier() or not after:  # ```json, then the JSON on the next lines
                    return p if text[le + 1:le + 81].lstrip()[:1] in ("{", "[") else -1
                return -1
            if ch == "<" and rest.startswith("<tool_call>"):
                return p
        k = text.find("{", p, le)
        tries = 0
        while k >= 0 and tries < 4:
            if _ACTIONISH.match(text, k, min(k + 200, self.limit)):
                return k
            k = text.find("{", k + 1, le)
            tries += 1
        return text.find("<tool_call>", p, le)

    def skip_blank_lines(self, i: int) -> int:
        """Start of the first non-blank line at or after line start ``i`` (``limit`` if none)."""
        if i < self.limit and self.text[i] not in " \t\r\n\f\v":  # not blank (the usual case): no regex call
            return i
        q = _NON_SPACE.match(self.text, i, self.limit).end()
        if q >= self.limit:
            return self.limit
        k = self.text.rfind("\n", i, q)
        return i if k < 0 else k + 1

    def first_char(self, i: int, end: int) -> int:
        """The first offset from ``i`` (before ``end``) that is not a space or tab."""
        text = self.text
        if i < end and text[i] not in " \t":  # nothing to skip: no regex call
            return i
        if i + 1 < end and text[i] == " " and text[i + 1] not in " \t":  # one space, as after a label's colon
            return i + 1
        return _BLANKS.match(text, i, max(i, end)).end()

    def rstrip_end(self, start: int, end: int) -> int:
        """``end`` moved back over whitespace (not before ``start``), a window at a time."""
        text = self.text
        if end > start and not text[end - 1].isspace():  # nothing to strip (the usual case): no copy
            return end
        while end > start:
            window = text[max(start, end - 256):end]
            kept = window.rstrip()
            if kept:
                return end - len(window) + len(kept)
            end -= len(window)
        return start

    def starts_blob(self, i: int) -> bool:
        c = self.first_char(i, self.line_end(i))
        return c < self.limit and (self.text[c] == "{" or self.text.startswith("```", c))

    def add(self, *repairs: str) -> None:
        for r in repairs:
            if r not in self.repairs:
                self.repairs.append(r)

    # --- the walk ---------------------------------------------------------------------
    def read(self) -> _Reading:
        got = self.walk()
        if not got.calls and got.final is None and self.placeholder_err is not None:
            raise self.placeholder_err  # only the echoed format example: say so
        return got

    def walk(self) -> _Reading:
        text, limit = self.text, self.limit
        calls: list[_Call] = []
        i = 0
        for start in self.lines_from(0, blobs=True):
            if start < i:
                continue  # inside something already read
            if calls and start != i:
                return self.stop(calls, i)
            i = start
            le = self.line_end(i)
            lab = self.label(i, le)
            try:
                if lab is not None:
                    kind, cstart = lab
                    if kind in _TERMINATORS and not calls:
                        skip = self.echo_skip(i, kind, cstart, le)
                        if skip is not None:
                            i = skip
                            continue
                    if kind in _TERMINATORS or (calls and kind != "action"):
                        return self.stop(calls, i)
                    if kind == "thought":
                        b = self.blob_start(cstart, le) if i >= self.blob_floor else -1
                        got = self.bare_blob(cstart, b, le) if b >= 0 else None  # "Thought: {"action": ...}"
                        if got is None:
                            i = max(le + 1, self.resume)
                            continue
                        self.first_start = b
                    elif kind == "input":
                        self.stray_input = True
                        i = le + 1
                        continue
                    elif len(calls) >= MAX_ACTIONS:
                        self.add("too_many_actions")
                        return self.stop(calls, i)
                    else:
                        if self.first_start is None:
                            self.first_start = i
                        if kind == "final":
                            answer, end = self.final(cstart)
                            return _Reading((), answer, end)
                        try:
                            got = self.action(i, cstart, le)
                        except _TurnError as err:
                            if calls and err.code == "truncated":
                                self.add("dropped_truncated_action")
                                return self.stop(calls, i)
                            if err.no_tool and not calls:
                                # "Action: None" (and its input): no tool meant; read on, a final answer may follow
                                self.first_start = None
                                i = self.skip_no_tool(le)
                                continue
                            raise
                else:
                    b = self.blob_start(i, le) if i >= self.blob_floor else -1
                    got = None
                    if b >= 0:
                        if len(calls) >= MAX_ACTIONS:
                            self.add("too_many_actions")
                            return self.stop(calls, i)
                        got = self.bare_blob(i, b, le)
                    if got is None:
                        if calls:
                            return self.stop(calls, i)  # something else after the actions: not trusted
                        i = max(le + 1, self.resume)
                        continue
                    if self.first_start is None:
                        self.first_start = self.blob_line
            except _TurnError as err:
                if err.code != "placeholder" or calls or self.echoes >= _MAX_ECHOES:
                    raise
                self.echoes += 1
                # an echoed format example ("Action: the action to take", {"action": "tool_name", ...}):
                # remembered, and the real step may still follow it
                if self.placeholder_err is None:
                    self.placeholder_err = err
                self.first_start = None
                self.thought_labels.append((i, max(le, min(err.end or le, limit))))
                i = self.next_line(max(le, err.end or le))
                continue
            if isinstance(got, str):  # a final answer written as an action
                if calls:
                    return self.stop(calls, i)
                return _Reading((), got, self.final_end)
            room = MAX_ACTIONS - len(calls)
            if len(got) > room:
                self.add("too_many_actions")
                calls.extend(got[:room])
                return self.stop(calls, calls[-1].end)
            calls.extend(got)
            self.same_line_calls(calls)
            nxt = self.after_action(calls[-1].end)
            if nxt is None:
                break
            i = nxt
        if calls:
            return _Reading(tuple(calls), None, calls[-1].end)
        return _Reading((), None, self.rstrip_end(0, limit if self.stopped_at is None else self.stopped_at))

    def same_line_calls(self, calls: list[_Call]) -> None:
        """More JSON calls written right after the last one on its line: ``{...} {...}``."""
        text = self.text
        while True:
            end = calls[-1].end
            le = self.line_end(end)
            if text.find("{", end, le) < 0:
                return
            b = self.first_char(end, le)
            if b >= le or text[b] != "{" or _ACTIONISH.match(text, b, min(b + 200, self.limit)) is None:
                return
            if len(calls) >= MAX_ACTIONS:
                self.add("too_many_actions")
                return
            try:
                more = self.bare_blob(b, b, le)
            except _TurnError:
                return  # a broken later call is cut off with the rest (dropped_tail)
            if not isinstance(more, list):
                return
            calls.extend(more[:MAX_ACTIONS - len(calls)])

    # --- dialects read only when the walk found nothing -------------------------------------------
    def fallback(self) -> Optional[_Reading]:
        """Readers for shapes the line walk does not see: LangChain's XML agent tags, Haystack's
        ``Tool: x Tool Input: y`` inside a line, and a bare ``Search[x]`` line. Each is tried only
        when a cheap substring test says it may apply."""
        text = self.text
        if "<tool" in text or "<final_answer>" in text:
            got = self.xml()
            if got is not None:
                return got
        if "Tool Input:" in text or "tool input:" in text:
            got = self.inline_tool()
            if got is not None:
                return got
        if "[" in text:
            return self.bare_paper()
        return None

    def xml(self) -> Optional[_Reading]:
        """``<tool>name</tool><tool_input>x</tool_input>`` or ``<final_answer>x</final_answer>``, entities decoded."""
        import html

        text, limit = self.text, self.limit
        t = text.find("<tool>", 0, limit)
        f = text.find("<final_answer>", 0, limit)
        if f >= 0 and (t < 0 or f < t):
            start = f + len("<final_answer>")
            close = text.find("</final_answer>", start, limit)
            stop = limit if close < 0 else close
            end = self.rstrip_end(start, stop) if close < 0 else close + len("</final_answer>")
            self.first_start = f
            answer = html.unescape(text[start:stop].strip())
            if not answer:
                raise _TurnError("missing_answer", feedback.missing_answer(self.voice), end)
            return _Reading((), answer, end)
        if t < 0:
            if text.find("<tool_input>", 0, limit) >= 0:  # an input with no tool
                raise _TurnError("no_action", feedback.no_action(self.voice), self.rstrip_end(0, limit))
            return None
        name_end = text.find("</tool>", t, limit)
        if name_end < 0:
            return None
        ti = text.find("<tool_input>", name_end, limit)
        if text.find("<tool>", name_end, limit if ti < 0 else ti) >= 0:  # several tools, one input: which one?
            raise _TurnError("no_action", feedback.no_action(self.voice), self.rstrip_end(0, limit))
        name = html.unescape(text[t + len("<tool>"):name_end].strip())
        self.first_start = t
        if ti < 0:
            tool = self.check_name(name, name_end)
            raise _TurnError("missing_input", feedback.missing_input(self.voice, str(tool)), name_end + len("</tool>"))
        start = ti + len("<tool_input>")
        close = text.find("</tool_input>", start, limit)  # LangChain stops generation at it: often missing
        stop = limit if close < 0 else close
        end = self.rstrip_end(start, stop) if close < 0 else close + len("</tool_input>")
        raw = html.unescape(text[start:stop].strip())
        args: Union[dict, str] = raw
        if raw.startswith("{"):
            try:
                value = jsonish.loads(raw)
            except jsonish.JsonishError:
                value = None
            if isinstance(value, dict):
                args = value
        tool = self.check_name(name, end, args)
        if tool is _FINAL:
            self.final_end = end
            return _Reading((), self.final_text(args, end), end)
        if isinstance(args, dict):
            _check_placeholder_values(args, self.voice, end)
        else:
            args = self.bare_args(args, end)
        return _Reading((_Call(name, args, t, end, tool=str(tool)),), None, end)

    def inline_tool(self) -> Optional[_Reading]:
        """Haystack 1.x on one line: ``... Tool: Search Tool Input: "where"``."""
        text, limit = self.text, self.limit
        k = text.find("Tool Input:", 0, limit)
        if k < 0:
            k = text.find("tool input:", 0, limit)
        if k < 0:
            return None
        line = text.rfind("\n", 0, k) + 1
        colon = max(text.rfind("Tool:", line, k), text.rfind("tool:", line, k))
        if colon < 0 or (colon > line and not text[colon - 1].isspace()):
            return None
        name = text[colon + len("Tool:"):k].strip()
        le = self.line_end(k)
        p = self.first_char(k + len("Tool Input:"), le)
        if not name or p >= le:
            return None
        self.first_start = colon
        self.add("inline_input")
        args, end = self.input_value(p, le, name, multiline=True)
        tool = self.check_name(name, end, args)
        if tool is _FINAL:
            self.final_end = end
            return _Reading((), self.final_text(args, end), end)
        return _Reading((_Call(name, args, colon, end, tool=str(tool)),), None, end)

    def bare_paper(self) -> Optional[_Reading]:
        """A line that is only ``Search[x]`` or ``Finish[x]``, with no label (the ReAct paper's own turns)."""
        text = self.text
        for k, m in enumerate(_PAPER_LINE.finditer(text, 0, self.limit)):
            if k >= _MAX_ECHOES:
                return None
            name = m.group(1)
            known = self.ts.lookup(name) is not None if self.ts is not None else name in ("Search", "Lookup")
            if not (known or _is_final_name(name)):
                continue
            start = m.start(1)
            le = self.line_end(start)
            if text[start:le].rstrip().endswith("]"):
                self.first_start = start
                self.add("unlabeled_action")
                got = self.paper(start, name, m.end(1), le)
                if isinstance(got, str):
                    return _Reading((), got, self.final_end)
                return _Reading(tuple(got), None, got[-1].end)
        return None

    def echo_skip(self, i: int, kind: str, cstart: int, le: int) -> Optional[int]:
        """Where reading resumes past an echoed block before any action, or None to stop here.

        A turn may open with the model repeating the last ``Observation:``
        (skipped up to the next label line), and an echoed format example may
        hold ``Observation: the result of the action`` or ``Question: the
        input question``; neither ends the turn. Any other terminator does.
        """
        text = self.text
        if self.echoes >= _MAX_ECHOES:
            return None
        self.echoes += 1
        if kind == "observation" and self.first_start is None and not text[self.skip_floor:i].strip():
            end = self.find_line(self.next_line(i))
            self.thought_labels.append((i, end))
            self.skip_floor = end
            if self.stopped_at is None:
                self.stopped_at = i
            return end
        content = text[cstart:le]
        if (self.placeholder_err is not None or self.first_start is None) and _is_placeholder(content):
            if self.placeholder_err is None:
                self.placeholder_err = _TurnError("placeholder", feedback.placeholder(self.voice, content.strip()),
                                                  self.rstrip_end(0, le))
            self.thought_labels.append((i, le))
            return self.next_line(le)
        return None

    def skip_no_tool(self, le: int) -> int:
        """The line after ``Action: None`` and the ``Action Input:`` line that may follow it."""
        q = self.skip_blank_lines(le + 1) if le < self.limit else self.limit
        lab = self.label(q)
        if lab is not None and lab[0] == "input":
            return self.line_end(q) + 1
        return le + 1

    def stop(self, calls: list[_Call], at: int) -> _Reading:
        """End the walk at ``at``: keep the calls so far, trust nothing after."""
        self.stopped_at = at
        if calls:
            return _Reading(tuple(calls), None, calls[-1].end)
        return _Reading((), None, self.rstrip_end(0, at))

    def after_action(self, end: int) -> Optional[int]:
        """Line start of the next candidate right after an action, or None when the actions are over."""
        if end >= self.limit:  # the action ends the turn (often)
            return None
        text = self.text
        le = self.line_end(end)
        if text[end:le].strip():
            return None
        q = self.skip_blank_lines(le + 1) if le < self.limit else self.limit
        if q >= self.limit:
            return None
        qe = self.line_end(q)
        if self.label(q, qe) is None and self.blob_start(q, qe) < 0:
            return None
        return q

    # --- values -------------------------------------------------------------------
    def after_value(self, end: int, fenced: bool) -> int:
        """Consume closing junk a person ignores: one brace too many, the closing fence."""
        text = self.text
        j = end
        while j < self.limit and text[j] in " \t":
            j += 1
        extra = j
        while extra < self.limit and text[extra] in "}]" and extra - j < 3:
            extra += 1
        if extra > j:
            self.add("extra_brace")
            end = j = extra
        if fenced:
            k = _NON_SPACE.match(text, j, self.limit).end()
            if text.startswith("```", k):
                return k + 3
        return end

    def structured(self, pos: int) -> tuple[Any, int, int]:
        """Read JSON at ``pos``, maybe inside a ``` fence: (value, value start, end).

        A fence that holds no JSON gives its body as a string.
        """
        text = self.text
        if not text.startswith("```", pos):
            got = jsonish.read_value(text, pos, boundary=self.is_boundary, stop=self.limit, budget=self.budget)
            self.add(*got.repairs)
            return got.value, pos, self.after_value(got.end, False)
        le = self.line_end(pos)
        start = self.first_char(pos + 3, le)
        if start >= le or text[start] not in "{[":
            start = self.first_char(self.skip_blank_lines(self.next_line(pos)), self.limit)
        if start >= self.limit or text[start] not in "{[":
            close = text.find("```", start, self.limit)
            stop = self.limit if close < 0 else close
            end = stop + 3 if close >= 0 else self.rstrip_end(start, stop)
            return text[start:stop].strip(), start, end
        got = jsonish.read_value(text, start, boundary=self.is_boundary, stop=self.limit, budget=self.budget)
        self.add(*got.repairs)
        return got.value, start, self.after_value(got.end, True)

    def json_error(self, err: jsonish.JsonishError, name: Optional[str]) -> _TurnError:
        tool = self.ts.lookup(_clean_name(name)) if (name is not None and self.ts is not None) else None
        end = self.rstrip_end(0, min(max(err.pos, 0), self.limit))
        if err.code == "truncated":
            return _TurnError("truncated", feedback.truncated(self.voice, tool), end)
        detail = {"too_deep": "nested too deeply", "too_long": "too long to read"}.get(err.code, err.message)
        return _TurnError("bad_arguments", feedback.bad_arguments(self.voice, tool, detail), end)

    # --- actions -------------------------------------------------------------------
    def action(self, start: int, cstart: int, le: int) -> Union[list, str]:
        """Read the action whose label opens the line at ``start``: calls, or a final answer."""
        text = self.text
        p = self.first_char(cstart, le)
        if p >= le:  # "Action:" alone: the blob or the name is on a following line
            q = self.skip_blank_lines(le + 1) if le < self.limit else self.limit
            if q >= self.limit or self.label(q) is not None:
                raise _TurnError("no_action", feedback.no_action(self.voice), self.rstrip_end(0, le))
            qc = self.first_char(q, self.line_end(q))
            if text[qc] in "{[" or text.startswith(("```", "<tool_call>"), qc):
                return self.action_blob(start, qc)
            self.add("name_on_next_line")
            return self.action(start, q, self.line_end(q))
        slot_end = self.rstrip_end(p, le)
        slot = text[p:slot_end]
        if _is_placeholder(slot):
            raise _TurnError("placeholder", feedback.placeholder(self.voice, slot), slot_end)
        if text[p] in "{[" or text.startswith(("```", "<tool_call>"), p):
            return self.action_blob(start, p)
        if _IDENT.fullmatch(slot):  # a bare name (the usual case) holds no bracket, colon or inline input label
            return self.named_action(start, slot, slot_end, le)
        opener = _first_of(text, "([", p, slot_end)
        if opener >= 0 and self.call_name_ok(text[p:opener]):
            if text[opener] == "(" and self.input_label_below(le):
                # "Action: add (add two numbers)" over an "Action Input:" line: the parenthesis describes the tool
                self.add("tool_description")
                return self.named_action(start, text[p:opener], self.rstrip_end(p, opener), le)
            if text[opener] == "(":
                return self.call(start, text[p:opener], opener)
            return self.paper(start, text[p:opener], opener, slot_end)
        inline = _inline_input_label(text, p, slot_end)
        if inline is not None:  # "Action: search Action Input: x" on one line
            name_end, value_start = inline
            if value_start < slot_end:
                self.add("inline_input")
                args, end = self.input_value(value_start, le, text[p:name_end])
                tool = self.check_name(text[p:name_end], end, args)
                if tool is _FINAL:
                    self.final_end = end
                    return self.final_text(args, end)
                return [_Call(text[p:name_end], args, start, end, tool=str(tool))]
        colon = _first_of(text, ":：", p, slot_end)
        if colon > p and self.ts is not None and self.ts.lookup(_clean_name(text[p:colon])):
            # "Action: search: weather in Paris" (a known tool, the input on the same line)
            q = self.skip_blank_lines(le + 1) if le < self.limit else self.limit
            lab = self.label(q)
            value_start = self.first_char(colon + 1, slot_end)
            if (lab is None or lab[0] != "input") and value_start < slot_end:
                self.add("inline_input")
                args, end = self.input_value(value_start, le, text[p:colon])
                return [_Call(text[p:colon], args, start, end)]
        return self.named_action(start, slot, slot_end, le)

    def input_label_below(self, le: int) -> bool:
        q = self.skip_blank_lines(le + 1) if le < self.limit else self.limit
        lab = self.label(q)
        return lab is not None and lab[0] == "input"

    def call_name_ok(self, name_raw: str) -> bool:
        """Whether the text before ``(`` or ``[`` is a name (not a sentence that holds a bracket)."""
        cleaned = _clean_name(name_raw)
        if not cleaned or len(cleaned) > 100:
            return False
        if _IDENT.fullmatch(cleaned) is not None or _is_final_name(cleaned):
            return True
        return self.ts is not None and self.ts.lookup(cleaned) is not None

    def named_action(self, start: int, name: str, slot_end: int, le: int) -> Union[list, str]:
        """``Action: name`` with the input on the next non-blank line."""
        q = self.skip_blank_lines(le + 1) if le < self.limit else self.limit
        lab = self.label(q)
        args: Union[dict, str, None] = None
        end = slot_end
        if lab is not None and lab[0] == "input":
            try:
                args, end = self.input(lab[1])
            except _TurnError:
                self.check_name(name, slot_end)  # a bad name is the more useful error
                raise
        elif lab is None and q < self.limit and self.starts_blob(q):
            qc = self.first_char(q, self.line_end(q))
            try:
                value, vstart, end = self.structured(qc)
            except jsonish.JsonishError as err:
                self.check_name(name, slot_end)
                raise self.json_error(err, name) from None
            self.add("unlabeled_input")
            args = self.args_from_value(value, vstart, end)
        tool = self.check_name(name, end, args)
        if args is None:
            if tool is _FINAL:
                raise _TurnError("missing_answer", feedback.missing_answer(self.voice), slot_end)
            if self.ts is not None and self.ts.takes_no_arguments(str(tool)):
                return [_Call(name, {}, start, slot_end)]
            raise _TurnError("missing_input", feedback.missing_input(self.voice, str(tool)), slot_end)
        if tool is _FINAL:
            self.final_end = end
            return self.final_text(args, end)
        return [_Call(name, args, start, end, tool=str(tool))]

    def check_name(self, name: str, end: int, args: Any = None) -> Union[str, object]:
        """Validate a tool slot: the canonical tool name, ``_FINAL``, or a ``_TurnError``.

        ``args``, when already read, let an ``unknown_tool`` message show the
        model its own values under a valid tool."""
        if self.ts is not None and name.strip() in self.ts.names:
            return name.strip()
        if _is_placeholder(name):
            raise _TurnError("placeholder", feedback.placeholder(self.voice, name), end)
        cleaned = _clean_name(name)
        if self.ts is not None and cleaned:
            found = self.ts.lookup(cleaned)
            if found is not None:
                return found
        if cleaned and _is_final_name(cleaned):
            return _FINAL
        if cleaned.casefold() in _NO_TOOL_WORDS:
            raise _TurnError("no_action", feedback.no_action(self.voice), end, no_tool=True)
        if _fold(cleaned) in _PLACEHOLDER_NAMES:  # "tool_name" from the prompt's format example
            raise _TurnError("placeholder", feedback.placeholder(self.voice, cleaned), end)
        if self.ts is not None:
            shown = cleaned or name
            message = feedback.unknown_tool(self.voice, shown, self.ts.suggest(shown), args)
            raise _TurnError("unknown_tool", message, end)
        if cleaned and len(cleaned) <= 100 and _IDENT.fullmatch(cleaned) is not None:
            return cleaned
        if (args is not None and len(cleaned) <= 64 and _WORDS_NAME.fullmatch(cleaned) is not None
                and not _SENTENCE_WORDS.intersection(cleaned.casefold().split())):
            return cleaned  # a name of words, with its input: crewAI's "Ask question to coworker"
        raise _TurnError("no_action", feedback.not_a_name(self.voice, name), end)

    def final_text(self, args: Union[dict, str], end: int) -> str:
        if isinstance(args, dict):
            inner = _calls_from_json(args, self.ts, labelled=False)
            if isinstance(inner, tuple):  # the whole {"action": "Final Answer", "action_input": ...} blob
                args = inner[0]
            elif inner is not None:  # a tool call written as the answer: which one was meant is a guess
                raise _TurnError("no_action", feedback.no_action(self.voice), end)
        answer = _answer_from_args(args)
        if not answer.strip():
            raise _TurnError("missing_answer", feedback.missing_answer(self.voice), end)
        if _is_placeholder(answer):
            raise _TurnError("placeholder", feedback.placeholder(self.voice, answer), end)
        return answer

    # --- inputs ---------------------------------------------------------------------
    def input(self, cstart: int) -> tuple[Union[dict, str], int]:
        """Read the content of an ``Action Input:`` label."""
        text = self.text
        le = self.line_end(cstart)
        p = self.first_char(cstart, le)
        if p < le:
            return self.input_value(p, le, None, multiline=True)
        q = self.skip_blank_lines(le + 1) if le < self.limit else self.limit
        if q >= self.limit or self.label(q) is not None:
            return "", self.rstrip_end(0, le)
        if self.starts_blob(q):
            return self.input_value(self.first_char(q, self.line_end(q)), self.line_end(q), None)
        # bare lines under the label, up to a blank line or the next label
        end = self.continuation(q, self.line_end(q))
        return self.bare_args(text[q:end].strip(), end), end

    def continuation(self, p: int, le: int) -> int:
        """Where a bare input that starts at ``p`` on a line ending at ``le`` ends.

        It runs on over the following lines (an address, SQL, a question
        wrapped by the model) up to a blank line or a label line; a ``` block
        inside it is taken whole. A last line that is only the start of a label
        (``Obs``, where generation stopped) is not part of it.
        """
        text, limit = self.text, self.limit
        pos = le + 1
        stop = limit
        while pos < limit:
            stop = self.find_line(pos, fence=True, blank=True)
            if stop >= limit:
                break
            sle = self.line_end(stop)
            if not self.is_fence(stop, sle) or self.label(stop, sle) is not None:
                break
            close = text.find("```", sle, limit)  # a block inside the input: up to its closing fence
            if close < 0:
                stop = limit
                break
            pos = self.next_line(close)
            stop = limit
        m = _LABEL_LIKE.search(text, le + 1, stop) if stop > le + 1 else None
        if m is not None:  # "Result: ...", "Output: ...": a label of some other protocol ends it too
            stop = m.start()
        end = self.rstrip_end(p, stop)
        if end > le and end >= self.rstrip_end(0, limit):
            last = text.rfind("\n", p, end) + 1
            word = text[last:end].strip().casefold()
            if 2 <= len(word) and any(w.startswith(word) and w != word for w in _LABEL_WORDS):
                end = self.rstrip_end(p, last)  # "Obs": a label cut off by the stop sequence
        return end

    def input_value(self, p: int, le: int, name: Optional[str], *, multiline: bool = False) -> tuple[Union[dict, str], int]:
        """The input written at ``p`` (on a line ending at ``le``): JSON, a quoted string or bare text.

        ``multiline``: a bare input may run on over the following lines.
        """
        text = self.text
        c = text[p]
        if c in "*_":  # "** {...}", "*"x"*": markdown emphasis in front of the value
            q = self.first_char(p + len(text[p:min(le, p + 4)]) - len(text[p:min(le, p + 4)].lstrip("*_")), le)
            if q < le and text[q] in "{[\"'“":
                self.add("emphasis")
                p, c = q, text[q]
        elif c.isalpha():
            got = self.call_wrapper(p, le)
            if got is not None:
                return got
        if c in "{[" or text.startswith("```", p):
            try:
                value, vstart, end = self.structured(p)
            except jsonish.JsonishError as err:
                if c == "[" and err.code != "truncated":
                    return self.bare_line(p, le)
                if c == "{" and err.code == "syntax" and err.pos < le and _first_of(text, ":：\"'{[", p + 1, le) < 0:
                    return self.bare_line(p, le)  # "{temperature in SF}": braces around text, not an object
                raise self.json_error(err, name) from None
            return self.args_from_value(value, vstart, end), end
        if c in "\"'“":
            return self.quoted(p, le)
        return self.bare_line(p, le, multiline=multiline)

    def call_wrapper(self, p: int, le: int) -> Optional[tuple[Union[dict, str], int]]:
        """``QueryEngineTool({"a": 1})``: a made-up call around a JSON object; the object is the input."""
        text = self.text
        if text.find("(", p, le) < 0:
            return None
        m = _IDENT.match(text, p, le)
        if m is None or not text.startswith("(", m.end()):
            return None
        q = _NON_SPACE.match(text, m.end() + 1, self.limit).end()
        if q >= self.limit or text[q] not in "{[":
            return None
        try:
            value, vstart, end = self.structured(q)
        except jsonish.JsonishError:
            return None
        close = _NON_SPACE.match(text, end, self.limit).end()
        if not isinstance(value, dict) or not text.startswith(")", close):
            return None
        self.add("call_wrapper")
        return self.args_from_value(value, vstart, close + 1), close + 1

    def quoted(self, p: int, le: int) -> tuple[Union[dict, str], int]:
        """A quoted input is the string when the quote closes at the end of the line, else bare text."""
        try:
            got = jsonish.read_value(self.text, p, stop=le, budget=self.budget)
        except jsonish.JsonishError as err:
            if err.code == "truncated" and le >= self.limit:
                raise _TurnError("truncated", feedback.truncated(self.voice, None), self.rstrip_end(0, le)) from None
            return self.bare_line(p, le)
        if isinstance(got.value, str) and self.text[got.end:le].strip() in ("", ".", ","):
            if _is_placeholder(got.value):
                raise _TurnError("placeholder", feedback.placeholder(self.voice, got.value), got.end)
            return got.value, got.end
        return self.bare_line(p, le)

    def bare_line(self, p: int, le: int, *, multiline: bool = False) -> tuple[Union[dict, str], int]:
        """Bare text to the end of the line, cut where a label was written mid-line;
        with ``multiline``, the lines that continue it too."""
        stop = _midline_stop(self.text, p, le)
        if multiline and stop == le and le < self.limit:
            end = self.continuation(p, le)
            if end > le:
                return self.bare_args(self.text[p:end], end), end
        end = self.rstrip_end(p, stop)
        body = self.text[p:end]
        if len(body) >= 2 and body[0] == "`" and body[-1] == "`" and body.count("`") == 2:
            body = body[1:-1].strip()  # markdown inline code around the input
        elif len(body) >= 3 and body[0] in "*_" and body[-1] == body[0]:
            inner = body.strip("*_").strip()
            if inner and len(body) - len(body.lstrip(body[0])) == len(body) - len(body.rstrip(body[0])):
                self.add("emphasis")
                body = inner  # **Paris**: markdown emphasis around the input
        return self.bare_args(body, end), end

    def bare_args(self, body: str, end: int) -> str:
        """Bare input text is the argument as written (``x = 2 + 3`` stays text)."""
        if _is_placeholder(body):
            raise _TurnError("placeholder", feedback.placeholder(self.voice, body), end)
        return body

    def args_from_value(self, value: Any, vstart: int, end: int) -> Union[dict, str]:
        """Arguments from a JSON input: a dict or string as is, anything else as the text written."""
        if isinstance(value, dict):
            _check_placeholder_values(value, self.voice, end)
            return value
        if isinstance(value, str):
            if _is_placeholder(value):
                raise _TurnError("placeholder", feedback.placeholder(self.voice, value), end)
            return value
        return self.text[vstart:end].strip().strip("`").strip()

    # --- call and paper syntax ---------------------------------------------------------
    def call(self, start: int, name_raw: str, opener: int) -> Union[list, str]:
        """``name(args)``: keywords give a dict, one positional its value."""
        text = self.text
        try:
            got = jsonish.read_call_args(text, opener + 1, boundary=self.is_boundary, stop=self.limit, budget=self.budget)
        except jsonish.JsonishError as err:
            if err.code == "truncated":
                self.check_name(name_raw, self.limit)
                raise _TurnError("truncated", feedback.truncated(self.voice, None), self.rstrip_end(0, self.limit)) from None
            le = self.line_end(opener)
            close = text.rfind(")", opener, le)
            if close < 0:
                self.check_name(name_raw, le)
                raise _TurnError("bad_arguments", feedback.bad_arguments(self.voice, None, "unbalanced parentheses"),
                                 self.rstrip_end(0, le)) from None
            self.add("raw_arguments")  # not Python-ish: keep what is between the parentheses
            args: Union[dict, str] = text[opener + 1:close].strip()
            end = close + 1
        else:
            self.add(*got.repairs)
            end = got.end
            args = self.call_to_args(name_raw, got)
        return self.finish_call(start, name_raw, args, end)

    def finish_call(self, start: int, name_raw: str, args: Union[dict, str], end: int) -> Union[list, str]:
        tool = self.check_name(name_raw, end, args)
        if tool is _FINAL:
            self.final_end = end
            return self.final_text(args, end)
        if isinstance(args, dict):
            _check_placeholder_values(args, self.voice, end)
        elif _is_placeholder(args):
            raise _TurnError("placeholder", feedback.placeholder(self.voice, args), end)
        return [_Call(name_raw, args, start, end, tool=str(tool))]

    def call_to_args(self, name_raw: str, got: jsonish.CallArgs) -> Union[dict, str]:
        """Keywords -> dict; one positional -> its string (or dict); several -> by schema order."""
        pos, kw = got.positional, dict(got.keywords)
        if not pos:
            return kw
        if len(pos) == 1 and not kw:
            raw, value = pos[0]
            return value if isinstance(value, (dict, str)) else raw
        tool = self.ts.lookup(_clean_name(name_raw)) if self.ts is not None else None
        free = [p for p in (self.ts.param_names(tool) if tool else []) if p not in kw]
        if len(free) >= len(pos):
            self.add("positional_args")
            for p, (_raw, value) in zip(free, pos):
                kw[p] = value
            return kw
        self.add("raw_arguments")
        parts = [raw for raw, _ in pos] + [f"{k}={jsonish.dumps(v)}" for k, v in got.keywords.items()]
        return ", ".join(parts)

    def paper(self, start: int, name_raw: str, opener: int, slot_end: int) -> Union[list, str]:
        """``Search[entity]``: the text inside the brackets (a dict if it is a JSON object)."""
        text = self.text
        body = _NON_SPACE.match(text, opener + 1, self.limit).end()
        if text.startswith("{", body):  # a JSON object may hold "]" in a string or span lines
            try:
                got = jsonish.read_value(text, body, boundary=self.is_boundary, stop=self.limit, budget=self.budget)
            except jsonish.JsonishError:
                got = None
            if got is not None and isinstance(got.value, dict):
                close = _NON_SPACE.match(text, got.end, self.limit).end()
                if text.startswith("]", close):
                    self.add(*got.repairs)
                    return self.finish_call(start, name_raw, got.value, close + 1)
        close = _balanced_close(text, opener, slot_end)
        last = text.rfind("]", opener, slot_end)
        if close < 0 or last > close:
            close = last
        if close < 0:  # not closed on this line: on a later one, or at the end of the turn
            nl = self.next_line(opener)
            stop = self.find_line(nl, fence=True)
            close = text.find("]", nl, stop)
            if close < 0:
                self.add("closed_brackets")
                end = self.rstrip_end(opener + 1, stop)
                inner = text[opener + 1:end].strip()
            else:
                inner, end = text[opener + 1:close].strip(), close + 1
        else:
            inner, end = text[opener + 1:close].strip(), close + 1
        args: Union[dict, str] = inner
        if inner.startswith("{"):
            try:
                value = jsonish.loads(inner)
            except jsonish.JsonishError:
                value = None
            if isinstance(value, dict):
                args = value
        return self.finish_call(start, name_raw, args, end)

    # --- JSON blobs ----------------------------------------------------------------------
    def action_blob(self, start: int, p: int) -> Union[list, str]:
        """A JSON action written after ``Action:`` (inline, on the next line, fenced or tagged)."""
        text = self.text
        tagged = text.startswith("<tool_call>", p)
        if tagged:
            p = _NON_SPACE.match(text, p + len("<tool_call>"), self.limit).end()
        try:
            value, _vstart, end = self.structured(p)
        except jsonish.JsonishError as err:
            raise self.json_error(err, None) from None
        if tagged:
            end = self.close_tag(end)
        if isinstance(value, str) and _is_placeholder(value):
            raise _TurnError("placeholder", feedback.placeholder(self.voice, value), end)
        got = _calls_from_json(value, self.ts, labelled=True)
        if got is None:
            raise _TurnError("no_action", feedback.no_action(self.voice), end)
        return self.finish_blob(got, start, end)

    def finish_blob(self, got: Union[list, tuple], start: int, end: int) -> Union[list, str]:
        if isinstance(got, tuple):  # (final-answer arguments, thought)
            self.blob_thought = got[1]
            self.final_end = end
            return self.final_text(got[0], end)
        calls = []
        for name, args, thought, decoded in got:
            if isinstance(name, str) and _fold(_clean_name(name)) in _PLACEHOLDER_NAMES and not (
                    self.ts is not None and self.ts.lookup(_clean_name(name))):
                raise _TurnError("placeholder", feedback.placeholder(self.voice, name), end)
            if decoded:
                self.add("arguments_string_decoded")
            if isinstance(args, dict):
                _check_placeholder_values(args, self.voice, end)
            elif _is_placeholder(args):
                raise _TurnError("placeholder", feedback.placeholder(self.voice, args), end)
            calls.append(_Call(name, args, start, end, thought))
        return calls

    def close_tag(self, end: int) -> int:
        k = _NON_SPACE.match(self.text, end, self.limit).end()
        return k + len("</tool_call>") if self.text.startswith("</tool_call>", k) else end

    def bare_blob(self, i: int, p: int, le: int) -> Union[list, str, None]:
        """A JSON action at ``p`` written without a label: bare, fenced, in ``<tool_call>``, or in prose.

        Returns None when it is not an action, with ``resume`` set past it.
        """
        text = self.text
        self.resume = 0
        tagged = text.startswith("<tool_call>", p)
        if tagged:
            p = _NON_SPACE.match(text, p + len("<tool_call>"), self.limit).end()
            if p >= self.limit:
                return None
        body = p
        if text.startswith("```", p):
            body = self.first_char(p + 3, le)
            if body >= le or text[body] not in "{[":
                body = self.first_char(self.skip_blank_lines(self.next_line(p)), self.limit)
        elif p == self.first_char(i, le) and i > 0 and text[i - 1] == "\n":
            above = text.rfind("\n", 0, i - 1) + 1
            line_above = text[above:i].strip()
            if line_above.startswith("```") and line_above.count("`") == 3:
                p = self.first_char(above, i)  # ```json on the line above: read the block with its fences
                i = above
            elif line_above == "<tool_call>":
                i = above
                tagged = True
        actionish = _ACTIONISH.match(text, body, min(body + 200, self.limit)) is not None
        if not (actionish or tagged) and (self.blob_failures >= _MAX_BLOB_TRIES or not _opens_value(text, body, self.limit)):
            self.blob_failures += 1
            return None  # "{" before a fence or a word: not a value; or too many tries already
        try:
            value, _vstart, end = self.structured(p)
        except jsonish.JsonishError as err:
            self.blob_floor = max(self.blob_floor, err.pos + 1)
            if actionish or tagged:
                raise self.json_error(err, None) from None
            self.blob_failures += 1
            return None
        if tagged:
            end = self.close_tag(end)
        got = _calls_from_json(value, self.ts, labelled=tagged)
        if got is None:
            self.blob_floor = max(self.blob_floor, end)
            self.resume = self.next_line(end)
            return None
        self.blob_line = i
        return self.finish_blob(got, i if (text.startswith("```", p) or tagged) else p, end)

    # --- final answers --------------------------------------------------------------------
    def final(self, cstart: int) -> tuple[str, int]:
        """The answer after a final-answer label, up to the next label line: (answer, end)."""
        text = self.text
        nl = self.next_line(cstart)
        stop = self.find_line(nl)
        p = _NON_SPACE.match(text, cstart, stop).end()
        end = self.rstrip_end(p, stop)
        answer = text[p:end]
        if not answer:
            raise _TurnError("missing_answer", feedback.missing_answer(self.voice), self.rstrip_end(0, stop))
        if _is_placeholder(answer):
            raise _TurnError("placeholder", feedback.placeholder(self.voice, answer), end)
        return answer, end

    def thought(self, stop: int) -> Optional[str]:
        """The prose before ``stop``: skipped spans (echoes) cut out, ``Thought:`` labels removed."""
        if not self.thought_labels:  # nothing skipped (the usual case): one slice
            if stop <= 0:  # a blob at the very start
                return None
            return _strip_thought_labels(self.text[:stop]).strip() or None
        pieces = []
        prev = 0
        for start, end in sorted(self.thought_labels):
            if start >= stop:
                break
            if start > prev:
                pieces.append(self.text[prev:start])
            prev = max(prev, end)
        if prev < stop:
            pieces.append(self.text[prev:stop])
        joined = _strip_thought_labels("".join(pieces)).strip()
        return joined or None


# --- helpers -------------------------------------------------------------------------------
# "The final answer is 68.04 kg." / "So the final answer is: $\\boxed{5}$" / "最终答案是 42。": a model that
# never saw a "Final Answer:" label (a prompt of call demos only) states its answer this way, and
# repeats it word for word after a format error. Only the words "final answer" count: "the answer
# is ..." is too often the start of a plan.
_SENTENCE_MAX = 300
"""A one-line thought up to this long, written after an observation, is offered back as the answer."""
_STATED = re.compile(r"final[ \t]+answer[ \t]+is[ \t]*[:：]?[ \t]*(?P<en>[^\n]+)|"
                     r"(?:最终答案|final[ \t]*answer)[ \t]*(?:是|为)[ \t]*[:：]?[ \t]*(?P<zh>[^\n]+)",
                     re.IGNORECASE)
_STATED_LEAD = re.compile(r"(?:(?:so|thus|therefore|hence|and)[,，]?\s*)?(?:the)?", re.IGNORECASE)
_BOXED = re.compile(r"^\$*\s*\\boxed\{(.+)\}\s*\$*$")


def _stated_answer(thought: str) -> Optional[str]:
    """The answer of the last sentence "The final answer is X" in ``thought``, else None."""
    answer = None
    for found in _STATED.finditer(thought):
        head = thought[max(0, found.start() - 24):found.start()]
        cut = max(head.rfind(c) for c in ".!?。！？\n")
        if cut < 0 and found.start() > 24:
            continue  # "final answer is" inside a longer sentence ("I think the final answer is ...")
        if found.group("zh") is not None or _STATED_LEAD.fullmatch(head[cut + 1:].strip()):
            answer = found.group("en") or found.group("zh")
    if answer is None:
        return None
    answer = answer.strip().rstrip("。.").strip().strip("*").strip()
    boxed = _BOXED.match(answer)
    if boxed:
        answer = boxed.group(1).strip()
    return answer or None


def _strip_thought_labels(text: str) -> str:
    """``text`` without the ``Thought:`` labels that open its lines.

    A one-line thought (trailing newlines aside) can hold a label only at its
    start: one anchored match instead of a scan of every offset."""
    if "\n" in text.rstrip("\n"):
        return _THOUGHT_LABEL.sub("", text)
    m = _THOUGHT_LABEL.match(text)
    return text if m is None else text[m.end():]


def _has_text(text: str, start: int) -> bool:
    """Whether anything but whitespace follows ``start`` (without copying the tail)."""
    if start >= len(text):  # the usual answers, without a regex call
        return False
    if not text[start].isspace():
        return True
    return _ANY_SPACE.match(text, start).end() < len(text)


def _opens_value(text: str, pos: int, limit: int) -> bool:
    """Whether the ``{`` or ``[`` at ``pos`` can open a JSON-ish value (judged by the next visible character)."""
    q = _NON_SPACE.match(text, pos + 1, min(limit, pos + 200)).end()
    if q >= min(limit, pos + 200):
        return q < limit
    c = text[q]
    if text[pos] == "{":
        return c in "\"'\u201c}" or c.isalnum() or c == "_"
    return c in "{[\"'\u201c]-" or c.isalnum()


def _midline_stop(text: str, p: int, le: int) -> int:
    """Where a terminator label written mid-line cuts a bare input (``le`` if none)."""
    if _MIDLINE_RE.search(text, p, le) is None:  # no terminator word on the line (the usual case)
        return le
    for tries, m in enumerate(_MIDLINE_RE.finditer(text, p, le)):
        if tries >= 16:
            break
        k = m.start()
        if (k == p or not text[k - 1].isalnum()) and (m.group().endswith(":") or _MIDLINE_AFTER.match(text, m.end(), le)):
            return k
    return le


def _inline_input_label(text: str, start: int, end: int) -> Optional[tuple[int, int]]:
    """(end of the name, start of the input) when an action line also holds ``Action Input:``."""
    for tries, w in enumerate(_INLINE_INPUT.finditer(text, start + 1, end)):
        if tries >= 8:
            break
        m = _MIDLINE_AFTER.match(text, w.end(), end)
        if m is not None:
            return w.start(), _NON_SPACE.match(text, m.end(), end).end()
    return None


def _first_of(text: str, chars: str, start: int, end: int) -> int:
    best = -1
    for ch in chars:
        k = text.find(ch, start, end)
        if k >= 0 and (best < 0 or k < best):
            best = k
    return best


def _balanced_close(text: str, opener: int, end: int) -> int:
    """Offset of the ``]`` matching ``text[opener]`` before ``end``, or -1."""
    depth = 0
    for k in range(opener, end):
        c = text[k]
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _hard_end(text: str) -> int:
    """Where the turn really ends: the first chat special token, if the backend left one in."""
    end = len(text)
    if "<" in text:
        for tok in _SPECIAL_TOKENS:
            k = text.find(tok, 0, end)
            if k >= 0:
                end = k
    return end


def _check_placeholder_values(args: dict, voice: feedback.Voice, end: int) -> None:
    for value in args.values():
        if isinstance(value, str) and _is_placeholder(value):
            raise _TurnError("placeholder", feedback.placeholder(voice, value), end)


def _answer_from_args(args: Any) -> str:
    """The answer text of a final-answer call: a string, or JSON when it is not one."""
    if isinstance(args, dict):
        folded = {_fold(str(k)): v for k, v in args.items()}
        for key in _ANSWER_KEYS:
            if key in folded:
                args = folded[key]
                break
        else:
            if len(args) == 1:
                args = next(iter(args.values()))
    if isinstance(args, str):
        return args
    return jsonish.dumps(args)


def _args_from_json(value: Any) -> tuple[Union[dict, str], bool]:
    """A blob's arguments as a dict or string (a JSON-object string is decoded): (args, decoded)."""
    if value is None:
        return {}, False
    if isinstance(value, dict):
        return value, False
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("{") and s.endswith("}"):
            try:
                decoded = jsonish.loads(s)
            except jsonish.JsonishError:
                return value, False
            if isinstance(decoded, dict):
                return decoded, True
        return value, False
    return jsonish.dumps(value), False


def _calls_from_json(value: Any, ts: Optional[_Toolset], *, labelled: bool, depth: int = 0):
    """Map a decoded blob to calls ``[(name, args, thought, decoded)]``, a final ``(args, thought)``, or None.

    ``labelled`` (the blob follows ``Action:`` or sits in ``<tool_call>``)
    accepts more shapes than a blob found in prose, where
    ``{"name": "John", "age": 30}`` must stay prose.
    """
    if depth > 3:
        return None
    if isinstance(value, list):
        out: list = []
        for item in value[:MAX_ACTIONS + 1]:  # more than the cap are dropped (too_many_actions) unread
            got = _calls_from_json(item, ts, labelled=labelled, depth=depth + 1)
            if isinstance(got, tuple) and len(value) == 1:
                return got
            if not isinstance(got, list):
                return None
            out.extend(got)
        return out or None
    if not isinstance(value, dict):
        return None
    keys = {_fold(str(k)): k for k in value}
    thought = None
    if not keys.keys().isdisjoint(_THOUGHT_KEYS):  # set tests first: most blobs hold no thought and no call list
        thought = next((value[keys[k]] for k in _THOUGHT_KEYS if k in keys and isinstance(value[keys[k]], str)), None)
    if not keys.keys().isdisjoint(_LIST_KEYS):
        for list_key in _LIST_KEYS:
            if list_key in keys and isinstance(value[keys[list_key]], list):
                return _with_thought(_calls_from_json(value[keys[list_key]], ts, labelled=True, depth=depth + 1),
                                     thought)
    name: Any = None
    name_key = None
    for k in _NAME_KEYS:
        if k not in keys:
            continue
        v = value[keys[k]]
        if isinstance(v, dict) and ("name" in v or "function" in v or "tool" in v):
            return _with_thought(_calls_from_json(v, ts, labelled=True, depth=depth + 1), thought)
        if isinstance(v, str):
            name, name_key = v, k
            break
    if name is None:
        if "finalanswer" in keys:
            return (value[keys["finalanswer"]], thought)
        if labelled and ts is not None and len(value) == 1:
            (only_key,) = value
            if ts.lookup(_clean_name(str(only_key))):  # {"calculator": "2+2"}
                args, decoded = _args_from_json(value[only_key])
                return [(str(only_key), args, thought, decoded)]
        return None
    arg_key = next(filter(keys.__contains__, _ARG_KEYS), None)
    known = ts is not None and ts.lookup(_clean_name(name)) is not None
    if arg_key is not None:
        args_source: Any = value[keys[arg_key]]
    elif not labelled and name_key == "name" and not known and not (len(value) == 1 and _SNAKE.fullmatch(name)):
        return None  # {"name": "John", "age": 30} is data, not a call; {"name": "get_time"} is one
    else:  # {"action": "search", "query": "x"}: the other keys are the arguments
        args_source = {k: v for k, v in value.items()
                       if _fold(str(k)) not in (name_key, "type", "id", *_THOUGHT_KEYS)}
    if not known and _is_final_name(_clean_name(name)):
        return (args_source if args_source is not None else "", thought)
    args, decoded = _args_from_json(args_source)
    return [(name, args, thought, decoded)]


def _with_thought(got: Any, thought: Optional[str]):
    if thought is None or got is None:
        return got
    if isinstance(got, tuple):
        return (got[0], got[1] or thought)
    return [(n, a, t or thought, d) for n, a, t, d in got]


# --- assembling the Step -------------------------------------------------------------------
def _resolve(turn: _Turn, calls: tuple[_Call, ...]) -> tuple[Action, ...]:
    actions = []
    for call in calls:
        tool = call.tool or turn.check_name(call.name, call.end, call.args)
        if not isinstance(tool, str):  # a final-answer name among several calls
            raise _TurnError("no_action", feedback.no_action(turn.voice), call.end)
        if tool != call.name.strip():
            turn.add("tool_name")
        actions.append(Action(tool, call.args, (call.start, call.end)))
    return tuple(actions)


def _step(text: str, ts: Optional[_Toolset], prose: str, style: tuple[str, int, Optional[str]]) -> Step:
    if not text or text.isspace():
        return Step(text=text, error=FormatError("empty", feedback.empty(feedback.Voice(ts, *style))), end=0)
    turn = _Turn(text, ts, style)

    def done(end: int, thought: Optional[str] = None, actions: tuple[Action, ...] = (),
             final_answer: Optional[str] = None, error: Optional[FormatError] = None) -> Step:
        repairs = turn.repairs
        if _has_text(text, end) and "dropped_tail" not in repairs:
            repairs = [*repairs, "dropped_tail"]
        return Step(text, thought, actions, final_answer, error, tuple(repairs), end)  # positional: cheaper

    try:
        got = turn.read()
        if not got.calls and got.final is None:
            got = turn.fallback() or got
        actions = _resolve(turn, got.calls) if got.calls else ()
    except _TurnError as err:
        end = turn.limit if err.end is None else max(0, min(err.end, len(text)))
        thought = turn.thought(turn.first_start if turn.first_start is not None else end)
        return done(end, thought=thought, error=FormatError(err.code, err.message))
    if actions:
        thought = turn.thought(turn.first_start or 0) or got.calls[0].thought
        return done(got.end, thought=thought, actions=actions)
    if got.final is not None:
        thought = turn.thought(turn.first_start or 0) or turn.blob_thought
        return done(got.end, thought=thought, final_answer=got.final)
    thought = turn.thought(got.end)
    if thought is None:
        if turn.stopped_at is not None:  # the turn opens with an Observation or a new Question
            return done(got.end, error=FormatError("no_action", feedback.untrusted(turn.voice)))
        return done(got.end, error=FormatError("empty", feedback.empty(turn.voice)))
    if _is_placeholder(thought):
        message = feedback.placeholder(turn.voice, thought)
        return done(got.end, thought=thought, error=FormatError("placeholder", message))
    if turn.stray_input:
        return done(got.end, thought=thought, error=FormatError("no_action", feedback.stray_input(turn.voice)))
    stated = _stated_answer(thought)
    if stated is not None:
        turn.add("stated_answer")
        return done(got.end, thought=thought, final_answer=stated)
    if prose == "final":
        turn.add("prose_as_final")
        return done(got.end, final_answer=thought)
    if turn.voice.n > 1 and "\n" not in thought and len(thought) <= _SENTENCE_MAX:
        return done(got.end, thought=thought, error=FormatError("no_action", feedback.answer_or_action(turn.voice, thought)))
    return done(got.end, thought=thought, error=FormatError("no_action", feedback.no_action(turn.voice)))


def parse(
    text: str,
    tools: ToolsArg = None,
    *,
    prose: str = "error",
    dialect: str = "classic",
    lang: Optional[str] = None,
    n: int = 1,
) -> Step:
    """Read one model turn into a ``Step``; never raises for a ``str``.

    ``tools`` (names, or a mapping name -> JSON schema) turns on forgiving name
    matching and ``unknown_tool`` errors; without it any identifier-like name
    is accepted. ``prose="final"`` makes a turn with no action and no answer
    (plain prose, or a thought alone) the final answer; the default
    ``"error"`` reports ``no_action``. Every dialect is read whatever
    ``dialect`` says: it, the prompt's language ``lang`` (default: Chinese for
    the ``zh`` dialect, else English) and the step number ``n`` only decide how
    an error message is worded, so the model is corrected in the style and
    language its prompt taught it.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() needs the turn as str, not {type(text).__name__}")
    if prose not in ("error", "final"):
        raise ValueError(f"prose must be 'error' or 'final', not {prose!r}")
    feedback.check_dialect(dialect)
    try:
        ts = _toolset(tools)
    except Exception as exc:  # a malformed tools argument is the caller's bug: say so
        raise TypeError(f"tools must be names or a name -> schema mapping: {exc}") from exc
    try:
        return _step(text, ts, prose, (dialect, n, lang))
    except Exception as exc:  # a bug here must not take the agent down
        voice = feedback.Voice(ts, dialect, n, lang)
        return Step(text=text, end=len(text), error=FormatError("internal", feedback.internal(voice, type(exc).__name__)))
