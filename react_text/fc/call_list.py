"""After a turn's calls, the request's other calls asked for as the rest of a Python list (parallel calls).

Why: the ReAct steps of ``next_calls`` ask "another call?" after each call, and a small model taught one
action per turn either copies its first call or stops. BFCL's own prompt, which asks for a list of calls
from the start, gets more requests of several calls right with the same model. So the ``call_list``
check asks for the rest the way a coder model writes calls anyway: the functions as Python signatures,
the request, and the calls so far as the start of a list, one call a line; under a grammar the model
writes more lines, each a call of an offered tool, or closes the list. The turn's own calls stay first
and keep their order. Written in one go, a list runs on past the request, so each listed call is checked
(``ItemCheck``): a line written again ends the list, and so do a call that swaps a request value for one
from nowhere (``kept_values``) and one that passes no request value the calls before it did not
(``new_value``: the model lists every function offered, or varies a call made; unless the request names
that call's tool by a word no called tool's name or description has, with values all from the request); a call
with values from nowhere (``ungrounded``) is left out. The calls come back in the order the request names them.

Greedy, the model goes on with a list nearly always, even after the one call a request asks for. How much
weight it gives to closing the list tells more: on BFCL's tuning items the odds of ``]`` after the first call
ranked one-call requests above requests of several calls 94 times in 100 (``results/bfcl/list_end/``). So
with ``list_end`` on, and a backend that reports them (``TokenOdds``), the list ends before any line where
the model gives closing it more than ``LIST_END_ODDS`` of the weight it gives to going on or closing. Off by
default: it gained 3 tuning items and none lost, but on 155 items it was not set on, 1 gained and 1 lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Container, Literal, Mapping, Optional, Sequence

from ..checks import CheckName
from ..checks.grounding import ungrounded_values
from ..checks.reading import Calls
from ..checks.request_values import adds_nothing, all_from_request, in_request_order
from ..grammar.gbnf import LIST_INDENT
from ..lexicon.en import NAME_VERBS
from ..lexicon.messages import message
from ..prompting.retrieval import tool_terms
from ..prompting.tool_views import signatures
from ..protocol.dialects import DIALECTS
from ..protocol.parser import parse
from .request import ToolChoice
from .verdict import judge

__all__ = ["LIST_END_ODDS", "Calls", "Complete", "ItemCheck", "Kept", "Listing", "list_checks", "list_ending",
           "list_prompt", "rest_of_list"]

Complete = Callable[[str, Optional[str]], str]
"""The model: (prompt, grammar) -> the text it writes after the prompt."""
Kept = Callable[[Calls, tuple[str, dict]], bool]
"""``kept_values``: (the calls so far, a new call) -> whether it may stand."""
Odds = Callable[[str, Sequence[str]], tuple[float, ...]]
"""A backend's ``next_token_odds``: (text, options) -> the weight the model gives to going on with each."""

LIST_END_ODDS = 0.01
"""Set on BFCL's tuning items (``results/bfcl/list_end/``): from 0.008 to 0.015 it ended the same lists."""


Fate = Literal["drop", "end"]
"""What a listed call that a check refuses does: it is left out and the list read on (``drop``), or the list
ends before it (``end``)."""


@dataclass(frozen=True)
class ItemCheck:
    """One check on a listed call: its name, what a refusal does, and the test, (calls so far, the call) ->
    whether the check refuses it."""

    name: CheckName
    fate: Fate
    refuses: Callable[[Calls, tuple[str, dict]], bool]


@dataclass(frozen=True)
class Listing:
    """How the rest of the list is asked for: the prompt before its ``[``, the grammar of the rest (built for
    ``limit`` calls in all, less those written), and the checks each listed call passes, in order."""

    head: str
    grammar: Callable[[int], str]
    limit: int
    checks: tuple[ItemCheck, ...] = ()
    question: str = ""  # the calls come back in the order it names them (``in_request_order``); "": as written
    ending: Callable[[str], bool] | None = None  # ``list_end``: (the list so far) -> whether it ends there


def list_checks(question: str, grounds: Sequence[str], schemas: Mapping[str, Any], kept: Kept | None,
                checks: Container[str], words: Mapping[str, frozenset[str]]) -> tuple[ItemCheck, ...]:
    """The checks a listed call passes, in order, as switched on: ``kept_values`` (``kept``, from
    ``next_calls``), ``new_value`` (``request_values.adds_nothing``, ``_asked_anew``), ``unnamed_tool``
    (``_unnamed``; ``words``: each tool's terms, ``retrieval.tool_words``), ``added_options`` (``_adds_options``)
    and ``ungrounded``
    (``grounding.ungrounded_values`` over ``grounds``: the instructions, the request and the results).
    ``ungrounded`` last: asked first, it left out calls that ``new_value`` would end the list at and read
    on, +1 on the tuning items and -1 on the unseen ones (``results/bfcl/cut_thought/NOTES.md``)."""
    out = []
    if kept is not None:
        out.append(ItemCheck("kept_values", "end", lambda made, call: not kept(made, call)))
    if "new_value" in checks:
        out.append(ItemCheck("new_value", "end", lambda made, call: adds_nothing(
            call[1], [args for _, args in made], question) and not _asked_anew(call, [n for n, _ in made], question,
                                                                           words)))
    if "unnamed_tool" in checks:
        asked = set(tool_terms(question))
        out.append(ItemCheck("unnamed_tool", "drop", lambda made, call: _unnamed(call[0], made, words, asked)))
    if "added_options" in checks:
        out.append(ItemCheck("added_options", "drop", _adds_options))
    if "ungrounded" in checks:
        out.append(ItemCheck("ungrounded", "drop", lambda made, call: bool(
            ungrounded_values(call[1], schemas.get(call[0]), grounds))))
    return tuple(out)


_VERB_TERMS = frozenset(term for verb in NAME_VERBS for term in tool_terms(verb))


def _asked_anew(call: tuple[str, dict], called: Sequence[str], question: str,
                words: Mapping[str, frozenset[str]]) -> bool:
    """Whether the request asks for the call's tool by a word of its name that no called tool has, and
    gives every value it passes: "the sales growth of XYZ over 3 years, and the interest coverage ratio too"
    passes the same values to ``financial_ratios.interest_coverage`` after ``sales_growth.calculate``, and
    that call is no variation. A call with a value of the model's own ("Chess Club") is not asked for, nor a
    tool by a word that also names one of the arguments passed to it: "the displacement of a car at an initial
    speed of 20 m/s" names the ``initial_speed`` the call passes, not ``calculate_final_speed``, nor by a word
    a called tool's own terms hold (``words``: name, description, arguments): "board games … from store
    BoardGameGeek" names the store ``BoardGameGeek.recommend`` describes, not ``AmazonGameStore.recommend``. Of
    BFCL's right call lists, neither exception changes one that the rule lets through
    (``results/bfcl/new_value/``)."""
    name, args = call
    if name in called or not all_from_request(args, question):
        return False
    before = {term for other in (*called, *args) for term in tool_terms(other)} | _VERB_TERMS
    before |= {term for other in called for term in words.get(other, ())}
    return bool((set(tool_terms(name)) - before) & set(tool_terms(question)))


def _adds_options(made: Calls, call: tuple[str, dict]) -> bool:
    """``added_options``: whether ``call`` is a call made before with arguments it left out added, every value it
    passed the same: the model goes on to write the first call's options ("case_type='Lawsuit'" after a search
    for Google's lawsuits), which ``own_options`` asks for in the model's own format, not another call. Of BFCL's
    right call lists, 5 of 747 later non-live calls (2 of 54 live) are such a call."""
    name, args = call
    return any(other == name and len(args) > len(earlier) and all(key in args and args[key] == value
                                                                  for key, value in earlier.items())
               for other, earlier in made)


def _unnamed(name: str, made: Calls, words: Mapping[str, frozenset[str]], asked: set[str]) -> bool:
    """Whether ``name`` is a tool no call made so far called, none of whose terms (name, description, argument
    names, their descriptions and enums) the request (``asked``) writes, while it writes a term of every tool
    called: a model writing a list goes on to tools nobody asked about ("the earliest reference of Jesus Christ
    in history" followed by ``sports_ranking.get_current``), while "20 EUR in USD" names a converter by its enum.
    A request that names a called tool by no word of it, or writes words in a script the tool's terms have none
    of (a Chinese request to tools described in English: "要多少欧元" asks for ``item_price``), says nothing this
    way, and nothing is left out. Of BFCL's right call lists, 1 of the 296 calls of a tool not
    called before is left out so (``results/bfcl/unnamed_tool/``)."""
    tool = words.get(name, frozenset())
    if any(name == called for called, _ in made) or not all(words.get(called, frozenset()) & asked for called, _ in made):
        return False
    if any(not term.isascii() for term in asked) and all(term.isascii() for term in tool):
        return False  # a request in its own script may name the tool in words its Latin terms never show
    return not tool & asked


def list_ending(odds: Odds) -> Callable[[str], bool]:
    """``list_end``: whether the model, after the list so far, gives closing it more than ``LIST_END_ODDS`` of
    the weight of closing or writing another line."""

    def ends(text: str) -> bool:
        close, more = odds(text, ("]", LIST_INDENT))
        return close > LIST_END_ODDS * (close + more)

    return ends


def list_prompt(wrap: Callable[[str], str], lang: str, tools: Any, question: str) -> str:
    """The text before the list: the functions and the request in one user message, the reply opened."""
    return wrap(message(lang, "more_calls.list", functions=signatures(tools), question=question))


def _line(name: str, args: dict) -> str:
    call = DIALECTS["call"]
    return f"{LIST_INDENT}{call.write_action(name, args)[len(call.action_label):]},\n"


def rest_of_list(calls: Calls, complete: Complete, listing: Listing, *, tools: Mapping[str, Any],
                 choice: ToolChoice, example: str) -> tuple[Calls, tuple[str, ...]]:
    """``calls`` and those the model lists after them, with the checks that acted (once per act)."""
    room = listing.limit - len(calls)
    if room <= 0:
        return calls, ()
    opened = listing.head if listing.head.endswith("\n") else listing.head + "\n\n"  # a model without a chat template
    prompt = opened + "[\n" + "".join(_line(name, args) for name, args in calls)
    if listing.ending is not None and listing.ending(prompt):
        return calls, ("list_end",)
    text = complete(prompt, listing.grammar(room))
    schemas = {name: tool.parameters for name, tool in tools.items()}
    made, acted = list(calls), []
    start = 0
    for line in text.split("\n"):
        item = line.strip().removesuffix(",")
        if not item or item.startswith("]"):
            break
        if start and listing.ending is not None and listing.ending(prompt + text[:start]):
            acted.append("list_end")
            break
        start += len(line) + 1
        verdict = judge(parse(DIALECTS["call"].action_label + item, schemas, dialect="call"), tools, choice,
                        example)
        if len(verdict.calls) != 1 or verdict.calls[0] in made:
            break
        refused = next((c for c in listing.checks if c.refuses(tuple(made), verdict.calls[0])), None)
        if refused is not None:
            acted.append(refused.name)
            if refused.fate == "end":
                break
            continue
        made.append(verdict.calls[0])
        if len(made) >= listing.limit:
            break
    ordered = in_request_order(made, listing.question) if listing.question else made
    return tuple(ordered), tuple(acted)
