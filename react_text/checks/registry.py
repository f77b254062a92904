"""Every check and lead the engine applies, by name, in the order they are tried: the one place that says so.

Why one registry: the corrections were switched by four flags spread over ``Limits`` and ``Agent``,
the rest not at all, and their order was written in several modules; nobody could measure what one
check is worth. Here each has a name (a ``Literal``, never parsed out of a string), the stage it
acts at and a line saying what it does, and ``parse_checks`` turns ``default``, ``all``, ``none``,
``-facts``, ``+rounding`` or ``rounding,facts`` into the set a run uses.

Which are on by default is measured, not assumed (``results/checks/``, docs/checks.md): a check is off
by default when switching it off lost no task on the shipped suites' test split nor on a held-out set
written apart from the engine (Qwen2.5-Coder-0.5B, ``compare --ablate``). The four that also act in
the function-calling shim (tool_choice, ungrounded, no_fit, no_observation) stay on until the shim's own
ablation says otherwise. ``more_calls`` acts in the shim alone and is on: on BFCL's non-live items it gained
4 of 100 and lost none (``results/bfcl/parallel/``; on the held-out live ones it lost 1 of 40). On its
steps, ``kept_values`` is on (BFCL: 4 of 20 tuning items and 1 of the first 10 gained, none lost) and
``other_values`` off (2 tuning items gained, but on the reported items it gained none and cost a call
too many where the request names a thing no argument takes: "on Mars if my weight on Earth is 70 kg";
``results/bfcl/parallel2/``). ``call_list`` asks for those calls as the rest of a Python list instead of in
steps, with ``new_value`` ending the list at a call that brings no request value the calls before did not:
on BFCL's tuning items 45/80 -> 53/80, 11 gained and 3 lost (``results/bfcl/call_list/``). ``stated_option``
(the shim) is on: on every BFCL item of the non-live categories where it could act (82), 6 gained and none
lost against it off (``results/bfcl/stated_option/``); ``stated_flag`` (the shim) is on: on every such item where
it acted (22 of 71 it could act on), 14 gained and none lost (``results/bfcl/stated_flag/``); ``stated_list`` (the
shim) is on: where it could act (32), it acted on 3, 2 gained and none lost, and BFCL's answers show no item where
it could cost (``results/bfcl/stated_list/``). ``own_options`` (the shim) is on: on BFCL items it was not
built on, 4 gained and none lost (``results/bfcl/own_options/``). ``list_end`` (the shim, backends that report
next-token odds) is off: on the tuning items it gained 3 and lost none, but on 155 reported and fresh items it
gained 1 and lost 1 (``results/bfcl/list_end/``). ``ungrounded_hold`` is on: on 80 fresh BFCL items it
acted on 2, 1 gained and none lost; first 10, live and the loop's test split (where it never acts) unchanged
(``results/bfcl/ungrounded_hold/``). ``own_items`` (the shim) is on: it changes none of BFCL's right call lists
and, on the recorded replies, acted on 2 and gained 2 (``results/bfcl/own_items/``). ``several_named`` (the shim)
is on: on the 64 recorded BFCL items where it can act it fired on 28, 5 gained and none lost; it cannot act on an
irrelevance item; live 18/40 -> 19/40 (``results/bfcl/several_named/``). ``unnamed_tool`` (the shim) is on: of
BFCL's 296 right non-live calls of a tool not called before, it would leave out 1, and on the 4 recorded replies where
it acts, 3 gained and none lost (``results/bfcl/unnamed_tool/``). ``own_format`` (the shim) is on: on the 19
recorded items that ended with no usable reply, 3 gained and none lost, every decline kept
(``results/bfcl/own_format/``). ``added_options`` (the shim) is on: of BFCL's 747 right later non-live calls it
would leave out 5, and on the 16 recorded items it could act on, 3 gained and none lost
(``results/bfcl/added_options/``). ``described_option`` (the shim) is on: of BFCL's 4,817 non-live arguments of right
calls it would take out 1 (of 4,987 live none), and on the 536 recorded items it acts on 24: 2 gained, none lost
(``results/bfcl/described_option/``). ``zeros`` (the shim) is on: it changes no number of BFCL's right calls (1,941
non-live, 614 live), and on the recorded items it acts on 3: 2 gained, none lost (``results/bfcl/zeros/``).
``years`` (the shim) is on: it changes no string of BFCL's right calls (2,311 non-live, 3,166 live), and on the
recorded items it acts on 2: 1 gained, none lost (``results/bfcl/years/``). ``bare_name`` (the shim) is on: of the
107 recorded answers in words, 5 are only a tool's name; run again, 1 gained, none lost, both declines among them
kept (``results/bfcl/bare_name/``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, Union, get_args

__all__ = ["ALL_CHECKS", "CHECKS", "DEFAULT_CHECKS", "NO_CHECKS", "OFF_BY_DEFAULT", "Check", "CheckName", "CheckSpec", "Stage", "describe", "in_order",
           "parse_checks"]

CheckName = Literal[
    "continuation", "arithmetic", "tool_choice", "held_call", "ungrounded", "ungrounded_hold", "no_fit",
    "tool_error", "question_back", "expression", "example_value", "other_year", "measure", "not_a_number",
    "no_observation", "in_question", "unused_number", "off_quote", "echo", "rounding",
    "after_failure", "copied_example", "second_look", "facts", "evidence", "more_calls", "other_values",
    "kept_values", "call_list", "new_value", "cut_thought", "stated_option", "stated_flag", "stated_list",
    "demo_copy", "swapped", "percent", "list_end", "own_options", "crossed", "list_rest", "unit_groups",
    "own_items", "several_named", "own_format", "unnamed_tool", "added_options", "described_option", "zeros",
    "bare_name", "years",
]
Stage = Literal["turn", "call", "answer", "result"]
"""Where a check acts: on a turn with neither action nor answer, on a call before it runs, on a final
answer before it is accepted, or on a tool result (a lead that opens the next thought)."""


@dataclass(frozen=True)
class Check:
    """One intervention: its name, the stages it acts at and what it does."""

    name: CheckName
    stages: tuple[Stage, ...]
    about: str


CHECKS: tuple[Check, ...] = (
    Check("continuation", ("turn",), "a turn that stops after a bare thought is asked once to go on after a line break"),
    Check("arithmetic", ("call", "answer"), "a sum worked out wrong in words gets the calculator's result"),
    Check("tool_choice", ("call",), "a first call passing over the tool the question's words clearly name"),
    Check("held_call", ("call",), "after a correction that names the tool to call, the next turn is held by a "
                                  "grammar to a call of it (backends that take grammars)"),
    Check("ungrounded", ("call",), "a call whose values appear in neither the question nor any result"),
    Check("ungrounded_hold", ("call",), "after ungrounded corrects a call while another call of the same tool in the "
                                        "turn passes only grounded values, the next turn is held to calls of that "
                                        "tool, their required numbers to those the request writes (with held_call)"),
    Check("no_fit", ("turn", "call"), "a call when no offered tool fits the question, or one reaching for an "
                                      "unoffered tool"),
    Check("tool_error", ("answer",), "an answer that repeats a tool's error or an empty search"),
    Check("question_back", ("answer",), "an answer that is itself a question"),
    Check("expression", ("answer",), "an answer that is an expression, not its value"),
    Check("example_value", ("answer",), "an answer holding a value from the few-shot examples"),
    Check("other_year", ("answer",), "an answer taken from a result about another year than the one asked"),
    Check("measure", ("answer",), "a count asked for, a measurement of another kind given"),
    Check("not_a_number", ("answer",), "a number asked for, an answer with none"),
    Check("no_observation", ("answer",), "an answer before any tool ran, when tools are offered"),
    Check("in_question", ("answer",), "a refusal when the question itself holds the numbers or the quote"),
    Check("unused_number", ("answer",), "an answer that is a result as it came, while a number the question gives "
                                        "went into no call, no result and not the answer"),
    Check("off_quote", ("answer",), "an answer from a search when the question quotes the text to answer from"),
    Check("echo", ("answer",), "an answer that only repeats a name the question gives"),
    Check("rounding", ("answer",), "an answer with more decimals than the question asks, given back rounded"),
    Check("after_failure", ("answer",), "a refusal right after a tool failed while other tools were never tried"),
    Check("copied_example", ("answer",), "the examples' value again after the correction: the run stops"),
    Check("second_look", ("answer",), "before a refusal stands, one search with the question's own words"),
    Check("facts", ("result",), "the facts a combining question computes with open the next thought"),
    Check("evidence", ("result",), "the result sentence that answers the question opens the next thought"),
    Check("more_calls", ("call",), "after a constrained turn's calls, the function-calling shim asks for the "
                                   "request's next call or its end, one step at a time (parallel tool calls)"),
    Check("other_values", ("call",), "a more_calls step that writes a call again is asked once more, its "
                                     "arguments held to the request's values no call used yet"),
    Check("kept_values", ("call",), "a more_calls step call that swaps a value taken from the request for one "
                                    "from nowhere ends the turn"),
    Check("call_list", ("call",), "more_calls asks for the request's other calls as the rest of a Python list "
                                  "(one call a line, under a grammar) instead of one ReAct step at a time"),
    Check("new_value", ("call",), "a listed call (call_list) that passes no value from the request that no call "
                                  "before it passed ends the list, unless the request names its tool by a word "
                                  "no called tool's name or description has, with values all from the request"),
    Check("unnamed_tool", ("call",), "a listed call (call_list) of a tool no call before it called, none of whose "
                                     "words (name, description, arguments, enums) the request writes, is left out"),
    Check("added_options", ("call",), "a listed call (call_list) that is a call before it with arguments it left "
                                      "out added, every value the same, is left out: own_options asks for those "
                                      "options (the shim)"),
    Check("list_end", ("call",), "call_list ends the list before a line where the model gives closing it more than "
                                 "1% of the weight (backends that report next-token odds: llama.cpp in process)"),
    Check("cut_thought", ("turn",), "a thought the grammar's length bound cut off goes on, under the grammar, "
                                    "to the call or the answer the model picks, not to an answer asked for (the shim)"),
    Check("several_named", ("answer",), "a first answer with no call where the question names two tools or more "
                                        "alike (\"the GCD of 96 and 128, and the LCM of 15 and 25\") is asked to "
                                        "call the first of them (the shim, under tool_choice auto)"),
    Check("demo_copy", ("call",), "a finished call that passes a value the demo call made up (not the request's, a "
                                  "result's nor the schema's) is not made; with none left, the reply says why (the "
                                  "shim)"),
    Check("own_format", ("call",), "a reply every try of which failed (no call, no answer) is asked once more in the "
                                   "model's own tool format; its calls are kept when valid and every value is spelled in "
                                   "the request or a result (the shim, models whose chat template has a tools block)"),
    Check("bare_name", ("answer",), "an answer that is only a tool's name (\"law_crimes.search\": an offered tool, "
                                   "or an identifier with a dot or an underscore) is no answer: own_format asks "
                                   "for the call (the shim, with own_format)"),
    Check("stated_option", ("call",), "an optional argument a call leaves out, when the request names exactly one "
                                      "of the values its enum or description offers, is passed with that value "
                                      "(the shim)"),
    Check("stated_flag", ("call",), "a boolean parameter whose name's telling words the request holds, with no "
                                    "negation in it, is passed as true (the shim)"),
    Check("stated_list", ("call",), "an optional list parameter a call leaves out, when the request names items its "
                                    "items' enum offers, is passed those items (the shim; a tool called once)"),
    Check("swapped", ("call",), "a pair of a call's number arguments whose values the request writes each nearest "
                                "the other's name is swapped back (\"efficiency 0.7 and head of 0.3\"; the shim)"),
    Check("percent", ("call",), "a value the request writes only as a percentage (5%), passed as it is written to a "
                                "number parameter that does not say it takes a percentage, is passed as a fraction "
                                "(0.05; the shim)"),
    Check("zeros", ("call",), "a large number (1,000 or more) that is not the request's but one of its large numbers "
                              "times or divided by 10 or 100, one no argument passes, is put back (\"$10,000,000\" "
                              "passed as 1000000; the shim)"),
    Check("years", ("call",), "a date argument that is the one date the request writes in every part but its year "
                              "(\"June 17, 1915\" passed as \"2015-06-17\") gets the request's year (the shim)"),
    Check("own_options", ("call",), "each finished call that leaves optional parameters out is written again in the "
                                    "model's own tool format, its values held; optional arguments it adds that the "
                                    "request grounds are kept (the shim; a chat template with tools, a grammar)"),
    Check("crossed", ("call",), "a tool called several times whose varying arguments each take their values from "
                                "one list the request writes (\"Oslo and Bergen in 2019 and 2021\") is called with "
                                "every combination, unless the request says \"respectively\" (the shim)"),
    Check("list_rest", ("call",), "a list the request writes for one argument that takes one value (\"the factorial "
                                  "of 5, 10 and 15\"), whose items the calls pass only some of, gets a call for "
                                  "each item (the shim, after crossed)"),
    Check("unit_groups", ("call",), "a further group of numbers the request writes in the units of a call's, in "
                                    "the same order, that no call passes (\"50 m/s over 600 m, and 400 m/s over "
                                    "1000 m\"), gets a call of its own (the shim, after list_rest)"),
    Check("own_items", ("call",), "calls of a tool that each pass a value of their own, whose list argument's items "
                                  "the request writes in each call's part (\"on Netflix for 'Friends', and Hulu for "
                                  "'The Office'\"), each pass their part's items (the shim; after unit_groups)"),
    Check("described_option", ("call",), "an optional argument (not an enum) whose value the parameter's description "
                                         "spells and no word of which the request or a result holds (\"e.g. Drama, "
                                         "Comedy\") is left out (the shim; last)"),
)
"""Every check, in the order they are tried within a stage."""

ALL_CHECKS: frozenset[CheckName] = frozenset(c.name for c in CHECKS)
NO_CHECKS: frozenset[CheckName] = frozenset()
OFF_BY_DEFAULT: frozenset[CheckName] = frozenset({
    "tool_error", "question_back", "expression", "echo",  # never fired on the test split or the held-out set
    "off_quote", "rounding", "after_failure", "copied_example",  # fired, and no result moved when off
    "example_value", "second_look",  # off gained a task (test; held-out) and lost none
    "other_values",  # BFCL: +2 on the tuning items, none on the reported ones, where it lost (results/bfcl/parallel2)
    "list_end",  # BFCL: +3 on the tuning items, +1/-1 on the 155 reported and fresh ones (results/bfcl/list_end)
})
DEFAULT_CHECKS: frozenset[CheckName] = ALL_CHECKS - OFF_BY_DEFAULT
_NAMES: tuple[CheckName, ...] = get_args(CheckName)

CheckSpec = Union[str, Iterable[str], None]
"""What ``parse_checks`` reads: ``"default"``, ``"all"``, ``"none"``, a comma-separated spec, names, or None
(the defaults)."""


def in_order(stage: Stage, enabled: Iterable[str] = ALL_CHECKS) -> tuple[CheckName, ...]:
    """The enabled checks of ``stage``, in the order they are tried."""
    on = set(enabled)
    return tuple(c.name for c in CHECKS if stage in c.stages and c.name in on)


def parse_checks(spec: CheckSpec) -> frozenset[CheckName]:
    """The checks a spec switches on: ``default`` (or None), ``all``, ``none``, ``-rounding,+second_look``
    (the defaults less or plus those), ``rounding,facts`` (only those). Names, or an already parsed set,
    pass through checked. Raises ``ValueError`` naming an unknown check or a spec that mixes ``±name``
    with a bare name."""
    if spec is None:
        return DEFAULT_CHECKS
    parts = [p.strip() for p in spec.split(",")] if isinstance(spec, str) else [str(p).strip() for p in spec]
    parts = [p for p in parts if p]
    if parts == ["default"]:
        return DEFAULT_CHECKS
    if parts == ["all"]:
        return ALL_CHECKS
    if parts == ["none"] or not parts:
        return NO_CHECKS
    signed = [p for p in parts if p[0] in "+-"]
    if signed and len(signed) != len(parts):
        raise ValueError(f"checks {','.join(parts)!r}: write only names to keep, or only -name/+name to change "
                         "the defaults")
    names = [p[1:] if p in signed else p for p in parts]
    unknown = [name for name in names if name not in _NAMES]
    if unknown:
        raise ValueError(f"unknown check(s) {', '.join(unknown)}; known: default, all, none, {', '.join(_NAMES)}")
    if signed:
        added = frozenset(p[1:] for p in parts if p[0] == "+")
        removed = frozenset(p[1:] for p in parts if p[0] == "-")
        return (DEFAULT_CHECKS | added) - removed  # type: ignore[return-value]
    return frozenset(parts)  # type: ignore[arg-type]


def describe(enabled: Iterable[str]) -> str:
    """The shortest spec for ``enabled``: ``default``, ``all``, ``none``, ``-facts,+rounding`` or
    ``rounding,facts``, in registry order, so a report's label reads back through ``parse_checks``."""
    on = frozenset(enabled)
    if on == DEFAULT_CHECKS:
        return "default"
    if on >= ALL_CHECKS:
        return "all"
    if not on:
        return "none"
    changes = [f"-{c.name}" for c in CHECKS if c.name in DEFAULT_CHECKS and c.name not in on] + \
              [f"+{c.name}" for c in CHECKS if c.name not in DEFAULT_CHECKS and c.name in on]
    kept = [c.name for c in CHECKS if c.name in on]
    return ",".join(changes) if len(changes) <= len(kept) else ",".join(kept)
