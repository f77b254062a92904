"""Format-error messages speak the prompt's dialect and language.

The message becomes the model's next observation; its example must be a line the
model could write in the protocol its prompt taught it, and be read back as that.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text import parse
from react_text.protocol.dialects import DIALECTS, format_final

TOOLS = {
    "search": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    "convert": {
        "type": "object",
        "properties": {
            "amount": {"type": "number"},
            "unit": {"type": "string", "enum": ["km", "mi"]},
            "note": {"type": "string"},
        },
        "required": ["amount", "unit"],
    },
    "now": {"type": "object", "properties": {}},
}

# One turn per error situation the parser words, and the code it must come back with.
BAD_TURNS = [
    ("", "empty"),
    ("Thought: I wonder.", "no_action"),
    ("Thought: x\nAction: serch\nAction Input: {\"query\": \"a\"}", "unknown_tool"),
    ("Thought: x\nAction: search\nAction Input: {\"query\": \"...\"}", "placeholder"),
    ("Thought: x\nAction: convert\n", "missing_input"),
    ('Thought: x\nAction: convert\nAction Input: {"amount" 3 "unit"}', "bad_arguments"),
    ('Thought: x\nAction: convert\nAction Input: {"amount": 3, "unit": "km', "truncated"),
    ("Thought: x\nFinal Answer:", "missing_answer"),
    ("Observation: 42", "no_action"),
]

CJK = re.compile(r"[\u4e00-\u9fff]")


def example_lines(message: str) -> str:
    """The text after the message's prose line(s): the example(s) to write."""
    return message.split("\n", 1)[1]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("turn, code", BAD_TURNS)
def test_the_example_is_written_in_the_dialect_and_reads_back(dialect, turn, code):
    step = parse(turn, TOOLS, dialect=dialect, n=3)
    assert step.error is not None and step.error.code == code
    example = example_lines(step.error.message)
    first = example.split("\nor", 1)[0].split("\n或者", 1)[0]
    filled = first.replace("...", "Oslo")
    prose = "final" if dialect == "native" else "error"  # the model's own format answers in plain text
    again = parse(filled if first.startswith(("Thought", "思考")) else "Thought: ok\n" + filled, TOOLS, prose=prose)
    assert again.error is None, (dialect, code, step.error.message)
    assert again.actions or again.final_answer
    if code == "missing_answer":
        assert example.strip() == format_final(dialect, "北京" if dialect == "zh" else "Paris", 3)
        return
    marker = {
        "classic": "Action: ",
        "zh": "行动：",
        "call": "Act: ",
        "json": '"action": ',
        "paper": "Action 3: ",
        "native": "<tool_call>",
    }[dialect]
    assert marker in example


def test_only_values_right_for_any_question_are_filled_in():
    """An enum value is valid whatever was asked; a number or a schema example could be copied as an answer."""
    step = parse("Thought: x\nAction: convert\n", TOOLS, dialect="call")
    assert 'Act: convert(amount="...", unit="km")' in step.error.message
    step = parse("Thought: x\nAction: now\n", TOOLS)
    assert step.error is None  # a tool without arguments needs no input


@pytest.mark.parametrize("turn, code", BAD_TURNS)
def test_chinese_prompts_get_chinese_messages(turn, code):
    for kwargs in ({"dialect": "zh"}, {"dialect": "classic", "lang": "zh"}):
        message = parse(turn, TOOLS, **kwargs).error.message
        prose = message.split("\n", 1)[0]
        assert CJK.search(prose), (kwargs, message)
        assert not re.search(r"\b(the|Write|Your|is not)\b", prose), prose
    english = parse(turn, TOOLS, dialect="classic").error.message.split("\n", 1)[0]
    assert not CJK.search(english)


def test_lang_overrides_the_dialect_default():
    message = parse("Thought: hmm", TOOLS, dialect="zh", lang="en").error.message
    assert message.startswith("I found no action") and "行动：search" in message


def test_unknown_dialect_is_the_callers_error():
    with pytest.raises(ValueError, match="unknown dialect"):
        parse("Thought: x", TOOLS, dialect="yaml")


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300), dialect=st.sampled_from(sorted(DIALECTS)), lang=st.sampled_from([None, "en", "zh"]),
       n=st.integers(1, 99))
def test_never_raises_in_any_voice(text, dialect, lang, n):
    step = parse(text, TOOLS, dialect=dialect, lang=lang, n=n)
    if step.error is not None:
        assert step.error.code != "internal", step.error.message
        assert "\n" in step.error.message


def test_an_unknown_tool_shows_the_models_own_values_only_under_the_tool_it_misspelt():
    # no offered tool is like "calculator": its values under "search" would be a wrong call that looks right
    step = parse('Thought: x\nAct: calculator(expression="460 * 2024")', TOOLS, dialect="call")
    assert step.error.code == "unknown_tool"
    assert 'Act: search(query="...")' in step.error.message and "460" not in step.error.message
    step = parse('Thought: x\nAction: convrt\nAction Input: {"amount": 5, "unit": "mi"}', TOOLS)
    assert 'Did you mean convert?' in step.error.message
    assert '{"amount": 5, "unit": "mi"}' in step.error.message
    step = parse('Thought: x\nAction: lookup\nAction Input: {"query": "..."}', TOOLS)
    assert '{"query": "..."}' in step.error.message  # a copied placeholder is not shown back as a value


@pytest.mark.parametrize("turn", ["Action: calculator(", 'Action: calculator\nAction Input: {"expression": ',
                                  "Action: Calculator\nAction Input: {\"expression\": '2"])
def test_a_correction_shows_the_tool_the_model_tried_not_the_first_one(turn: str) -> None:
    tools = {"search": {"type": "object", "properties": {"query": {}}},
             "calculator": {"type": "object", "properties": {"expression": {}}}}
    step = parse(turn, tools)
    assert step.error is not None and step.error.code == "truncated"
    assert "Action: calculator\nAction Input: {\"expression\"" in step.error.message
    assert "search" not in step.error.message
