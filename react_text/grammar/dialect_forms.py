"""How each dialect frames a turn under the grammar: its action, final answer, an unoffered
tool's call, and the line that introduces them. One form per dialect, found by name.

Why shapes: the shared pieces (``turns.TurnParts``) are the same for every dialect; only
these fragments differ, and most dialects differ from another only in their labels. Each
dialect object (``react_text/protocol/dialects/``) names its ``shape`` and labels, and its
form here is built from them: a new dialect of a known shape needs nothing in this package,
a new shape is one form class and one entry in ``SHAPES``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Callable

from ..protocol.dialects import DIALECTS
from ..protocol.dialects.base import Dialect

from .terms import Lit, Ref, Rep, Term, alt, chars, group, opt, rep, sequence
from .tool_shapes import ToolShape
from .turns import PLACEHOLDER_STARTS, TurnParts

__all__ = ["DialectForm", "FORMS"]

_FINAL_TOOL = "Final Answer"


@dataclass(frozen=True)
class DialectForm:
    """Base form: object-style actions are the default (classic, zh, json)."""

    name: str
    multiline: bool = True
    """JSON arguments may span lines (the paper dialect writes its call on one line)."""
    answer_banned: str = "{}`"
    """Characters a free-text answer may not contain."""
    thought: bool = True
    """The turn opens with a thought line (every text dialect); a chat template's own format has none."""
    ends: tuple[str, ...] = ()
    """The dialect's stops that open a line (``\\nObservation:``): a turn of several calls may end with
    one, so a model that goes on to write its observation is stopped there, not steered into one more call."""

    def action(self, parts: TurnParts, spec: ToolShape) -> Term:
        """The body of ``action-<tool>``: this tool called in the dialect's syntax."""
        args = parts.args(spec)
        return self.object_action(parts, Lit(spec.name), Lit(json.dumps(spec.name, ensure_ascii=False)), args)

    def object_action(self, parts: TurnParts, name: Term, quoted_name: Term, args: Term) -> Term:
        raise NotImplementedError

    def unoffered(self, parts: TurnParts) -> Term:
        """The body of ``action-other``: a tool that is not offered, with free-form arguments."""
        name = parts.other_name()
        quoted = sequence(Lit('"'), name, Lit('"'))
        return self.object_action(parts, name, quoted, parts.rules.value({"type": "object"}, "other-args"))

    def final(self, parts: TurnParts) -> Ref:
        raise NotImplementedError

    def frame(self, parts: TurnParts, actions: list[Ref], allow_final: bool, calls: int = 1) -> Term:
        """What follows the thought line: 1..``calls`` of ``actions`` or (``allow_final``) the final answer."""
        raise NotImplementedError


@dataclass(frozen=True)
class LabelledForm(DialectForm):
    """``\\nAction: <action>`` or ``\\nFinal Answer: <text>``, each on its own labelled line."""

    action_label: str = ""
    input_label: str = ""
    final_label: str = ""

    def object_action(self, parts: TurnParts, name: Term, quoted_name: Term, args: Term) -> Term:
        return sequence(name, Lit(self.input_label), args)

    def final(self, parts: TurnParts) -> Ref:
        return parts.rules.rule("final", sequence(Lit(self.final_label), parts.answer()))

    def frame(self, parts: TurnParts, actions: list[Ref], allow_final: bool, calls: int = 1) -> Term:
        alts = [several(parts, sequence(Lit(self.action_label), group(alt(actions))), calls)] if actions else []
        if allow_final:
            alts.append(sequence(Lit("\n"), self.final(parts)))
        return alt(alts)


@dataclass(frozen=True)
class CallForm(LabelledForm):
    """``tool(key=value, ...)`` or ``tool("text")``, Python-style."""

    def action(self, parts: TurnParts, spec: ToolShape) -> Term:
        keywords, positional = parts.kwargs(spec), parts.positional(spec)
        inner: Term | None = None
        if keywords and positional:
            inner = group(alt([keywords, positional]))
        elif keywords:
            inner = keywords
        elif positional:
            inner = opt(positional)
        return sequence(Lit(spec.name + "("), inner, Lit(")"))

    def unoffered(self, parts: TurnParts) -> Term:
        args = Rep(chars("()\n", negated=True), 0, parts.rules.max_string_chars)
        return sequence(parts.other_name(), Lit("("), args, Lit(")"))


@dataclass(frozen=True)
class JsonForm(DialectForm):
    """A fenced JSON blob ``{"action": ..., "action_input": ...}``; the answer is the action "Final Answer"."""

    def object_action(self, parts: TurnParts, name: Term, quoted_name: Term, args: Term) -> Term:
        ws = parts.rules.ws()
        return sequence(quoted_name, ws, Lit(","), ws, Lit('"action_input"'), ws, Lit(":"), ws, args)

    def final(self, parts: TurnParts) -> Ref:
        rules = parts.rules
        rules.ws()  # registered before "char": the rules keep the order they were first needed in
        char = rules.prim("char")
        first = chars('"\\\x7f', ("\x00", " "), "{}" + PLACEHOLDER_STARTS, negated=True)
        text = rules.rule("answer-string", sequence(Lit('"'), first, rep(char, 0, parts.max_answer - 1), Lit('"')))
        quoted = Lit(json.dumps(_FINAL_TOOL))
        return rules.rule("final", self.object_action(parts, quoted, quoted, text))

    def frame(self, parts: TurnParts, actions: list[Ref], allow_final: bool, calls: int = 1) -> Term:
        ws = parts.rules.ws()

        def block(choice: Term) -> Term:
            return sequence(Lit("\nAction:\n```json\n{"), ws, Lit('"action"'), ws, Lit(":"), ws, group(choice), ws,
                            Lit("}\n```"))

        return wrapped(parts, block, actions, self.final(parts) if allow_final else None, calls)


@dataclass(frozen=True)
class PaperForm(DialectForm):
    """``Action N: Tool[argument]`` or ``Finish[answer]``, all on one line."""

    multiline: bool = False
    answer_banned: str = "{}`[]"

    def action(self, parts: TurnParts, spec: ToolShape) -> Term:
        alts: list[Term] = [parts.args(spec)]
        bare = parts.bare(spec)
        if bare:
            alts.append(bare)
        inner = alt(alts)
        if spec.parameters.get("properties") == {}:
            inner = opt(inner)  # a tool without arguments is called as ``Tool[]``
        return sequence(Lit(spec.name + "["), inner, Lit("]"))

    def unoffered(self, parts: TurnParts) -> Term:
        args = Rep(chars("[]\n", negated=True), 0, parts.rules.max_string_chars)
        return sequence(parts.other_name(), Lit("["), args, Lit("]"))

    def final(self, parts: TurnParts) -> Ref:
        return parts.rules.rule("final", sequence(Lit("Finish["), parts.answer(), Lit("]")))

    def frame(self, parts: TurnParts, actions: list[Ref], allow_final: bool, calls: int = 1) -> Term:
        def line(choice: Term) -> Term:
            return sequence(Lit("\nAction "), Rep(chars(("0", "9")), 1, 3), Lit(": "), group(choice))

        return wrapped(parts, line, actions, self.final(parts) if allow_final else None, calls)


@dataclass(frozen=True)
class NativeForm(DialectForm):
    """The chat template's own ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``, the same call in a
    ```` ```json ```` fence, or the answer as plain text; no thought line. The fence because the tolerant
    reader takes it as the call, and a model that fences its calls (the coder 0.5B, unconstrained) otherwise
    finds only the one-line answer open after its "```json" and ends the turn there, the call lost.
    One call: on Qwen2.5-coder-0.5B a grammar that let a second call follow made the model write call after
    call (its own ``<|im_end|>`` after the first is what it is trained on, but a refused fence-closing token
    sent it on); parallel calls are read from unconstrained turns."""

    thought: bool = False

    def object_action(self, parts: TurnParts, name: Term, quoted_name: Term, args: Term) -> Term:
        ws = parts.rules.ws()
        return sequence(quoted_name, ws, Lit(","), ws, Lit('"arguments"'), ws, Lit(":"), ws, args)

    def final(self, parts: TurnParts) -> Ref:
        return parts.rules.rule("final", parts.answer())

    def frame(self, parts: TurnParts, actions: list[Ref], allow_final: bool, calls: int = 1) -> Term:
        alts: list[Term] = []
        if actions:
            ws = parts.rules.ws()
            body = parts.rules.rule("native-call", sequence(ws, Lit('"name"'), ws, Lit(":"), ws, group(alt(actions)), ws))
            alts.append(sequence(Lit('<tool_call>\n{'), body, Lit("}\n</tool_call>")))
            alts.append(sequence(Lit('```json\n{'), body, Lit("}\n```")))
        if allow_final:
            alts.append(self.final(parts))
        return alt(alts)


def several(parts: TurnParts, call: Term, calls: int) -> Term:
    """``call`` once, then up to ``calls - 1`` more, each starting on its own line (the call's own text
    opens with its newline); one rule, so the grammar does not grow with ``calls``."""
    if calls <= 1:
        return call
    one = parts.rules.rule("call", call)
    return sequence(one, rep(one, 0, calls - 1))


def wrapped(parts: TurnParts, wrap: Callable[[Term], Term], actions: list[Ref], final: Term | None,
            calls: int) -> Term:
    """Each call in its own ``wrap`` (a fenced blob, a numbered line): 1..``calls`` of them one after
    another, or the final answer in one ``wrap`` of its own."""
    if calls <= 1:
        return wrap(alt([*actions, *([final] if final is not None else [])]))
    alts = [several(parts, wrap(alt(actions)), calls)] if actions else []
    if final is not None:
        alts.append(wrap(final))
    return alt(alts)


SHAPES: dict[str, Callable[[Dialect], DialectForm]] = {
    "labelled": lambda d: LabelledForm(d.name, action_label="\n" + d.action_label,
                                       input_label="\n" + d.input_label, final_label=d.final_label),
    "call": lambda d: CallForm(d.name, action_label="\n" + d.action_label, final_label=d.final_label),
    "json": lambda d: JsonForm(d.name),
    "paper": lambda d: PaperForm(d.name),
    "native": lambda d: NativeForm(d.name),
}
"""How each dialect shape frames a turn, from the dialect's own labels."""

FORMS: dict[str, DialectForm] = {
    name: replace(SHAPES[d.shape](d), ends=tuple(stop for stop in d.stop if stop.startswith("\n")))
    for name, d in DIALECTS.items() if d.shape in SHAPES
}
"""The grammar's form of each dialect, by the dialect's name."""
