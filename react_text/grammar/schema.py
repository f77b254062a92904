"""JSON-schema values as grammar rules, shared within one grammar.

Why: every tool's arguments are a JSON object written under the grammar, and the same
shapes recur (strings, numbers, a tool's enum); ``RuleSet`` gives each shape one named
rule, shares identical bodies, and emits the primitive rules only when referenced, so
the grammar llama.cpp checks every token against stays small.

Schema keywords used: ``type`` (also the ``dict``/``float``/``int``/``str``/``bool``/
``list`` spellings), ``properties``, ``required``, ``enum``, ``const``, ``items``,
``anyOf``/``oneOf``, ``minLength``/``maxLength``, ``minItems``/``maxItems``. Anything
else (``pattern``, ``minimum``, ``$ref``) is left to argument coercion after parsing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from .terms import Lit, Ref, Rep, Term, alt, chars, group, opt, rep, sequence

__all__ = ["RuleSet", "kind_of", "MAX_WS", "MAX_INLINE_WS"]

MAX_WS = 20
"""Whitespace run allowed between JSON tokens: enough for indented JSON, short
enough that a model stuck on newlines is forced on."""

MAX_INLINE_WS = 4
"""The paper dialect writes its call on one line, so its JSON has no newlines."""

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

_HEX = Ref("hex")
_DIGIT = chars(("0", "9"))
_INTEGER = sequence(opt(Lit("-")), group(alt([Lit("0"), sequence(chars(("1", "9")), Rep(_DIGIT, 0, 18))])))
_PRIMITIVE_RULES: dict[str, Term] = {
    "hex": chars(("0", "9"), ("a", "f"), ("A", "F")),
    "char": alt([
        chars('"\\\x7f', ("\x00", "\x1f"), negated=True),
        sequence(Lit("\\"), group(alt([
            chars('"\\bfnrt'),
            sequence(Lit("u"), group(alt([
                sequence(chars(("0", "9"), ("a", "c"), ("A", "C"), ("e", "f"), ("E", "F")), _HEX, _HEX, _HEX),
                sequence(chars("dD"), chars(("0", "7")), _HEX, _HEX),
            ]))),
        ]))),
    ]),
    "integer": _INTEGER,
    "number": sequence(_INTEGER, opt(sequence(Lit("."), Rep(_DIGIT, 1, 20))),
                       opt(sequence(chars("eE"), opt(chars("-+")), Rep(_DIGIT, 1, 3)))),
    "boolean": alt([Lit("true"), Lit("false")]),
    "null": Lit("null"),
    "py-boolean": alt([Lit("True"), Lit("False")]),
    "py-null": Lit("None"),
}
"""Rules every grammar may share; emitted only when referenced."""

_RESERVED = frozenset({"root", "value", "object", "array", "py-value"})


def kind_of(schema: Any) -> str:
    """The JSON type ``schema`` names (Python spellings mapped), or ``""``."""
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    return _TYPE_SYNONYMS.get(kind, kind) if isinstance(kind, str) else ""


class RuleSet:
    """Accumulates named rules in the order they are first needed; identical bodies share one rule."""

    def __init__(self, *, max_string_chars: int, max_items: int, multiline: bool) -> None:
        self.rules: dict[str, Term | None] = {}  # None: reserved while its body refers back to it
        ws = chars(" \t\n") if multiline else chars(" \t")
        self.ws_body: Term = Rep(ws, 0, MAX_WS if multiline else MAX_INLINE_WS)
        self._by_body: dict[Term, Ref] = {}
        self._by_schema: dict[tuple[str, bool], Ref] = {}
        self.max_string_chars = max_string_chars
        self.max_items = max_items

    # rule bookkeeping -----------------------------------------------------------------
    def prim(self, name: str) -> Ref:
        if name not in self.rules:
            self.rules[name] = self.ws_body if name == "ws" else _PRIMITIVE_RULES[name]
            if name == "char":
                self.prim("hex")
        return Ref(name)

    def rule(self, hint: str, body: Term) -> Ref:
        """A rule for ``body``, named after ``hint`` (ASCII letters, digits and ``-``)."""
        if body in self._by_body:
            return self._by_body[body]
        base = "".join(c if c.isascii() and c.isalnum() else "-" for c in hint).strip("-").lower()
        base = base or "r"
        name, n = base, 2
        while name in self.rules or name in _PRIMITIVE_RULES or name in _RESERVED or name == "ws":
            name, n = f"{base}-{n}", n + 1
        self.rules[name] = body
        self._by_body[body] = Ref(name)
        return Ref(name)

    def finished(self) -> dict[str, Term]:
        """The rules, every reserved one filled in by now."""
        assert all(body is not None for body in self.rules.values())
        return dict(self.rules)  # type: ignore[arg-type]

    # JSON values ----------------------------------------------------------------------
    def ws(self) -> Ref:
        return self.prim("ws")

    def string(self, low: int = 0, high: int | None = None) -> Ref:
        """A JSON string of ``low``..``high`` characters (``high`` defaults to the cap)."""
        high = self.max_string_chars if high is None else high
        low = min(low, high)
        body = sequence(Lit('"'), rep(self.prim("char"), low, high), Lit('"'))
        return self.rule("string" if (low, high) == (0, self.max_string_chars) else f"string-{low}-{high}", body)

    def any_value(self, python: bool = False) -> Ref:
        if python:
            alts = [self.string(), self.prim("number"), self.prim("py-boolean"), self.prim("py-null"),
                    self.any_array(), self.any_object()]
            return self.rule("py-value", alt(alts))
        if "value" not in self.rules:
            self.rules["value"] = None  # reserved: object and array refer back to it
            alts = [self.any_object(), self.any_array(), self.string(), self.prim("number"),
                    self.prim("boolean"), self.prim("null")]
            self.rules["value"] = alt(alts)
        return Ref("value")

    def _separated(self, item: Term) -> Term | None:
        """``item`` then up to ``max_items - 1`` more, comma separated."""
        ws = self.ws()
        return rep(sequence(ws, Lit(","), ws, item), 0, self.max_items - 1)

    def any_object(self) -> Ref:
        if "object" not in self.rules:
            self.rules["object"] = None
            ws, s, v = self.ws(), self.string(), self.any_value()
            member = sequence(s, ws, Lit(":"), ws, v)
            body = sequence(Lit("{"), ws, opt(group(sequence(member, self._separated(member)))), ws, Lit("}"))
            self.rules["object"] = body
        return Ref("object")

    def any_array(self) -> Ref:
        if "array" not in self.rules:
            self.rules["array"] = None
            ws, v = self.ws(), self.any_value()
            body = sequence(Lit("["), ws, opt(group(sequence(v, self._separated(v)))), ws, Lit("]"))
            self.rules["array"] = body
        return Ref("array")

    def value(self, schema: Any, hint: str, python: bool = False) -> Ref:
        """A rule for values matching ``schema``; ``python`` writes top-level
        booleans/null as Python literals (the ``call`` dialect's keyword values)."""
        if not isinstance(schema, Mapping):
            return self.any_value(python)
        key = (json.dumps(schema, sort_keys=True, default=str), python)
        if key not in self._by_schema:
            self._by_schema[key] = self._value(schema, hint, python)
        return self._by_schema[key]

    @staticmethod
    def literal_value(value: Any, python: bool) -> Lit:
        if python and (value is None or isinstance(value, bool)):
            return Lit({None: "None", True: "True", False: "False"}[value])
        return Lit(json.dumps(value, ensure_ascii=False))

    def _value(self, schema: Mapping[str, Any], hint: str, python: bool) -> Ref:
        if "const" in schema:
            return self.rule(hint, self.literal_value(schema["const"], python))
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.rule(hint, alt(dict.fromkeys(self.literal_value(v, python) for v in schema["enum"])))
        for combo in ("anyOf", "oneOf"):
            if isinstance(schema.get(combo), list) and schema[combo]:
                alts = [self.value(sub, f"{hint}-{i}", python) for i, sub in enumerate(schema[combo])]
                return self.rule(hint, alt(dict.fromkeys(alts)))
        kind = schema.get("type")
        if isinstance(kind, list):
            alts = [self.value({**schema, "type": k}, f"{hint}-{k}", python) for k in kind]
            return self.rule(hint, alt(dict.fromkeys(alts)))
        kind = kind_of(schema)
        if not kind and isinstance(schema.get("properties"), Mapping):
            kind = "object"
        if kind == "string":
            low, high = schema.get("minLength", 0), schema.get("maxLength")
            high = min(high, self.max_string_chars) if isinstance(high, int) and high >= 0 else None
            return self.string(low if isinstance(low, int) and low > 0 else 0, high)
        if kind in ("integer", "number"):
            return self.prim(kind)
        if kind in ("boolean", "null"):
            return self.prim(f"py-{kind}" if python else kind)
        if kind == "array":
            return self._array(schema, hint)
        if kind == "object":
            return self._object(schema, hint)
        return self.any_value(python)

    def _array(self, schema: Mapping[str, Any], hint: str) -> Ref:
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
            return self.rule(hint, sequence(Lit("["), ws, Lit("]")))
        more = rep(sequence(ws, Lit(","), ws, item), max(low - 1, 0), high - 1)
        inner = sequence(item, more)
        return self.rule(hint, sequence(Lit("["), ws, opt(group(inner)) if low == 0 else inner, ws, Lit("]")))

    def _object(self, schema: Mapping[str, Any], hint: str) -> Ref:
        props = schema.get("properties")
        ws = self.ws()
        if not isinstance(props, Mapping):
            return self.any_object()
        if not props:  # declared with no properties: a tool that takes no arguments
            return self.rule("empty-object", sequence(Lit("{"), ws, Lit("}")))

        def member(key: str) -> Term:
            value = self.value(props.get(key), f"{hint}-{key}")
            return sequence(Lit(json.dumps(key, ensure_ascii=False)), ws, Lit(":"), ws, value)

        body = self.fields(schema, hint, member, sequence(ws, Lit(","), ws))
        return self.rule(hint, sequence(Lit("{"), ws, body, ws, Lit("}")))

    def fields(self, schema: Mapping[str, Any], hint: str, member: Callable[[str], Term], sep: Term) -> Term | None:
        """Members in schema order, required first, optional ones each optional.

        Optional members chain through one rule each (``tail-i ::= (sep m_i)? tail-i+1``)
        so the grammar grows linearly with the number of keys.
        """
        props = schema.get("properties") or {}
        required_list = schema.get("required") if isinstance(schema.get("required"), list) else []
        required = [k for k in props if k in required_list]
        required += [k for k in required_list if k not in props and isinstance(k, str)]
        optional = [k for k in props if k not in required]
        tails: list[Term | None] = [None] * (len(optional) + 1)
        for i in range(len(optional) - 1, -1, -1):
            tails[i] = self.rule(f"{hint}-opt-{i + 1}", sequence(opt(sequence(sep, member(optional[i]))), tails[i + 1]))
        if required:
            members: list[Term] = []
            for k in required:
                members += [sep, member(k)] if members else [member(k)]
            return sequence(*members, tails[0])
        if not optional:
            return None
        starts = [sequence(member(k), tails[i + 1]) for i, k in enumerate(optional)]
        return opt(group(alt(starts)))

