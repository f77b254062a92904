"""The pieces of a turn every dialect shares: the thought line, a free-text answer, and
the ways a tool's arguments can be written (a JSON object, a bare value, keywords).

Why here and not per dialect: the dialects differ only in how they frame these pieces
(see ``dialect_forms``); what a thought or an argument may contain is one policy.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any

from .schema import RuleSet, kind_of
from .terms import GrammarError, Lit, Ref, Rep, Term, alt, chars, group, opt, rep, sequence
from .tool_shapes import ToolShape

__all__ = ["TurnParts", "PLACEHOLDER_STARTS"]

PLACEHOLDER_STARTS = ".…<*_[\"'"
"""Characters an answer or bare value may not start with: they open a template
placeholder the parser refuses as content (``...``, ``…``, ``<tool>``, ``[a, b]``, also
behind ``*``, ``_`` or quotes; after a full-width colon the parser reads ``*``/``_`` as markdown)."""

_BRACKETS = "{}`[]"
_BARE_BAD = "\n\r[]{}`"


def trimmed_line(banned: str, high: int) -> Term:
    """1..``high`` characters on one line, none of ``banned``, no space at either end,
    not starting with a placeholder opener."""
    first = chars(" \t\n\r" + banned + PLACEHOLDER_STARTS, negated=True)
    if high <= 1:
        return first
    edge = chars(" \t\n\r" + banned, negated=True)
    middle = chars("\n\r" + banned, negated=True)
    return sequence(first, opt(group(sequence(rep(middle, 0, high - 2), edge))))


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


def _single_schema(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The schema of the one key a bare or positional value stands for, if it has one."""
    found = _single_candidate(schema)
    return found[1] if found is not None and isinstance(found[1], Mapping) else None


def _fixed_values(schema: Mapping[str, Any]) -> Any:
    """What ``enum`` (or a ``const``, as a one-item list) allows; None when neither is given."""
    if "enum" in schema:
        return schema["enum"]
    return [schema["const"]] if "const" in schema else None


def _bare_safe(text: str) -> bool:
    """Whether ``text`` can stand bare inside ``Tool[...]`` and read back unchanged."""
    return (
        bool(text)
        and text == text.strip()
        and not any(c in _BARE_BAD for c in text)
        and text[0] not in "\"'.…<*_["
        and text.isprintable()
    )


class TurnParts:
    """Builds the shared pieces of one grammar into its ``RuleSet``."""

    def __init__(self, rules: RuleSet, *, max_thought: int, max_answer: int, answer_banned: str) -> None:
        self.rules = rules
        self.max_thought = max_thought
        self.max_answer = max_answer
        self.answer_banned = answer_banned

    def thought(self) -> Ref:
        """One line without ``{ } [ ] ``` ``, so prose can never be read as a second action."""
        first = chars(" \t\n\r" + _BRACKETS, negated=True)
        rest = chars("\n\r" + _BRACKETS, negated=True)
        high = self.max_thought
        text = self.rules.rule("thought-text", sequence(first, Rep(rest, 0, high - 1)) if high > 1 else first)
        return self.rules.rule("thought", sequence(opt(Lit(" ")), text))

    def answer(self) -> Ref:
        """Free text on one line, without spaces at either end (the parser strips them)."""
        return self.rules.rule("answer", trimmed_line(self.answer_banned, self.max_answer))

    def args(self, spec: ToolShape) -> Ref:
        """The tool's arguments as a JSON object."""
        schema = dict(spec.parameters)
        schema.setdefault("type", "object")
        if kind_of(schema) != "object":
            raise GrammarError(f"tool {spec.name!r}: parameters must be a JSON schema of type object")
        return self.rules.value(schema, f"{spec.stem}-args")

    def bare(self, spec: ToolShape) -> Ref | None:
        """Bare value rule for ``Tool[value]``, when one key can take it."""
        schema = _single_schema(spec.parameters)
        if schema is None:
            return None
        values = _fixed_values(schema)
        if values is not None:
            if not isinstance(values, list):
                return None
            texts = [str(v) for v in values if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
            texts = [t for t in dict.fromkeys(texts) if _bare_safe(t)]
            if not texts:
                return None
            return self.rules.rule(f"{spec.stem}-bare", alt(Lit(t) for t in texts))
        kind = kind_of(schema)
        if kind in ("integer", "number"):
            return self.rules.prim(kind)
        if kind != "string":
            return None
        cap = self.rules.max_string_chars
        high = schema.get("maxLength")
        high = min(high, cap) if isinstance(high, int) and high > 0 else cap
        return self.rules.rule("bare-text" if high == cap else f"bare-text-{high}", trimmed_line(_BRACKETS, high))

    def positional(self, spec: ToolShape) -> Ref | None:
        """Positional string argument for ``tool("text")`` (string-typed single key only)."""
        schema = _single_schema(spec.parameters)
        if schema is None:
            return None
        values = _fixed_values(schema)
        if values is not None:
            if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
                return self.rules.value(schema, f"{spec.stem}-positional")
            return None
        return self.rules.value(schema, f"{spec.stem}-positional") if kind_of(schema) == "string" else None

    def kwargs(self, spec: ToolShape) -> Term | None:
        """``key=value, ...`` with Python literals, keys in schema order."""
        schema = spec.parameters
        props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        for key in [*props, *required]:
            if not (isinstance(key, str) and key.isidentifier() and not keyword.iskeyword(key)):
                raise GrammarError(
                    f"tool {spec.name!r}: argument {key!r} cannot be written as key=value in the "
                    "call dialect; use the classic or json dialect for this tool")
        hint = f"{spec.stem}-kwargs"

        def member(key: str) -> Term:
            return sequence(Lit(key + "="), self.rules.value(props.get(key), f"{hint}-{key}", python=True))

        return self.rules.fields({"properties": props, "required": required}, hint, member, Lit(", "))

    def other_name(self) -> Ref:
        """The name of a tool that is not offered: an identifier."""
        letters = (("A", "Z"), ("a", "z"))
        return self.rules.rule("other-name", sequence(chars(*letters, "_"), Rep(chars(*letters, ("0", "9"), "_"), 0, 31)))
