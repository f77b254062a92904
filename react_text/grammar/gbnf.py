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
  first, optional keys may be left out; no keys outside the schema (but see
  ``allow_unoffered``);
- a tool with exactly one candidate argument may also be called with a bare value
  (``paper``: ``search[text]``, ``call``: ``search("text")``), which the parser returns
  as a string; a tool without arguments is ``Tool[]`` / ``tool()`` (also ``{}``);
- free-text answers and strings are bounded (``max_answer_chars``,
  ``max_string_chars``) so a rambling model must come to an end.

The grammar is built as a term tree (``terms``): JSON-schema values in ``schema``, the
pieces every dialect shares in ``turns``, each dialect's framing in ``dialect_forms``.
It is rendered to text once; ``max_bytes`` and ``grammar_matches`` walk that tree
(``recognizer``) and read only hand-written GBNF from text (``reader``).

``grammar_matches(gbnf, text)`` recognizes the GBNF subset written here (literals,
character classes, rule references, groups, ``? * + {m} {m,} {m,n}``) with a
memoised recursive-descent matcher, so tests can check acceptance without
llama.cpp. ``check_gbnf`` reports undefined rules and syntax errors as
``GrammarError``: llama-cpp-python 0.3.36 does not validate grammars itself, and a
grammar llama.cpp fails to parse crashes the process when sampling starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .dialect_forms import FORMS
from .reader import read_gbnf
from .recognizer import longest, matches, remember, rules_of
from .schema import RuleSet
from .terms import GrammarError, Lit, Rep, Term, alt, group, opt, render_rules, sequence
from .tool_shapes import read_tools
from .turns import TurnParts

__all__ = [
    "build_grammar",
    "build_list_grammar",
    "check_gbnf",
    "grammar_matches",
    "max_bytes",
    "DEFAULT_MAX_THOUGHT_CHARS",
    "DEFAULT_MAX_ANSWER_CHARS",
    "DEFAULT_MAX_STRING_CHARS",
    "DEFAULT_MAX_ITEMS",
    "LIST_INDENT",
]

DEFAULT_MAX_THOUGHT_CHARS = 160
DEFAULT_MAX_ANSWER_CHARS = 300
DEFAULT_MAX_STRING_CHARS = 160
DEFAULT_MAX_ITEMS = 16
"""Bounds are in characters, not tokens: a degenerate thought ("1.3333...", or Chinese
text at two or three tokens a character) can outrun a turn's token cap, so the loop
gives a constrained turn ``max_bytes(grammar)`` tokens, enough to always finish."""
LIST_INDENT = "    "
"""How ``build_list_grammar`` opens each item of a list of calls."""


def build_grammar(
    dialect: str,
    tools: Sequence[Any] | Mapping[str, Mapping[str, Any]] | None,
    *,
    allow_final: bool = True,
    allow_thought_only: bool = False,
    allow_unoffered: bool = False,
    thought_begun: bool = False,
    calls: int = 1,
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
    instead of being steered into an offered one that does not fit; its name may be an
    offered one's, with arguments outside the schema (``results/bfcl/fresh-spread/``). ``thought_begun``
    lets the thought be empty: the prompt already ends inside it (words written for the
    model after a correction), so the action may follow at once. ``calls`` is how many
    calls one turn may hold, one after another (parallel tool calls); with more than one,
    the turn may end on one of the dialect's stops (``\\nObservation:``), which ends the
    generation where the model would go on by itself. Raises
    ``GrammarError`` for an unknown dialect, a tool name the protocol cannot carry
    (or one the parser reads as "final answer"), or nothing to admit.
    """
    form = FORMS.get(dialect)
    if form is None:
        raise GrammarError(f"unknown dialect {dialect!r}; known: {', '.join(FORMS)}")
    for label, value in (("max_thought_chars", max_thought_chars), ("max_answer_chars", max_answer_chars),
                         ("max_string_chars", max_string_chars), ("max_items", max_items), ("calls", calls)):
        if not isinstance(value, int) or value < 1:
            raise GrammarError(f"{label} must be an integer >= 1, got {value!r}")
    shapes = read_tools(tools)
    if not shapes and not allow_final:
        raise GrammarError("no tools and no final answer: the grammar would admit nothing")
    rules = RuleSet(max_string_chars=max_string_chars, max_items=max_items, multiline=form.multiline)
    parts = TurnParts(rules, max_thought=max_thought_chars, max_answer=max_answer_chars,
                      answer_banned=form.answer_banned)
    actions = [rules.rule(f"action-{shape.stem}", form.action(parts, shape)) for shape in shapes]
    if allow_unoffered:
        actions.append(rules.rule("action-other", form.unoffered(parts)))
    body: Term = group(form.frame(parts, actions, allow_final, calls))
    # The thought's rules are made last: rules are written in the order they were first needed.
    thought = parts.thought() if form.thought else None
    if thought is not None and thought_begun:
        thought = opt(thought)
    end = opt(group(alt([*(Lit(stop) for stop in form.ends), Lit("\n")]))) if calls > 1 else opt(Lit("\n"))
    root = sequence(thought, opt(body) if allow_thought_only else body, end)
    tree = {"root": root, **rules.finished()}
    gbnf = render_rules(tree)
    remember(gbnf, tree)
    return gbnf


def build_list_grammar(
    tools: Sequence[Any] | Mapping[str, Mapping[str, Any]] | None,
    *,
    calls: int,
    indent: str = LIST_INDENT,
    max_string_chars: int = DEFAULT_MAX_STRING_CHARS,
    max_items: int = DEFAULT_MAX_ITEMS,
) -> str:
    """GBNF for the rest of a Python list of calls: up to ``calls`` more items, each ``indent`` + a call of an
    offered tool (keywords in schema order, Python literals) + ``",\\n"``, then the closing ``]``.

    Why lines: a value never spans one (strings are escaped, containers stay on the line), so each item
    reads back on its own, and a list written one call a line is what a coder model writes anyway.
    """
    if not isinstance(calls, int) or calls < 0:
        raise GrammarError(f"calls must be an integer >= 0, got {calls!r}")
    shapes = read_tools(tools)
    rules = RuleSet(max_string_chars=max_string_chars, max_items=max_items, multiline=False)
    parts = TurnParts(rules, max_thought=1, max_answer=1, answer_banned="")
    form = FORMS["call"]
    actions = [rules.rule(f"action-{shape.stem}", form.action(parts, shape)) for shape in shapes]
    items = Rep(rules.rule("item", sequence(Lit(indent), group(alt(actions)), Lit(",\n"))), 0, calls) \
        if actions and calls else None
    tree = {"root": sequence(items, Lit("]")), **rules.finished()}
    gbnf = render_rules(tree)
    remember(gbnf, tree)
    return gbnf


def check_gbnf(gbnf: str) -> None:
    """Raise ``GrammarError`` (with line and column) unless ``gbnf`` is readable and complete."""
    read_gbnf(gbnf)


def grammar_matches(gbnf: str, text: str) -> bool:
    """Whether the GBNF grammar's ``root`` rule matches all of ``text``."""
    return matches(rules_of(gbnf), text)


def max_bytes(gbnf: str) -> int | None:
    """The most UTF-8 bytes any text the grammar admits can have; ``None`` if unbounded.

    Why: a token is at least one byte, so this bounds the tokens a constrained turn
    can take to finish. The loop lets a constrained turn run that long instead of
    cutting it at ``max_turn_tokens``: a turn cut short is the one way a grammar-made
    turn can still fail to parse. Recursion (e.g. an untyped JSON ``value``) and
    unbounded repetition make the grammar unbounded. A grammar ``build_grammar`` made
    is measured on its term tree, without reading the text back.
    """
    return longest(rules_of(gbnf))
