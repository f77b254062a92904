"""GBNF grammars that admit exactly one well-formed model turn, and a recognizer for them.

Why: a small model asked to follow a text protocol drifts (unknown tools, half-written
JSON, invented observations). llama.cpp can sample under a GBNF grammar, so the only
text the model *can* write is a thought line followed by one valid action or a final
answer. ``build_grammar`` writes that grammar from a dialect and the offered tools'
JSON schemas; the tolerant parser still reads the result, so constrained and
unconstrained backends share one code path.

The grammar covers the completion as generated *after* the template's turn prefix
(``Thought:``, ``Thought 2:``, ``思考：``)::

    <thought line>\\n<action or final answer in the dialect's canonical form>[\\n]

Grammar sampling is slow in llama.cpp (every candidate token is checked against every
live parse stack), so the grammar is kept small: only the offered tools, shared rules
for strings and numbers, bounded repetition, small character classes.

What a turn may contain, by design:

- the thought is one line without ``{ } [ ] `` ` `` (so a JSON blob or ``Tool[x]`` in
  prose can never be read as a second action);
- arguments are JSON objects whose keys follow the schema's order, required keys
  first, optional keys may be left out; no keys outside the schema;
- a tool with exactly one candidate argument may also be called with a bare value
  (``paper``: ``search[text]``, ``call``: ``search("text")``), which the parser returns
  as a string; a tool without arguments is ``Tool[]`` / ``tool()`` (also ``{}``);
- free-text answers and strings are bounded (``max_answer_chars``,
  ``max_string_chars``) so a rambling model must come to an end.

Schema keywords used: ``type`` (also the ``dict``/``float``/``int``/``str``/``bool``/
``list`` spellings), ``properties``, ``required``, ``enum``, ``const``, ``items``,
``anyOf``/``oneOf``, ``minLength``/``maxLength``, ``minItems``/``maxItems``,
``additionalProperties: false``. Anything else (``pattern``, ``minimum``, ``$ref``)
is left to argument coercion after parsing.

``grammar_matches(gbnf, text)`` recognizes the GBNF subset written here (literals,
character classes, rule references, groups, ``? * + {m} {m,} {m,n}``) with a
memoised recursive-descent matcher, so tests can check acceptance without
llama.cpp. ``check_gbnf`` reports undefined rules and syntax errors as
``GrammarError``: llama-cpp-python 0.3.36 does not validate grammars itself, and a
grammar llama.cpp fails to parse crashes the process when sampling starts.
"""

from __future__ import annotations

import functools
import json
import keyword
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "GrammarError",
    "build_grammar",
    "check_gbnf",
    "grammar_matches",
    "max_bytes",
    "DEFAULT_MAX_THOUGHT_CHARS",
    "DEFAULT_MAX_ANSWER_CHARS",
    "DEFAULT_MAX_STRING_CHARS",
    "DEFAULT_MAX_ITEMS",
]

DEFAULT_MAX_THOUGHT_CHARS = 160
DEFAULT_MAX_ANSWER_CHARS = 300
DEFAULT_MAX_STRING_CHARS = 160
DEFAULT_MAX_ITEMS = 16
"""Bounds are in characters, not tokens: a degenerate thought ("1.3333...", or Chinese
text at two or three tokens a character) can outrun a turn's token cap, so the loop
gives a constrained turn ``max_bytes(grammar)`` tokens, enough to always finish."""
_MAX_WS = 20
"""Whitespace run allowed between JSON tokens: enough for indented JSON, short
enough that a model stuck on newlines is forced on."""

_MAX_INLINE_WS = 4
"""The paper dialect writes its call on one line, so its JSON has no newlines."""

_FINAL_TOOL = "Final Answer"
_DIALECTS = ("classic", "json", "call", "paper", "zh")


class GrammarError(ValueError):
    """A grammar (or the tools it was to be built from) cannot be used."""


# --------------------------------------------------------------------------------------
# Building grammars
# --------------------------------------------------------------------------------------


def _lit(text: str) -> str:
    """``text`` as a GBNF string literal."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02X}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _rep(expr: str, low: int, high: int) -> str:
    """``expr`` repeated low..high times (``high`` >= ``low``)."""
    if high <= 0:
        return ""
    if low == high:
        return expr if low == 1 else f"{expr}{{{low}}}"
    if low == 0 and high == 1:
        return f"{expr}?"
    return f"{expr}{{{low},{high}}}"


_TYPE_SYNONYMS = {
    "dict": "object",
    "float": "number",
    "double": "number",
    "int": "integer",
    "str": "string",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "any": "",
}

_PRIMITIVE_RULES = {
    "hex": "[0-9a-fA-F]",
    "char": (
        '[^"\\\\\\x7F\\x00-\\x1F] | "\\\\" ( ["\\\\bfnrt] | "u" '
        "( [0-9a-cA-Ce-fE-F] hex hex hex | [dD] [0-7] hex hex ) )"
    ),
    "integer": '"-"? ( "0" | [1-9] [0-9]{0,18} )',
    "number": '"-"? ( "0" | [1-9] [0-9]{0,18} ) ( "." [0-9]{1,20} )? ( [eE] [-+]? [0-9]{1,3} )?',
    "boolean": '"true" | "false"',
    "null": '"null"',
    "py-boolean": '"True" | "False"',
    "py-null": '"None"',
}
"""Rules every grammar may share; emitted only when referenced."""


@dataclass(frozen=True)
class _ToolSpec:
    name: str
    parameters: Mapping[str, Any]


def _tool_specs(tools: Any) -> list[_ToolSpec]:
    """Accept Tool objects, OpenAI tool dicts, {name, parameters} dicts or a name->schema map."""
    if tools is None:
        return []
    if isinstance(tools, Mapping):
        return [_ToolSpec(str(name), schema or {}) for name, schema in tools.items()]
    specs = []
    for item in tools:
        if isinstance(item, Mapping):
            inner = item.get("function") if isinstance(item.get("function"), Mapping) else item
            name, params = inner.get("name"), inner.get("parameters")
        else:
            name, params = getattr(item, "name", None), getattr(item, "parameters", None)
        if not isinstance(name, str):
            raise GrammarError(f"tool {item!r} has no name")
        if params is not None and not isinstance(params, Mapping):
            raise GrammarError(f"tool {name!r}: parameters must be a JSON schema object")
        specs.append(_ToolSpec(name, params or {}))
    return specs


def _check_names(specs: list[_ToolSpec]) -> None:
    """Every tool name must be writable and must read back as itself through the parser."""
    from ..protocol.names import FINAL_NAMES, match_tool

    names = [spec.name for spec in specs]
    finals = {_fold(name) for name in FINAL_NAMES}
    for name in names:
        if not name or not set(name) <= _NAME_CHARS or not name[0].isalnum() or name[-1] == ".":
            raise GrammarError(
                f"tool name {name!r} cannot be written in a text protocol; start with a letter or digit, "
                "then use letters, digits, '_', '-' or '.'")
        if _fold(name) in finals:
            raise GrammarError(f"tool name {name!r} means 'final answer' to the parser; rename the tool")
        if names.count(name) > 1:
            raise GrammarError(f"tool {name!r} is offered twice")
        if match_tool(name, names)[0] != name:
            raise GrammarError(f"tool name {name!r} is too close to another tool's name to be told apart")


def _fold(name: str) -> str:
    """Case and separators folded away, as the parser compares tool names."""
    return "".join(ch for ch in name.casefold() if ch not in " \t\n_-")


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


_RESERVED = frozenset({"root", "value", "object", "array", "py-value"})


class _Builder:
    """Accumulates named rules; identical bodies share one rule."""

    def __init__(self, *, max_string_chars: int, max_items: int, multiline: bool) -> None:
        self.rules: dict[str, str] = {}
        self.ws_body = f"[ \\t\\n]{{0,{_MAX_WS}}}" if multiline else f"[ \\t]{{0,{_MAX_INLINE_WS}}}"
        self._by_body: dict[str, str] = {}
        self._by_schema: dict[tuple[str, bool], str] = {}
        self.max_string_chars = max_string_chars
        self.max_items = max_items

    # rule bookkeeping -----------------------------------------------------------------
    def prim(self, name: str) -> str:
        if name not in self.rules:
            self.rules[name] = self.ws_body if name == "ws" else _PRIMITIVE_RULES[name]
            for dep in ("hex",) if name == "char" else ():
                self.prim(dep)
        return name

    def rule(self, hint: str, body: str) -> str:
        if body in self._by_body:
            return self._by_body[body]
        base = "".join(c if c.isascii() and c.isalnum() else "-" for c in hint).strip("-").lower()
        base = base or "r"
        name, n = base, 2
        while name in self.rules or name in _PRIMITIVE_RULES or name in _RESERVED or name == "ws":
            name, n = f"{base}-{n}", n + 1
        self.rules[name] = body
        self._by_body[body] = name
        return name

    # JSON values ----------------------------------------------------------------------
    def ws(self) -> str:
        return self.prim("ws")

    def string(self, low: int = 0, high: int | None = None) -> str:
        """A JSON string of ``low``..``high`` characters (``high`` defaults to the cap)."""
        high = self.max_string_chars if high is None else high
        low = min(low, high)
        self.prim("char")
        body = f'"\\"" {_rep("char", low, high)} "\\""'.replace("  ", " ")
        return self.rule("string" if (low, high) == (0, self.max_string_chars) else f"string-{low}-{high}", body)

    def any_value(self, python: bool = False) -> str:
        if python:
            alts = [self.string(), self.prim("number"), self.prim("py-boolean"), self.prim("py-null"),
                    self.any_array(), self.any_object()]
            return self.rule("py-value", " | ".join(alts))
        if "value" not in self.rules:
            self.rules["value"] = ""  # reserve: json-object and json-array refer back to it
            alts = [self.any_object(), self.any_array(), self.string(), self.prim("number"),
                    self.prim("boolean"), self.prim("null")]
            self.rules["value"] = " | ".join(alts)
        return "value"

    def any_object(self) -> str:
        if "object" not in self.rules:
            self.rules["object"] = ""
            ws, s, v = self.ws(), self.string(), self.any_value()
            member = f'{s} {ws} ":" {ws} {v}'
            more = _rep(f'( {ws} "," {ws} {member} )', 0, self.max_items - 1)
            self.rules["object"] = f'"{{" {ws} ( {member} {more} )? {ws} "}}"'
        return "object"

    def any_array(self) -> str:
        if "array" not in self.rules:
            self.rules["array"] = ""
            ws, v = self.ws(), self.any_value()
            more = _rep(f'( {ws} "," {ws} {v} )', 0, self.max_items - 1)
            self.rules["array"] = f'"[" {ws} ( {v} {more} )? {ws} "]"'
        return "array"

    def value(self, schema: Any, hint: str, python: bool = False) -> str:
        """A rule name for values matching ``schema``; ``python`` writes top-level
        booleans/null as Python literals (the ``call`` dialect's keyword values)."""
        if not isinstance(schema, Mapping):
            return self.any_value(python)
        key = (json.dumps(schema, sort_keys=True, default=str), python)
        if key not in self._by_schema:
            self._by_schema[key] = self._value(schema, hint, python)
        return self._by_schema[key]

    def _literal_value(self, value: Any, python: bool) -> str:
        if python and (value is None or isinstance(value, bool)):
            return _lit({None: "None", True: "True", False: "False"}[value])
        return _lit(json.dumps(value, ensure_ascii=False))

    def _value(self, schema: Mapping[str, Any], hint: str, python: bool) -> str:
        if "const" in schema:
            return self.rule(hint, self._literal_value(schema["const"], python))
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            alts = dict.fromkeys(self._literal_value(v, python) for v in schema["enum"])
            return self.rule(hint, " | ".join(alts))
        for combo in ("anyOf", "oneOf"):
            if isinstance(schema.get(combo), list) and schema[combo]:
                alts = [self.value(sub, f"{hint}-{i}", python) for i, sub in enumerate(schema[combo])]
                return self.rule(hint, " | ".join(dict.fromkeys(alts)))
        kind = schema.get("type")
        if isinstance(kind, list):
            alts = [self.value({**schema, "type": k}, f"{hint}-{k}", python) for k in kind]
            return self.rule(hint, " | ".join(dict.fromkeys(alts)))
        kind = _TYPE_SYNONYMS.get(kind, kind) if isinstance(kind, str) else ""
        if not kind and isinstance(schema.get("properties"), Mapping):
            kind = "object"
        if kind == "string":
            low, high = schema.get("minLength", 0), schema.get("maxLength")
            high = min(high, self.max_string_chars) if isinstance(high, int) and high >= 0 else None
            return self.string(low if isinstance(low, int) and low > 0 else 0, high)
        if kind in ("integer", "number"):
            return self.prim(kind)
        if kind == "boolean":
            return self.prim("py-boolean" if python else "boolean")
        if kind == "null":
            return self.prim("py-null" if python else "null")
        if kind == "array":
            return self._array(schema, hint)
        if kind == "object":
            return self._object(schema, hint)
        return self.any_value(python)

    def _array(self, schema: Mapping[str, Any], hint: str) -> str:
        items = schema.get("items")
        if not isinstance(items, Mapping) and "minItems" not in schema and "maxItems" not in schema:
            return self.any_array()
        item = self.value(items, f"{hint}-item")
        high = schema.get("maxItems")
        high = min(high, self.max_items) if isinstance(high, int) and high >= 0 else self.max_items
        low = schema.get("minItems")
        low = min(low, high) if isinstance(low, int) and low > 0 else 0
        ws = self.ws()
        if high == 0:
            return self.rule(hint, f'"[" {ws} "]"')
        more = _rep(f'( {ws} "," {ws} {item} )', max(low - 1, 0), high - 1)
        inner = f"{item} {more}".strip()
        inner = f"( {inner} )?" if low == 0 else inner
        return self.rule(hint, f'"[" {ws} {inner} {ws} "]"')

    def _object(self, schema: Mapping[str, Any], hint: str) -> str:
        props = schema.get("properties")
        ws = self.ws()
        if not isinstance(props, Mapping):
            return self.any_object()
        if not props:  # declared with no properties: a tool that takes no arguments
            return self.rule("empty-object", f'"{{" {ws} "}}"')

        def member(key: str) -> str:
            rule = self.value(props.get(key), f"{hint}-{key}")
            return f'{_lit(json.dumps(key, ensure_ascii=False))} {ws} ":" {ws} {rule}'

        body = self.fields(schema, hint, member, f'{ws} "," {ws}')
        return self.rule(hint, f'"{{" {ws} {body} {ws} "}}"'.replace("  ", " "))

    def fields(self, schema: Mapping[str, Any], hint: str, member, sep: str) -> str:
        """Members in schema order, required first, optional ones each optional.

        Optional members chain through one rule each (``tail-i ::= (sep m_i)? tail-i+1``)
        so the grammar grows linearly with the number of keys.
        """
        props = schema.get("properties") or {}
        required_list = schema.get("required") if isinstance(schema.get("required"), list) else []
        required = [k for k in props if k in required_list]
        required += [k for k in required_list if k not in props and isinstance(k, str)]
        optional = [k for k in props if k not in required]
        tails: list[str] = [""] * (len(optional) + 1)
        for i in range(len(optional) - 1, -1, -1):
            body = f"( {sep} {member(optional[i])} )? {tails[i + 1]}".strip()
            tails[i] = self.rule(f"{hint}-opt-{i + 1}", body)
        if required:
            seq = f" {sep} ".join(member(k) for k in required)
            return f"{seq} {tails[0]}".strip()
        if not optional:
            return ""
        starts = [f"{member(k)} {tails[i + 1]}".strip() for i, k in enumerate(optional)]
        return f"( {' | '.join(starts)} )?"


def _single_candidate(schema: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The one key a bare (positional) value can stand for, with its schema."""
    props = schema.get("properties")
    if not isinstance(props, Mapping) or not props:
        return None
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    required = [k for k in required if isinstance(k, str)]
    if len(required) == 1 and required[0] in props:
        key = required[0]
    elif not required and len(props) == 1:
        (key,) = props
    else:
        return None
    return key, props[key]


_BARE_BAD = "\n\r[]{}`"


def _bare_safe(text: str) -> bool:
    """Whether ``text`` can stand bare inside ``Tool[...]`` and read back unchanged."""
    return (
        bool(text)
        and text == text.strip()
        and not any(c in _BARE_BAD for c in text)
        and text[0] not in "\"'.…<*_["
        and text.isprintable()
    )


_PLACEHOLDER_STARTS = ".…<*_\\[\"'"


def _trimmed_line(banned: str, high: int) -> str:
    """GBNF for 1..``high`` characters on one line, none of ``banned``, no space at either end.

    The first character is never one that opens a template placeholder the parser
    refuses as content (``...``, ``…``, ``<tool>``, ``[a, b]``, also behind ``*``, ``_`` or
    quotes; after a full-width colon the parser reads ``*``/``_`` as markdown).
    """
    edge = f"[^ \\t\\n\\r{banned}]"
    first = f"[^ \\t\\n\\r{banned}{_PLACEHOLDER_STARTS}]"
    if high <= 1:
        return first
    middle = f"[^\\n\\r{banned}]"
    return f"{first} ( {_rep(middle, 0, high - 2)} {edge} )?".replace("  ", " ")


def _kind(schema: Any) -> str:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    return _TYPE_SYNONYMS.get(kind, kind) if isinstance(kind, str) else ""


class _TurnBuilder:
    """Writes the ``root`` rule: thought line, then one action or the final answer, per dialect."""

    def __init__(self, dialect: str, specs: list[_ToolSpec], b: _Builder,
                 max_thought_chars: int, max_answer_chars: int) -> None:
        self.dialect = dialect
        self.specs = specs
        self.b = b
        self.max_thought = max_thought_chars
        self.max_answer = max_answer_chars

    def thought(self) -> str:
        rest = "[^\\n\\r{}`\\[\\]]"
        first = "[^ \\t\\n\\r{}`\\[\\]]"
        high = self.max_thought
        text = self.b.rule("thought-text", f"{first} {rest}{{0,{high - 1}}}" if high > 1 else first)
        return self.b.rule("thought", f'" "? {text}')

    def answer(self) -> str:
        """Free text on one line, without spaces at either end (the parser strips them)."""
        banned = "{}`\\[\\]" if self.dialect == "paper" else "{}`"
        return self.b.rule("answer", _trimmed_line(banned, self.max_answer))

    def args(self, spec: _ToolSpec) -> str:
        schema = dict(spec.parameters)
        schema.setdefault("type", "object")
        if _kind(schema) != "object":
            raise GrammarError(f"tool {spec.name!r}: parameters must be a JSON schema of type object")
        return self.b.value(schema, f"{spec.name}-args")

    def bare(self, spec: _ToolSpec) -> str | None:
        """Bare value rule for ``Tool[value]``, when one key can take it."""
        found = _single_candidate(spec.parameters)
        if found is None:
            return None
        key, schema = found
        if not isinstance(schema, Mapping):
            return None
        if "enum" in schema or "const" in schema:
            values = schema["enum"] if "enum" in schema else [schema["const"]]
            if not isinstance(values, list):
                return None
            texts = [str(v) for v in values if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
            texts = [t for t in dict.fromkeys(texts) if _bare_safe(t)]
            if not texts:
                return None
            return self.b.rule(f"{spec.name}-bare", " | ".join(_lit(t) for t in texts))
        kind = _kind(schema)
        if kind in ("integer", "number"):
            return self.b.prim(kind)
        if kind != "string":
            return None
        high = schema.get("maxLength")
        high = min(high, self.b.max_string_chars) if isinstance(high, int) and high > 0 else self.b.max_string_chars
        body = _trimmed_line("{}`\\[\\]", high)
        return self.b.rule("bare-text" if high == self.b.max_string_chars else f"bare-text-{high}", body)

    def positional(self, spec: _ToolSpec) -> str | None:
        """Positional string argument for ``tool("text")`` (string-typed single key only)."""
        found = _single_candidate(spec.parameters)
        if found is None or not isinstance(found[1], Mapping):
            return None
        schema = found[1]
        if "enum" in schema or "const" in schema:
            values = schema["enum"] if "enum" in schema else [schema["const"]]
            if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
                return self.b.value(schema, f"{spec.name}-positional")
            return None
        return self.b.value(schema, f"{spec.name}-positional") if _kind(schema) == "string" else None

    def kwargs(self, spec: _ToolSpec) -> str:
        schema = spec.parameters
        props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        for key in [*props, *required]:
            if not (isinstance(key, str) and key.isidentifier() and not keyword.iskeyword(key)):
                raise GrammarError(
                    f"tool {spec.name!r}: argument {key!r} cannot be written as key=value in the "
                    "call dialect; use the classic or json dialect for this tool")
        hint = f"{spec.name}-kwargs"

        def member(key: str) -> str:
            return f'{_lit(key + "=")} {self.b.value(props.get(key), f"{hint}-{key}", python=True)}'

        body = self.b.fields({"properties": props, "required": required}, hint, member, '", "')
        return body

    def object_action(self, name: str, quoted_name: str, args: str) -> str:
        """classic, zh, json: a tool name, then its JSON-object input, in the dialect's syntax."""
        if self.dialect == "classic":
            return f'{name} "\\nAction Input: " {args}'
        if self.dialect == "zh":
            return f'{name} "\\n行动输入：" {args}'
        ws = self.b.ws()
        return f'{quoted_name} {ws} "," {ws} "\\"action_input\\"" {ws} ":" {ws} {args}'

    def action(self, spec: _ToolSpec) -> str:
        name, d, b = spec.name, self.dialect, self.b
        if d in ("classic", "zh", "json"):
            body = self.object_action(_lit(name), _lit(json.dumps(name, ensure_ascii=False)), self.args(spec))
        elif d == "call":
            keywords, positional = self.kwargs(spec), self.positional(spec)
            if keywords and positional:
                inner = f"( {keywords} | {positional} )"
            elif keywords or positional:
                inner = keywords or f"{positional}?"
            else:
                inner = ""
            body = f'{_lit(name + "(")} {inner} ")"'.replace("  ", " ")
        elif d == "paper":
            alts = [self.args(spec)]
            bare = self.bare(spec)
            if bare:
                alts.append(bare)
            inner = f'( {" | ".join(alts)} )' if len(alts) > 1 else alts[0]
            if spec.parameters.get("properties") == {}:
                inner += "?"  # a tool without arguments is called as ``Tool[]``
            body = f'{_lit(name + "[")} {inner} "]"'
        else:  # pragma: no cover - checked in build_grammar
            raise GrammarError(f"unknown dialect {d!r}")
        return b.rule(f"action-{name}", body)

    def final(self) -> str:
        d, b = self.dialect, self.b
        if d in ("classic", "call"):
            return b.rule("final", f'"Final Answer: " {self.answer()}')
        if d == "zh":
            return b.rule("final", f'"最终答案：" {self.answer()}')
        if d == "paper":
            return b.rule("final", f'"Finish[" {self.answer()} "]"')
        ws = b.ws()
        b.prim("char")
        first = f"[^\"\\\\\\x7F\\x00-\\x20{{}}{_PLACEHOLDER_STARTS}]"
        text = b.rule("answer-string", f'"\\"" {first} {_rep("char", 0, self.max_answer - 1)} "\\""'.replace("  ", " "))
        return b.rule("final", f'{_lit(json.dumps(_FINAL_TOOL))} {ws} "," {ws} "\\"action_input\\"" {ws} ":" {ws} {text}')

    def unoffered(self) -> str:
        """An action naming a tool that is not offered, with free-form arguments."""
        d, b = self.dialect, self.b
        name = b.rule("other-name", "[A-Za-z_] [A-Za-z0-9_]{0,31}")
        if d in ("classic", "zh", "json"):
            body = self.object_action(name, f'"\\"" {name} "\\""', b.value({"type": "object"}, "other-args"))
        elif d == "call":
            body = f'{name} "(" [^()\\n]{{0,{b.max_string_chars}}} ")"'
        else:
            body = f'{name} "[" [^\\[\\]\\n]{{0,{b.max_string_chars}}} "]"'
        return b.rule("action-other", body)

    def turn(self, allow_final: bool, allow_thought_only: bool = False, allow_unoffered: bool = False) -> str:
        actions = [self.action(spec) for spec in self.specs]
        if allow_unoffered:
            actions.append(self.unoffered())
        d = self.dialect
        if d in ("classic", "zh", "call"):
            label = {"classic": "\\nAction: ", "zh": "\\n行动：", "call": "\\nAct: "}[d]
            alts = [f'"{label}" ( {" | ".join(actions)} )'] if actions else []
            if allow_final:
                alts.append(f'"\\n" {self.final()}')
            body = " | ".join(alts)
        else:
            choice = " | ".join(actions + ([self.final()] if allow_final else []))
            if d == "paper":
                body = f'"\\nAction " [0-9]{{1,3}} ": " ( {choice} )'
            else:
                ws = self.b.ws()
                body = (f'"\\nAction:\\n```json\\n{{" {ws} "\\"action\\"" {ws} ":" {ws} ( {choice} ) '
                        f'{ws} "}}\\n```"')
        return f'{self.thought()} ( {body} ){"?" if allow_thought_only else ""} "\\n"?'


def build_grammar(
    dialect: str,
    tools: Sequence[Any] | Mapping[str, Mapping[str, Any]] | None,
    *,
    allow_final: bool = True,
    allow_thought_only: bool = False,
    allow_unoffered: bool = False,
    max_thought_chars: int = DEFAULT_MAX_THOUGHT_CHARS,
    max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS,
    max_string_chars: int = DEFAULT_MAX_STRING_CHARS,
    max_items: int = DEFAULT_MAX_ITEMS,
) -> str:
    """GBNF text admitting one turn of ``dialect`` written after the turn prefix.

    ``tools`` are objects with ``.name`` and ``.parameters`` (a JSON schema object),
    OpenAI-style tool dicts, or a mapping name -> parameters schema.
    ``allow_thought_only`` lets the turn end after the thought line, so a model may
    decline every tool (the parser reads such a turn as prose; the shim then asks for
    the answer). ``allow_unoffered`` admits an action naming a tool that is not
    offered (free-form arguments): a model reaching for a tool it lacks can show it
    instead of being steered into an offered one that does not fit. Raises
    ``GrammarError`` for an unknown dialect, a tool name the protocol cannot carry
    (or one the parser reads as "final answer"), or nothing to admit.
    """
    if dialect not in _DIALECTS:
        raise GrammarError(f"unknown dialect {dialect!r}; known: {', '.join(_DIALECTS)}")
    for label, value, low in (("max_thought_chars", max_thought_chars, 1), ("max_answer_chars", max_answer_chars, 1),
                              ("max_string_chars", max_string_chars, 1), ("max_items", max_items, 1)):
        if not isinstance(value, int) or value < low:
            raise GrammarError(f"{label} must be an integer >= {low}, got {value!r}")
    specs = _tool_specs(tools)
    _check_names(specs)
    if not specs and not allow_final:
        raise GrammarError("no tools and no final answer: the grammar would admit nothing")
    b = _Builder(max_string_chars=max_string_chars, max_items=max_items, multiline=dialect != "paper")
    builder = _TurnBuilder(dialect, specs, b, max_thought_chars, max_answer_chars)
    turn = builder.turn(allow_final, allow_thought_only, allow_unoffered)
    lines = [f"root ::= {turn}"]
    lines += [f"{name} ::= {body}" for name, body in b.rules.items()]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Reading and matching GBNF
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Lit:
    text: str


@dataclass(frozen=True)
class _Class:
    negated: bool
    ranges: tuple[tuple[int, int], ...]

    def has(self, ch: str) -> bool:
        code = ord(ch)
        inside = any(lo <= code <= hi for lo, hi in self.ranges)
        return inside != self.negated


@dataclass(frozen=True)
class _Ref:
    name: str


@dataclass(frozen=True)
class _Alt:
    options: tuple[Any, ...]


@dataclass(frozen=True)
class _Seq:
    items: tuple[Any, ...]


@dataclass(frozen=True)
class _Rep:
    item: Any
    low: int
    high: int | None


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-", "^": "^"}


class _Reader:
    """Reads the GBNF subset: rules, alternatives, literals, classes, groups, repetition."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, message: str) -> GrammarError:
        line = self.text.count("\n", 0, self.pos) + 1
        col = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return GrammarError(f"GBNF line {line}, column {col}: {message}")

    def space(self, newlines: bool) -> None:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == "#":
                while self.pos < len(text) and text[self.pos] != "\n":
                    self.pos += 1
            elif ch in " \t" or (newlines and ch in "\r\n"):
                self.pos += 1
            else:
                break

    def name(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isascii() and
                                               (self.text[self.pos].isalnum() or self.text[self.pos] in "-_")):
            self.pos += 1
        if start == self.pos:
            raise self.error("expected a rule name")
        return self.text[start:self.pos]

    def char(self, end: str) -> str:
        text = self.text
        if self.pos >= len(text):
            raise self.error("unterminated string" if end == '"' else "unterminated character class")
        ch = text[self.pos]
        if ch != "\\":
            self.pos += 1
            return ch
        self.pos += 1
        if self.pos >= len(text):
            raise self.error("dangling backslash")
        esc = text[self.pos]
        self.pos += 1
        widths = {"x": 2, "u": 4, "U": 8}
        if esc in widths:
            digits = text[self.pos:self.pos + widths[esc]]
            if len(digits) != widths[esc] or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise self.error(f"bad \\{esc} escape")
            self.pos += widths[esc]
            return chr(int(digits, 16))
        if esc not in _ESCAPES:
            raise self.error(f"unknown escape \\{esc}")
        return _ESCAPES[esc]

    def literal(self) -> _Lit:
        self.pos += 1
        out = []
        while True:
            if self.pos < len(self.text) and self.text[self.pos] == '"':
                self.pos += 1
                return _Lit("".join(out))
            if self.pos < len(self.text) and self.text[self.pos] == "\n":
                raise self.error("newline inside a string literal")
            out.append(self.char('"'))

    def char_class(self) -> _Class:
        self.pos += 1
        negated = self.text.startswith("^", self.pos)
        if negated:
            self.pos += 1
        ranges = []
        while True:
            if self.pos >= len(self.text):
                raise self.error("unterminated character class")
            if self.text[self.pos] == "]":
                self.pos += 1
                return _Class(negated, tuple(ranges))
            lo = self.char("]")
            hi = lo
            if self.text.startswith("-", self.pos) and not self.text.startswith("-]", self.pos):
                self.pos += 1
                hi = self.char("]")
            if ord(hi) < ord(lo):
                raise self.error("character range out of order")
            ranges.append((ord(lo), ord(hi)))

    def alternatives(self, nested: bool) -> Any:
        options = [self.sequence(nested)]
        while True:
            self.space(nested)
            if self.text.startswith("|", self.pos):
                self.pos += 1
                self.space(True)
                options.append(self.sequence(nested))
            else:
                break
        return options[0] if len(options) == 1 else _Alt(tuple(options))

    def sequence(self, nested: bool) -> Any:
        items = []
        while True:
            self.space(nested)
            if self.pos >= len(self.text):
                break
            ch = self.text[self.pos]
            if ch == '"':
                item = self.literal()
            elif ch == "[":
                item = self.char_class()
            elif ch == "(":
                self.pos += 1
                self.space(True)
                item = self.alternatives(True)
                self.space(True)
                if not self.text.startswith(")", self.pos):
                    raise self.error("expected ')'")
                self.pos += 1
            elif ch == ".":
                self.pos += 1
                item = _Class(True, ())
            elif ch.isascii() and (ch.isalnum() or ch in "-_"):
                save = self.pos
                name = self.name()
                self.space(False)
                if self.text.startswith("::=", self.pos):  # next rule begins
                    self.pos = save
                    break
                self.pos = save + len(name)
                item = _Ref(name)
            else:
                break
            items.append(self.postfix(item))
        return items[0] if len(items) == 1 else _Seq(tuple(items))

    def postfix(self, item: Any) -> Any:
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch in "*+?":
                self.pos += 1
                item = _Rep(item, 1 if ch == "+" else 0, 1 if ch == "?" else None)
            elif ch == "{":
                end = self.text.find("}", self.pos)
                if end < 0:
                    raise self.error("unterminated repetition")
                parts = self.text[self.pos + 1:end].split(",")
                try:
                    low = int(parts[0])
                    high = low if len(parts) == 1 else (int(parts[1]) if parts[1].strip() else None)
                except ValueError:
                    raise self.error("bad repetition count") from None
                if len(parts) > 2 or low < 0 or (high is not None and high < low):
                    raise self.error("bad repetition count")
                self.pos = end + 1
                item = _Rep(item, low, high)
            else:
                break
        return item

    def grammar(self) -> dict[str, Any]:
        rules: dict[str, Any] = {}
        while True:
            self.space(True)
            if self.pos >= len(self.text):
                break
            name = self.name()
            self.space(False)
            if not self.text.startswith("::=", self.pos):
                raise self.error(f"expected '::=' after {name!r}")
            self.pos += 3
            self.space(True)
            rules[name] = self.alternatives(False)
            self.space(False)
            if self.pos < len(self.text) and self.text[self.pos] not in "\r\n":
                raise self.error(f"unexpected {self.text[self.pos]!r}")
        return rules


def _refs(node: Any) -> Iterable[str]:
    if isinstance(node, _Ref):
        yield node.name
    elif isinstance(node, (_Alt, _Seq)):
        for child in node.options if isinstance(node, _Alt) else node.items:
            yield from _refs(child)
    elif isinstance(node, _Rep):
        yield from _refs(node.item)


@functools.lru_cache(maxsize=64)
def _compile(gbnf: str) -> dict[str, Any]:
    rules = _Reader(gbnf).grammar()
    if "root" not in rules:
        raise GrammarError("GBNF has no 'root' rule")
    for name, node in rules.items():
        for ref in _refs(node):
            if ref not in rules:
                raise GrammarError(f"GBNF rule {name!r} refers to undefined rule {ref!r}")
    return rules


def check_gbnf(gbnf: str) -> None:
    """Raise ``GrammarError`` (with line and column) unless ``gbnf`` is readable and complete."""
    _compile(gbnf)


class _Matcher:
    def __init__(self, rules: dict[str, Any], text: str) -> None:
        self.rules = rules
        self.text = text
        self.memo: dict[tuple[str, int], frozenset[int]] = {}
        self.active: set[tuple[str, int]] = set()

    def ends(self, node: Any, pos: int) -> frozenset[int]:
        """Every position where a match of ``node`` starting at ``pos`` can end."""
        text = self.text
        if isinstance(node, _Lit):
            return frozenset((pos + len(node.text),)) if text.startswith(node.text, pos) else frozenset()
        if isinstance(node, _Class):
            return frozenset((pos + 1,)) if pos < len(text) and node.has(text[pos]) else frozenset()
        if isinstance(node, _Ref):
            key = (node.name, pos)
            if key in self.memo:
                return self.memo[key]
            if key in self.active:
                raise GrammarError(f"left recursion through rule {node.name!r}")
            self.active.add(key)
            result = self.ends(self.rules[node.name], pos)
            self.active.discard(key)
            self.memo[key] = result
            return result
        if isinstance(node, _Alt):
            out: set[int] = set()
            for option in node.options:
                out |= self.ends(option, pos)
            return frozenset(out)
        if isinstance(node, _Seq):
            current = {pos}
            for item in node.items:
                current = {end for p in current for end in self.ends(item, p)}
                if not current:
                    break
            return frozenset(current)
        if isinstance(node, _Rep):
            done: set[int] = {pos} if node.low == 0 else set()
            frontier, seen, count = {pos}, {pos}, 0
            while frontier and (node.high is None or count < node.high):
                count += 1
                frontier = {end for p in frontier for end in self.ends(node.item, p)}
                if node.high is None:
                    frontier -= seen  # a nullable item cannot loop forever
                    seen |= frontier
                if count >= node.low:
                    done |= frontier
            return frozenset(done)
        raise TypeError(f"unknown grammar node {node!r}")  # pragma: no cover


def grammar_matches(gbnf: str, text: str) -> bool:
    """Whether the GBNF grammar's ``root`` rule matches all of ``text``."""
    rules = _compile(gbnf)
    return len(text) in _Matcher(rules, text).ends(_Ref("root"), 0)


def _class_bytes(node: _Class) -> int:
    """The longest UTF-8 encoding of a character the class admits."""
    top = 0x10FFFF if node.negated else max((hi for _, hi in node.ranges), default=0)
    return len(chr(min(top, 0x10FFFF)).encode("utf-8", "surrogatepass"))


def max_bytes(gbnf: str) -> int | None:
    """The most UTF-8 bytes any text the grammar admits can have; ``None`` if unbounded.

    Why: a token is at least one byte, so this bounds the tokens a constrained turn
    can take to finish. The loop lets a constrained turn run that long instead of
    cutting it at ``max_turn_tokens``: a turn cut short is the one way a grammar-made
    turn can still fail to parse. Recursion (e.g. an untyped JSON ``value``) and
    unbounded repetition make the grammar unbounded.
    """
    rules = _compile(gbnf)
    memo: dict[str, int | None] = {}
    active: set[str] = set()

    def size(node: Any) -> int | None:
        if isinstance(node, _Lit):
            return len(node.text.encode("utf-8", "surrogatepass"))
        if isinstance(node, _Class):
            return _class_bytes(node)
        if isinstance(node, _Ref):
            if node.name in active:
                return None
            if node.name not in memo:
                active.add(node.name)
                memo[node.name] = size(rules[node.name])
                active.discard(node.name)
            return memo[node.name]
        if isinstance(node, _Alt):
            sizes = [size(option) for option in node.options]
            return None if None in sizes else max(sizes, default=0)
        if isinstance(node, _Seq):
            sizes = [size(item) for item in node.items]
            return None if None in sizes else sum(sizes)
        if isinstance(node, _Rep):
            one = size(node.item)
            if one is None or (node.high is None and one > 0):
                return None
            return one * (node.high or 0)
        raise TypeError(f"unknown grammar node {node!r}")  # pragma: no cover

    return size(_Ref("root"))
