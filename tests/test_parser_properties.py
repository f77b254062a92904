"""Properties of ``react_text.parse`` over generated input (issue 2, "Proof").

- it never raises, and its ``Step`` is always well formed, for any ``str``;
- what ``react_text.protocol.dialects`` renders, it reads back (tool, args, answers);
- prose before an action, or a made-up observation after it, changes nothing.
"""

from __future__ import annotations

import os
import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from react_text.protocol.dialects import DIALECTS, format_action, format_final, format_thought
from react_text.protocol.names import FINAL_NAMES
from react_text.protocol.lines import SPECIAL_TOKENS
from react_text.protocol.parser import parse
from react_text.protocol.placeholders import is_placeholder
from react_text.types import Step

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# PARSER_FUZZ_EXAMPLES=100000 turns the "never raises" property into a long fuzz run.
FUZZ = settings(max_examples=int(os.environ.get("PARSER_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=list(HealthCheck))

# --- strategies -----------------------------------------------------------------------

# Pieces small models actually emit, shuffled into "label soup": every label
# variant, braces, quotes, fences, tags, names and placeholders.
FRAGMENTS = [
    "Thought:", "Thought 1:", "**Thought:**", "思考：", "Action:", "Action 2:", "ACTION :", "Act:",
    "**Action:**", "行动：", "Action Input:", "Action_Input:", "行动输入：", "Input:", "Observation:",
    "Observation 1:", "观察：", "Obs:", "Final Answer:", "Answer:", "最终答案：", "Question:", "Finish[",
    "Search[", "search(", "calculator(", "query=", "query: ", "{", "}", "[", "]", "(", ")", '"', "'",
    ",", ":", "：", "```", "```json", "<tool_call>", "</tool_call>", "\n", "\n\n", " ", "\t", "\\",
    '{"action": "search", "action_input": ', '{"name": "search", "arguments": ', '"query"', "True",
    "None", "null", "//", "/*", "*/", "the action to take", "$JSON_BLOB", "...", "<tool>", "search",
    "calculator", "Final Answer", "functions.", "Paris", "2+2", "é", "😀", "\u2028", "\x00", "<|im_end|>",
    "[ACTION]", "[FINAL ANSWER]", "<tool>", "</tool>", "<tool_input>", "</tool_input>", "<final_answer>", "&amp;",
    "Tool:", "Tool Input:", "**", "*", "QueryEngineTool(", '"api_name": ', '"action_variables": ', "User:",
    "tool_name", " (add two numbers)", "(1, 2)", "Result:", "```python", "问题：", "要采取的行动",
]
label_soup = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
any_text = st.one_of(st.text(), label_soup, st.text(alphabet=st.sampled_from("{}[]()\"':,\n Action")))
tools_arg = st.one_of(
    st.none(),
    st.just(["search", "calculator"]),
    st.just([]),
    st.just({"search": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
             "get_time": {"type": "object", "properties": {}}}),
)

FINAL_FOLDED = {n.replace(" ", "").replace("_", "").replace("-", "").casefold() for n in FINAL_NAMES}
NO_TOOL_WORDS = {"none", "na", "null", "nothing"}
IDENT_START = string.ascii_letters + "_"
IDENT_REST = IDENT_START + string.digits
tool_names = st.builds(lambda a, b: a + b, st.sampled_from(IDENT_START), st.text(IDENT_REST, max_size=15)).filter(
    lambda n: n.replace("_", "").casefold() not in FINAL_FOLDED and n.casefold() not in NO_TOOL_WORDS)
keys = st.builds(lambda a, b: a + b, st.sampled_from(string.ascii_lowercase + "_"),
                 st.text(string.ascii_lowercase + string.digits + "_", max_size=10))
scalars = st.one_of(
    st.text(max_size=30),
    st.integers(-10**9, 10**9),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.booleans(),
    st.none(),
)
scalars = scalars.filter(lambda v: not isinstance(v, str) or no_special_token(v))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)), max_leaves=8)
arg_dicts = st.dictionaries(keys, json_values, min_size=1, max_size=4)
# One value the paper format can hold on one line without looking like JSON.
paper_values = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=30)
    .map(str.strip).filter(lambda s: s and not s.startswith("{") and no_special_token(s)),
    st.integers(-10**6, 10**6),
)
answers = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=60).map(
    str.strip).filter(lambda s: s and s[0] not in "{[" and not s.startswith(("...", "…", "$", "<")) and no_special_token(s))

PROSE = ["Sure, let me help with that.", "I need to look this up first.", "Okay.", "Let me think step by step.",
         "Hmm, this needs a tool.", "让我想一想。"]
TAILS = [
    "\nObservation: It is sunny.\nThought: I now know the final answer.\nFinal Answer: sunny",
    "\nObservation 1: 42\nThought 2: done\nAction 2: Finish[42]",
    "\n观察：晴天\n最终答案：晴天",
    "\n\n**Observation:** 12 results\n\n**Final Answer:** twelve",
    "\nObs: nothing found",
    "\nQuestion: What is the capital of Peru?\nThought: I should search.",
    "\nFinal Answer: made up",
]


def no_special_token(s: str) -> bool:
    """A chat special token ends the turn by design (see test_parser.py), so it is not argument text."""
    return not any(tok in s for tok in SPECIAL_TOKENS)


def echoes_a_placeholder(step: Step) -> bool:
    """Generated values can be exactly a template placeholder ("...", "$X", "the action to take"):
    rejecting those is the parser's job, so such draws prove nothing about round trips."""
    return step.error is not None and step.error.code == "placeholder"


def assert_well_formed(step: Step, text: str) -> None:
    assert isinstance(step, Step)
    assert step.text is text
    assert 0 <= step.end <= len(text)
    outcomes = [step.error is not None, bool(step.actions), step.final_answer is not None]
    assert sum(outcomes) == 1, step
    if step.error is not None:
        assert step.error.code != "internal", step.error.message
        assert step.error.message.strip()
    for action in step.actions:
        assert isinstance(action.tool, str) and action.tool
        assert isinstance(action.args, (dict, str))
        start, end = action.span
        assert 0 <= start <= end <= step.end
    assert all(isinstance(r, str) for r in step.repairs)


# --- never raises ------------------------------------------------------------------------

@FUZZ
@given(text=any_text, tools=tools_arg, prose=st.sampled_from(["error", "final"]))
def test_never_raises_and_step_is_well_formed(text: str, tools, prose: str) -> None:
    assert_well_formed(parse(text, tools, prose=prose), text)


@settings(max_examples=25, deadline=None)
@given(piece=label_soup.filter(bool), times=st.integers(500, 5000))
def test_never_raises_on_long_repetitions(piece: str, times: int) -> None:
    text = piece * times
    assert_well_formed(parse(text, ["search", "calculator"]), text)


@pytest.mark.parametrize("text", [
    "{" * 200_000, "}" * 200_000, "[" * 100_000 + "]" * 100_000, "Action:" * 50_000,
    '{"action": "search", "action_input": "' + "a" * 200_000, "\n" * 100_000, "\x00" * 1000,
    "Action: search\nAction Input: q\n" * 10_000, "```json\n" * 20_000, '"' * 100_000,
    '{"a": ' * 10_000 + "1" + "}" * 10_000, "\ud800\udfff lone surrogates \udc00",
    "Action: search\nAction Input: " + "'" * 200_000, '{"query": "' + '\\"' * 100_000,
    '{"action":"search","action_input":{"query":"' + "\\ud800" * 30_000 + '"}}',
])
def test_hostile_inputs_give_a_step(text: str) -> None:
    assert_well_formed(parse(text, ["search", "calculator"]), text)


# --- round trip through the dialect table ------------------------------------------------------

@FAST
@given(dialect=st.sampled_from(sorted(DIALECTS)), tool=tool_names, args=arg_dicts, named=st.booleans())
def test_every_dialect_reads_back_what_it_renders(dialect: str, tool: str, args: dict, named: bool) -> None:
    text = format_action(dialect, tool, args)
    step = parse(text, [tool] if named else None)
    assume(not echoes_a_placeholder(step))
    assert step.error is None, (text, step.error)
    assert [a.tool for a in step.actions] == [tool]
    got = step.actions[0].args
    if dialect == "paper" and len(args) == 1 and isinstance(next(iter(args.values())), (str, int, float)) \
            and not isinstance(next(iter(args.values())), bool):
        # the paper's Search[x] holds one bare value: it comes back as that text
        assert got == str(next(iter(args.values()))).strip()
    else:
        assert got == args


@FAST
@given(tool=tool_names, value=paper_values, n=st.integers(1, 9))
def test_paper_single_value_reads_back_as_text(tool: str, value, n: int) -> None:
    step = parse(format_action("paper", tool, {"q": value}, n), None)
    assume(not echoes_a_placeholder(step))
    assert step.error is None, step.error
    assert step.actions[0].tool == tool and step.actions[0].args == str(value)


@FAST
@given(dialect=st.sampled_from(sorted(d for d in DIALECTS if d != "paper")), tool=tool_names,
       text_arg=st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40))
def test_string_arguments_read_back(dialect: str, tool: str, text_arg: str) -> None:
    text_arg = text_arg.strip()
    assume(no_special_token(text_arg))
    assume(text_arg and text_arg[0] not in "{[\"'`“" and text_arg[-1] not in "`")
    assume(not text_arg.startswith(("...", "…", "$")))
    step = parse(format_action(dialect, tool, text_arg), None)
    assume(not echoes_a_placeholder(step))
    assert step.error is None, step.error
    assert step.actions[0].args == text_arg


@FAST
@given(dialect=st.sampled_from(sorted(DIALECTS)), answer=answers, n=st.integers(1, 9))
def test_final_answers_read_back(dialect: str, answer: str, n: int) -> None:
    step = parse(format_thought(dialect, "I know the answer now.", n) + "\n" + format_final(dialect, answer, n))
    assume(not echoes_a_placeholder(step))
    assert step.error is None, step.error
    assert step.final_answer == answer


# --- invariance: prose before, made-up tail after ---------------------------------------------------

@FAST
@given(dialect=st.sampled_from(sorted(DIALECTS)), tool=tool_names, args=arg_dicts,
       prose=st.sampled_from(PROSE), tail=st.sampled_from(TAILS), n=st.integers(1, 5))
def test_prose_before_and_fake_tail_after_do_not_change_the_action(dialect, tool, args, prose, tail, n) -> None:
    action = format_action(dialect, tool, args, n)
    plain = parse(action, [tool])
    assume(not echoes_a_placeholder(plain))
    decorated = parse(prose + "\n" + format_thought(dialect, "I need a tool.", n) + "\n" + action + tail, [tool])
    assert plain.error is None and decorated.error is None, (plain.error, decorated.error)
    assert [(a.tool, a.args) for a in decorated.actions] == [(a.tool, a.args) for a in plain.actions]
    assert "dropped_tail" in decorated.repairs
    # everything after the action is cut off, and the kept text ends with the action itself
    assert decorated.text[:decorated.end].endswith(action.rstrip())


@FAST
@given(dialect=st.sampled_from(sorted(DIALECTS)), answer=answers, tail=st.sampled_from(TAILS), prose=st.sampled_from(PROSE))
def test_fake_tail_does_not_change_a_final_answer(dialect, answer, tail, prose) -> None:
    final = format_final(dialect, answer, 1)
    plain = parse(final)
    decorated = parse(prose + "\n" + final + tail)
    assume(plain.error is None)
    assert decorated.final_answer == plain.final_answer == answer


@FAST
@given(tools=st.lists(tool_names, min_size=1, max_size=3, unique=True), dialect=st.sampled_from(sorted(DIALECTS)),
       count=st.integers(2, 4), data=st.data())
def test_actions_written_back_to_back_all_come_back_in_order(tools, dialect, count, data) -> None:
    calls = [(data.draw(st.sampled_from(tools)), data.draw(arg_dicts.filter(lambda d: len(d) > 1)))
             for _ in range(count)]
    # an action whose value is a template placeholder ("<0>") is dropped among others by design
    assume(not any(isinstance(v, str) and is_placeholder(v) for _, args in calls for v in args.values()))
    text = "\n".join(format_action(dialect, t, a, i + 1) for i, (t, a) in enumerate(calls))
    step = parse(text + TAILS[0], tools)
    assume(not echoes_a_placeholder(step))
    assert step.error is None, step.error
    assert [(a.tool, a.args) for a in step.actions] == calls


@FAST
@given(name=tool_names, sep=st.sampled_from(["", " ", "-", "_"]), case=st.sampled_from([str.upper, str.lower, str.title]),
       wrap=st.sampled_from(["{}", "`{}`", '"{}"', "'{}'", "**{}**", "{}.", "functions.{}"]))
def test_forgiving_name_matching(name: str, sep: str, case, wrap: str) -> None:
    canonical = name.replace("_", "") + "_tool"
    written = wrap.format(case(name.replace("_", "") + sep + "tool"))
    step = parse(f"Action: {written}\nAction Input: x", [canonical, "zzz_other"])
    assert step.error is None, (written, step.error)
    assert step.actions[0].tool == canonical


ASCII_SENTENCE = st.lists(st.sampled_from(string.ascii_lowercase.split() + ["the", "a", "to", "use", "now"]),
                          min_size=2, max_size=6).map(" ".join)


@FAST
@given(sentence=ASCII_SENTENCE)
def test_a_sentence_in_the_tool_slot_is_never_an_action(sentence: str) -> None:
    step = parse(f"Thought: ok\nAction: {sentence}\nAction Input: 2+2", ["calculator", "search"])
    assert step.error is not None and step.error.code in ("unknown_tool", "no_action", "placeholder")
    # without tools a name of words is accepted (crewAI's "Ask question to coworker"), a sentence is not
    step = parse(f"Thought: ok\nAction: I will {sentence}\nAction Input: 2+2")
    assert step.error is not None


def _walk_line_rule(line: str) -> bool:
    """The walk's line filter written out line by line (what ``_WALK_LINE`` must agree with)."""
    from react_text.protocol.labels import DECORATION_CHARS, PICK1, PICK3

    head = line[:16].lstrip(DECORATION_CHARS)
    if head[:3].lower() in PICK3 or head[:1] in PICK1:
        return True
    return "{" in line and (line[:64].lstrip(" \t>")[:1] in ("{", "[", "`") or '{"' in line or "{'" in line
                            or "{ " in line or "<tool_call>" in line)


WALK_WORDS = ["act", "ACT", "Ans", "tho", "too", "[fi", "[Th", "inp", "obs", "que", "use", "new", "hum", "arg",
              "fin", "行动", "思考", "观察", "最终", "{", '{"', "{ ", "[{", "`{", "<tool_call>{", "x{'", "K", "\u212a"]
WALK_PIECES = WALK_WORDS + list(" \t>#*_-{}[]`\"'<>\r\u3000x\u0130\u0131\u017f") + ["<tool_call>", "```"]
# a line: a run of decoration whose length is often near the 16 and 64 character windows, a word, then more
walk_line = st.builds(lambda n, c, word, rest: c * n + word + rest,
                      st.one_of(st.integers(11, 17), st.integers(60, 66), st.integers(0, 70)),
                      st.sampled_from(" \t>#*_-"), st.sampled_from(WALK_WORDS),
                      st.lists(st.sampled_from(WALK_PIECES), max_size=6).map("".join))


@settings(max_examples=500, deadline=None)
@given(text=st.lists(walk_line, max_size=6).map("\n".join))
def test_the_walk_picks_the_lines_its_rule_names(text: str) -> None:
    from react_text.protocol.turn import Turn

    turn = Turn(text, None, ("classic", 1, None))
    offsets, expected = 0, []
    for line in text[:turn.limit].split("\n"):
        if offsets < turn.limit and _walk_line_rule(line):
            expected.append(offsets)
        offsets += len(line) + 1
    assert list(turn.lines_from(0, blobs=True)) == expected
