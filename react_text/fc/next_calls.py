"""After a turn's calls, the request's next calls or its end (parallel calls): as the rest of a list
(``call_list``, on by default: ``fc.call_list``) or one step at a time, as below.

Why: under the grammar a turn may hold up to ``PARALLEL_CALLS`` calls, but a small model taught one
action per ReAct turn stops after its first call all the same ("the weather in Oslo and Paris" gets
Oslo alone). Shown that call noted, and asked whether the request wants another, it writes the next
one or ends under its final-answer label. Each step is the model's own decision, so a request that
asks for one thing stays one call; a turn that declines (no call) never gets here. Calls keep the
order they were written in; a call written again, an unusable step or an answer ends the turn.

Two checks read the request's values (``checks.request_values``). ``other_values``: a step that writes a
call again is asked once more, the call's arguments held to the request's values no call used yet (the
model copies its first call; the repeat ends the turn only when nothing in the request is left).
``kept_values``: a step call that swaps a value the calls before it took from the request for one from
nowhere ends the turn (the model has gone past the request: ``Lisbon`` after "Seattle and Los Angeles").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

from ..backends.base import Backend
from ..backends.build import token_odds
from ..checks import CheckName
from ..checks.hold import held_schema
from ..checks.request_values import held_values, invented
from ..grammar.gbnf import build_list_grammar
from ..grammar.tool_shapes import ToolShape
from ..lexicon.messages import message
from ..prompting.opening import parse_turn
from ..prompting.retrieval import tool_words
from .call_list import Calls, Complete, Kept, Listing, list_checks, list_ending, list_prompt, rest_of_list
from .request import ToolChoice
from .verdict import judge, next_call_grammar

__all__ = ["Asking", "MoreCalls", "asking", "next_calls", "value_checks"]

Held = Callable[[Calls, str], Optional[str]]
"""(the calls so far, the tool a step wrote again) -> the grammar of that step asked again, or None."""


@dataclass(frozen=True)
class Asking:
    """How the next calls are asked for: the note each step's observation holds, and the grammar of a
    step (one call of an offered tool, or the end)."""

    note: str
    grammar: str | None
    limit: int  # the most calls the turn may hold in all
    held: Held | None = None  # ``other_values``; None: a call written again ends the turn
    kept: Kept | None = None  # ``kept_values``; None: every new call stands
    listing: Listing | None = None  # ``call_list``: the rest asked for as a list, not in steps


def value_checks(question: str, template: Any, tools: Mapping[str, Any], choice: ToolChoice, backend: Any,
                 checks: Any) -> tuple[Held | None, Kept | None]:
    """The ``other_values`` and ``kept_values`` checks for ``question``'s request, as switched on."""

    def held(calls: Calls, tool: str) -> str | None:
        values = held_values(calls, tool, tools[tool].parameters, question)
        if values is None:
            return None
        shapes = [ToolShape(t.name, held_schema(t.parameters, tuple(values.items())) if t.name == tool
                            else t.parameters) for t in tools.values()]
        return next_call_grammar(template, shapes, choice, backend)

    def kept(calls: Calls, call: tuple[str, dict]) -> bool:
        return not invented(call[1], [args for name, args in calls if name == call[0]], question)

    return (held if "other_values" in checks else None), (kept if "kept_values" in checks else None)


def asking(template: Any, offered: Sequence[Any], choice: ToolChoice, backend: Backend, grammar: str | None,
            checks: frozenset[CheckName], calls: int, lang: str, question: str,
            grounds: Sequence[str]) -> Asking | None:
    """How the ``more_calls`` check asks, after a constrained turn's calls, for the request's next ones when the
    turn may hold several: as the rest of a list (``call_list``) or one step at a time (with ``other_values``
    and ``kept_values`` as switched on); None when not asked: without a grammar the model's step could wander."""
    if "more_calls" not in checks or calls <= 1 or grammar is None or choice.mode == "none":
        return None
    step = next_call_grammar(template, offered, choice, backend)
    if step is None:
        return None
    held, kept = value_checks(question, template, {t.name: t for t in offered}, choice, backend, checks)
    listing = None
    if "call_list" in checks:
        listed = [t for t in offered if choice.mode != "named" or t.name == choice.name]
        odds = token_odds(backend) if "list_end" in checks else None
        listing = Listing(head=list_prompt(backend.wrap_prompt, lang, listed, question),
                          grammar=lambda room: build_list_grammar(listed, calls=room), limit=calls,
                          checks=list_checks(question, grounds, {t.name: t.parameters for t in offered}, kept, checks,
                                             {t.name: tool_words(t) for t in offered}),
                          question=question, ending=None if odds is None else list_ending(odds))
    return Asking(note=message(lang, "more_calls"), grammar=step, limit=calls, held=held, kept=kept,
                  listing=listing)


@dataclass(frozen=True)
class MoreCalls:
    """The turn's calls with those the steps added, and the checks that acted on the steps, once per act."""

    calls: Calls
    acted: tuple[str, ...] = ()


def next_calls(calls: Calls, prompt: str, n: int, complete: Complete, asking: Asking, *,
               template: Any, tools: Mapping[str, Any], choice: ToolChoice, example: str,
               lang: str | None) -> MoreCalls:
    """``calls`` (written in turn ``n``, whose text ends ``prompt``) and the calls the next steps add.

    Each step appends the note as turn ``n``'s observation and lets the model write turn ``n + 1``: a
    call no earlier step made is kept and asked after in turn; anything else ends the turn.
    """
    if asking.listing is not None:
        return MoreCalls(*rest_of_list(calls, complete, asking.listing, tools=tools, choice=choice, example=example))
    made, acted = list(calls), []
    schemas = {name: tool.parameters for name, tool in tools.items()}

    def ask(text: str, grammar: str | None) -> tuple[Any, list[tuple[str, dict]]]:
        step = parse_turn(template, complete(text, grammar), n, schemas, prose="final", lang=lang)
        verdict = judge(step, tools, choice, example)
        return step, list(verdict.calls)

    while len(made) < asking.limit:
        prompt += template.observation(asking.note, n)
        n += 1
        step, written = ask(prompt, asking.grammar)
        again = asking.held(tuple(made), written[0][0]) if asking.held and written and written[0] in made else None
        if again is not None:
            acted.append("other_values")
            step, written = ask(prompt, again)
        fresh = [call for call in written if call not in made]
        if asking.kept is not None:
            stands = next((i for i, call in enumerate(fresh) if not asking.kept(tuple(made), call)), len(fresh))
            acted += ["kept_values"] * (stands < len(fresh))
            fresh = fresh[:stands]
        made += fresh[:asking.limit - len(made)]
        if not fresh or len(fresh) < len(written):
            break
        prefix = template.turn_prefix(n)
        prompt += step.text[len(prefix): max(step.end, len(prefix))]
    return MoreCalls(tuple(made), tuple(acted))
