"""Unit tests of the tolerant parser: every dialect, every error code, the safety rules.

The realistic corpus lives in tests/data/parser_cases.jsonl (one case a line,
scored exactly as /work/shared/peers/run_peers.py scores it); the tests here pin
the details a score cannot see: repairs, ``end``, spans, thoughts and the
messages the model reads.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import typing
from collections import Counter
from pathlib import Path

import pytest

import react_text
from react_text import parse
from react_text.protocol.jsonish import JsonishError, loads, read_call_args, read_value
from react_text.grammar.gbnf import build_grammar
from react_text.protocol.names import FINAL_NAMES, match_tool
from react_text.protocol.parser import ERROR_CODES
from react_text.protocol.turn import MAX_ACTIONS
from react_text.types import Step

CASES_FILE = Path(__file__).parent / "data" / "parser_cases.jsonl"
TOOLS = ["search", "calculator"]
SCHEMAS = {
    "search": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
               "required": ["query"]},
    "calculator": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
    "current_time": {"type": "object", "properties": {}},
}


def only_action(step: Step):
    assert step.error is None, step.error
    assert len(step.actions) == 1, step.actions
    return step.actions[0]


def error_code(step: Step) -> str:
    assert step.error is not None, step
    return step.error.code


# --- the corpus, scored like the peers' side-by-side runner --------------------------------------------------

def _load_cases() -> list[dict]:
    with CASES_FILE.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


CASES = _load_cases()


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        s = s[1:-1].strip()
    return s


def _decode(s: str):
    for loader in (json.loads, ast.literal_eval):
        try:
            return loader(s.strip())
        except Exception:
            pass
    return None


def _canon(x):
    return json.loads(json.dumps(x, sort_keys=True))


def _args_match(expected, got) -> bool:
    """run_peers.args_match: the same normalisation, so the scores agree."""
    if isinstance(expected, dict):
        if isinstance(got, dict):
            return _canon(got) == _canon(expected)
        if isinstance(got, str):
            d = _decode(got)
            if not isinstance(d, dict):
                d = _decode(_unquote(got))
            return isinstance(d, dict) and _canon(d) == _canon(expected)
        return False
    exp = _unquote(str(expected))
    if isinstance(got, str):
        return _unquote(got) == exp
    if isinstance(got, dict) and len(got) == 1:
        (v,) = got.values()
        return isinstance(v, str) and _unquote(v) == exp
    return False


def _verdict(case: dict, step: Step) -> str:
    expect = case["expect"]
    known = {t.strip().lower() for t in case["tools"]}
    if step.error is not None or (step.actions and step.actions[0].tool.strip().lower() not in known):
        return "correct" if expect["kind"] == "error" else "error_on_valid"
    if step.actions:
        action = step.actions[0]
        ok = (expect["kind"] == "action" and action.tool.lower() == expect["tool"].lower()
              and _args_match(expect["args"], action.args))
        return "correct" if ok else "wrong_action"
    ok = expect["kind"] == "final" and " ".join(step.final_answer.split()) == " ".join(expect["answer"].split())
    return "correct" if ok else "wrong_final"


def test_corpus_is_large_and_covers_every_failure_mode() -> None:
    assert len(CASES) >= 150
    assert len({c["id"] for c in CASES}) == len(CASES)
    categories = Counter(c["category"] for c in CASES)
    for needed in ("classic", "json_blob", "call", "paper", "zh", "final", "hallucinated_tail", "placeholder",
                   "prose", "tool_slot_sentence", "near_miss_names", "sloppy_syntax", "answer_label",
                   "multi_action", "label_variants", "broken_json", "empty"):
        assert categories[needed] >= 4, needed
    kinds = Counter(c["expect"]["kind"] for c in CASES)
    assert kinds["action"] >= 80 and kinds["final"] >= 20 and kinds["error"] >= 40


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_case(case: dict) -> None:
    step = parse(case["text"], tools=case["tools"])
    assert step.error is None or step.error.code in ERROR_CODES
    assert _verdict(case, step) == "correct", (case["expect"], step)


# --- dialects -------------------------------------------------------------------------------

def test_classic_turn_keeps_the_thought_and_ends_after_the_input() -> None:
    text = ("Thought: I need the weather in Paris first.\nAction: search\nAction Input: weather in Paris\n"
            "Observation: sunny\nFinal Answer: sunny")
    step = parse(text, TOOLS)
    action = only_action(step)
    assert (action.tool, action.args) == ("search", "weather in Paris")
    assert step.thought == "I need the weather in Paris first."
    assert text[:step.end] == "Thought: I need the weather in Paris first.\nAction: search\nAction Input: weather in Paris"
    assert text[action.span[0]:action.span[1]] == "Action: search\nAction Input: weather in Paris"
    assert "dropped_tail" in step.repairs


def test_multiline_json_input_in_a_fence() -> None:
    text = 'Thought: compute\nAction: calculator\nAction Input:\n```json\n{\n  "expression": "(4 + 5) * 3"\n}\n```\nObservation: 27'
    step = parse(text, TOOLS)
    assert only_action(step).args == {"expression": "(4 + 5) * 3"}
    assert text[:step.end].endswith("```")


def test_call_syntax_positional_keyword_and_python_literals() -> None:
    assert only_action(parse('Act: search("weather in Berlin")', TOOLS)).args == "weather in Berlin"
    assert only_action(parse("Act: calculator(2 + 3 * (4 - 1))", TOOLS)).args == "2 + 3 * (4 - 1)"
    action = only_action(parse("Act: search(query='news', safe=True, region=None, n=3)", TOOLS))
    assert action.args == {"query": "news", "safe": True, "region": None, "n": 3}
    step = parse('Action: search(query: "eiffel tower height")', TOOLS)
    assert only_action(step).args == {"query": "eiffel tower height"}
    assert "colon_keyword" in step.repairs


def test_positional_arguments_map_onto_the_schema_in_order() -> None:
    step = parse('Act: search("cats", 5)', SCHEMAS)
    assert only_action(step).args == {"query": "cats", "limit": 5}
    assert "positional_args" in step.repairs
    # without a schema nothing is guessed: the raw text is kept
    assert only_action(parse('Act: search("cats", 5)', TOOLS)).args == '"cats", 5'


def test_paper_format_numbered_and_finish() -> None:
    step = parse("Thought 2: I need the eastern sector.\nAction 2: Lookup[eastern sector]\nObservation 2: x",
                 ["Search", "Lookup"])
    assert (only_action(step).tool, only_action(step).args) == ("Lookup", "eastern sector")
    step = parse("Thought 3: done\nAction 3: Finish[1,800 to 7,000 ft]", ["Search", "Lookup"])
    assert step.final_answer == "1,800 to 7,000 ft" and step.thought == "done"
    assert only_action(parse('Action 1: Search[{"query": "x", "page": 2}]', None)).args == {"query": "x", "page": 2}


def test_json_blob_key_conventions() -> None:
    blobs = [
        ('{"action": "search", "action_input": "x"}', "x"),
        ('{"tool": "search", "args": {"query": "x"}}', {"query": "x"}),
        ('{"tool": "search", "tool_input": "x"}', "x"),
        ('{"name": "search", "arguments": {"query": "x"}}', {"query": "x"}),
        ('{"name": "search", "arguments": "{\\"query\\": \\"x\\"}"}', {"query": "x"}),
        ('{"tool_name": "search", "parameters": {"query": "x"}}', {"query": "x"}),
        ('{"function": {"name": "search", "arguments": {"query": "x"}}}', {"query": "x"}),
        ('{"function": "search", "args": {"query": "x"}}', {"query": "x"}),
        ('{"type": "function", "function": {"name": "search", "arguments": "{}"}}', {}),
    ]
    for blob, args in blobs:
        for text in (blob, f"```json\n{blob}\n```", f"Sure.\nAction:\n{blob}", f"<tool_call>\n{blob}\n</tool_call>"):
            action = only_action(parse(text, TOOLS))
            assert (action.tool, action.args) == ("search", args), text


def test_json_right_after_the_turn_prefix_and_one_line_actions() -> None:
    # the loop parses turn_prefix + completion, so "Thought:" often sits on the JSON's line
    step = parse('Thought: I will search. {"name": "search", "arguments": {"query": "y"}}\nObservation: z', TOOLS)
    assert only_action(step).args == {"query": "y"} and step.thought == "I will search."
    step = parse("Action: search Action Input: weather in Paris\nObservation: x", TOOLS)
    assert only_action(step).args == "weather in Paris" and "inline_input" in step.repairs
    assert parse("Action: Final Answer Action Input: 42", TOOLS).final_answer == "42"


def test_openai_tool_calls_give_every_call_in_order() -> None:
    text = json.dumps({"tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "search", "arguments": "{\"query\": \"a\"}"}},
        {"id": "2", "type": "function", "function": {"name": "calculator", "arguments": "{\"expression\": \"1+1\"}"}},
    ]})
    step = parse(text, TOOLS)
    assert [(a.tool, a.args) for a in step.actions] == [("search", {"query": "a"}), ("calculator", {"expression": "1+1"})]
    assert "arguments_string_decoded" in step.repairs


def test_json_in_prose_is_only_an_action_when_it_is_shaped_like_one() -> None:
    assert error_code(parse('The record is {"name": "John", "age": 30}.', TOOLS)) == "no_action"
    step = parse('Let me check. {"action": "search", "action_input": "Nile length"} One moment.', TOOLS)
    assert only_action(step).args == "Nile length" and "dropped_tail" in step.repairs


def test_chinese_labels() -> None:
    text = '思考：我需要查询北京的天气。\n行动：search\n行动输入：{"query": "北京天气"}\n观察：晴\n最终答案：晴'
    step = parse(text, TOOLS)
    assert only_action(step).args == {"query": "北京天气"}
    assert step.thought == "我需要查询北京的天气。"
    assert text[:step.end].endswith('{"query": "北京天气"}')
    assert parse("思考：好了\n最终回答：上海约有2487万人。").final_answer == "上海约有2487万人。"


@pytest.mark.parametrize("label", ["Action", "ACTION", "action", "Act", "**Action:**", "Action 1", "Action  ",
                                   "## Action", "- Action", "> Action", "Tool", "行动", "Action ："])
def test_label_variants(label: str) -> None:
    head = label if label.endswith((":", ":**", "：")) else label + ":"
    step = parse(f"Thought: go\n{head} search\nAction Input: x", TOOLS)
    assert (only_action(step).tool, only_action(step).args) == ("search", "x")


@pytest.mark.parametrize("text,answer", [
    ("Final Answer: 42", "42"),
    ("Thought: done\n**Final Answer:** Mount Everest", "Mount Everest"),
    ("Answer: Paris\nQuestion: and Rome?\nAnswer: Italy", "Paris"),
    ("最终答案：长城", "长城"),
    ("Action 3: Finish[yes]", "yes"),
    ('{"action": "Final Answer", "action_input": "Canberra"}', "Canberra"),
    ('{"name": "final_answer", "arguments": {"answer": "7"}}', "7"),
    ('{"action": "finish", "action_input": 12}', "12"),
    ("Act: finish(\"done\")", "done"),
    ("Thought: sure\nAction: Final Answer\nAction Input: the sky is blue", "the sky is blue"),
    ("Final Answer:\nThree lines:\n- a\n- b", "Three lines:\n- a\n- b"),
])
def test_final_answers(text: str, answer: str) -> None:
    step = parse(text, TOOLS)
    assert step.error is None, step.error
    assert step.final_answer == answer and step.actions == ()


def test_a_tool_named_like_a_final_name_is_a_tool_when_offered() -> None:
    action = only_action(parse("Action: answer\nAction Input: x", ["answer", "search"]))
    assert action.tool == "answer"
    assert "answer" in FINAL_NAMES and "final answer" in FINAL_NAMES and "finish" in FINAL_NAMES


# --- safety ----------------------------------------------------------------------------------

@pytest.mark.parametrize("tail", [
    "\nObservation: 25°C\nFinal Answer: 25°C",
    "\nObservation 1: 25°C",
    "\n观察：25°C",
    "\n**Observation:** 25°C",
    "\nObs: 25°C",
    "\nFinal Answer: made up",
    "\nQuestion: What is the capital of Peru?\nThought: search\nAction: search\nAction Input: Peru capital",
    "\nThought: I now know it.\nAction: calculator\nAction Input: 1+1",
    "\nThe weather is nice, so the answer is 25°C.",
    " Observation: 25°C",
])
def test_nothing_after_the_action_is_trusted(tail: str) -> None:
    action_text = 'Thought: weather\nAction: search\nAction Input: {"query": "Rome weather"}'
    step = parse(action_text + tail, TOOLS)
    assert [(a.tool, a.args) for a in step.actions] == [("search", {"query": "Rome weather"})]
    assert step.text[:step.end] == action_text
    assert "dropped_tail" in step.repairs


def test_actions_back_to_back_all_come_back_until_an_observation() -> None:
    text = ("Action: search\nAction Input: a\n\nAction: calculator\nAction Input: 1+1\n"
            "Act: search(\"b\")\nObservation: ...\nAction: search\nAction Input: c")
    step = parse(text, TOOLS)
    assert [(a.tool, a.args) for a in step.actions] == [("search", "a"), ("calculator", "1+1"), ("search", "b")]
    assert step.end == text.index("\nObservation")
    spans = [text[a.span[0]:a.span[1]] for a in step.actions]
    assert spans == ["Action: search\nAction Input: a", "Action: calculator\nAction Input: 1+1", 'Act: search("b")']


def test_too_many_actions_are_capped() -> None:
    step = parse("Action: search\nAction Input: q\n" * (MAX_ACTIONS + 10), TOOLS)
    assert len(step.actions) == MAX_ACTIONS and "too_many_actions" in step.repairs


def test_a_truncated_later_action_is_dropped_not_shortened() -> None:
    step = parse('Action: search\nAction Input: a\nAction: search\nAction Input: {"query": "the his', TOOLS)
    assert [(a.tool, a.args) for a in step.actions] == [("search", "a")]
    assert "dropped_truncated_action" in step.repairs


@pytest.mark.parametrize("text", [
    "Thought: The next Action should be to search.",
    "Thought: I could take Action: search, but not yet.",
    "I think the best action: search for it later.",
    "Thought: the Action Input will be the city.",
])
def test_the_word_action_inside_prose_is_not_an_action(text: str) -> None:
    assert error_code(parse(text, TOOLS)) == "no_action"


def test_chat_special_tokens_end_the_turn() -> None:
    step = parse("Final Answer: Paris<|im_end|>\n<|im_start|>user\nthanks", TOOLS)
    assert step.final_answer == "Paris" and step.end == len("Final Answer: Paris")
    step = parse("Action: search\nAction Input: cats</s>Observation: x", TOOLS)
    assert only_action(step).args == "cats"


# --- errors: every code, with a message written for the model ---------------------------------------

def test_empty() -> None:
    for text in ("", "   \n\t  ", "Thought:", "Thought:   \n"):
        step = parse(text, TOOLS)
        assert error_code(step) == "empty"
        assert "Action: search" in step.error.message


def test_no_action_message_shows_a_concrete_action_line_with_the_schema() -> None:
    step = parse("Thought: I should use the calculator.", SCHEMAS)
    assert error_code(step) == "no_action"
    assert step.thought == "I should use the calculator."
    assert 'Action: search\nAction Input: {"query": "..."}' in step.error.message
    assert "Final Answer:" in step.error.message


def test_unknown_tool_lists_tools_and_suggests_the_closest() -> None:
    step = parse("Thought: add\nAction: calculate\nAction Input: 2+2", TOOLS)
    assert error_code(step) == "unknown_tool"
    message = step.error.message
    assert "Did you mean calculator?" in message and "search, calculator" in message
    assert "Action: calculator" in message
    assert step.text[:step.end].endswith("Action Input: 2+2")
    step = parse("Action: Math\nAction Input: 2+2", TOOLS)
    assert error_code(step) == "unknown_tool" and "Did you mean" not in step.error.message


@pytest.mark.parametrize("slot", ["I will multiply the numbers", "381", "use the calculator to add them"])
def test_a_sentence_or_value_in_the_tool_slot(slot: str) -> None:
    assert error_code(parse(f"Action: {slot}\nAction Input: 2, 3", TOOLS)) == "unknown_tool"
    step = parse(f"Action: {slot}\nAction Input: 2, 3")  # no tools: still not a tool name
    assert error_code(step) == "no_action" and "is not a tool name" in step.error.message


def test_a_doubled_colon_is_read_through() -> None:
    assert only_action(parse("Action:: search\nAction Input: x", TOOLS)).tool == "search"


def test_without_tools_any_identifier_is_accepted() -> None:
    action = only_action(parse("Action: Get_Stock-Price\nAction Input: AAPL"))
    assert (action.tool, action.args) == ("Get_Stock-Price", "AAPL")


@pytest.mark.parametrize("text", [
    "Action: the action to take, should be one of [search, calculator]\nAction Input: the input to the action",
    "Action: search\nAction Input: the input to the action",
    "Action:\n```\n$JSON_BLOB\n```",
    "Act: <tool>(<arguments>)",
    "Final Answer: the final answer to the original input question",
    '{"action": "$TOOL_NAME", "action_input": "$INPUT"}',
    "Action: ...\nAction Input: ...",
    'Action: search\nAction Input: {"query": "..."}',
    "Action: [search, calculator]\nAction Input: 2",
])
def test_echoed_placeholders(text: str) -> None:
    step = parse(text, TOOLS)
    assert error_code(step) == "placeholder"
    assert "Action: search" in step.error.message


def test_a_real_value_that_contains_a_template_phrase_is_not_a_placeholder() -> None:
    action = only_action(parse("Action: search\nAction Input: which should be one of the options?", TOOLS))
    assert action.args == "which should be one of the options?"


def test_missing_input() -> None:
    step = parse("Thought: look\nAction: search\nObservation: x", SCHEMAS)
    assert error_code(step) == "missing_input"
    assert 'Action: search\nAction Input: {"query": "..."}' in step.error.message
    # a tool whose schema takes no arguments needs no input line
    assert only_action(parse("Action: current_time\nObservation: 12:00", SCHEMAS)).args == {}
    assert only_action(parse("Action: current_time\nAction Input:", SCHEMAS)).args == ""


def test_bad_arguments() -> None:
    step = parse('Action: search\nAction Input: {"query" "x" "y"}', SCHEMAS)
    assert error_code(step) == "bad_arguments"
    assert 'Action Input: {"query": "..."}' in step.error.message
    assert error_code(parse("Action: search\nAction Input: " + "{" * 500 + "}" * 500, TOOLS)) == "bad_arguments"


@pytest.mark.parametrize("text", [
    'Action: search\nAction Input: {"query": "the history of the Roman emp',
    'Act: search("the history of',
    'Action:\n```json\n{"action": "search", "action_input": "abc',
    'Action: search\nAction Input: {"query": "x",',
    'Action: search\nAction Input: "unfinished',
    '{"action": "search", "action_input": "' + "a" * 10_000,
])
def test_truncated_input_is_an_error_not_a_shorter_call(text: str) -> None:
    step = parse(text, TOOLS)
    assert error_code(step) == "truncated"
    assert "cut off" in step.error.message


def test_missing_answer() -> None:
    assert error_code(parse("Thought: ok\nFinal Answer:", TOOLS)) == "missing_answer"
    assert error_code(parse("Action 2: Finish[]", TOOLS)) == "missing_answer"
    # the final answer named as an XML tool with no input: no sentinel object in the message
    step = parse("<tool>Final Answer</tool>", TOOLS)
    assert error_code(step) == "missing_answer" and "object at" not in step.error.message


def test_stray_input_and_none_action() -> None:
    step = parse("Thought: x\nAction Input: cats", TOOLS)
    assert error_code(step) == "no_action" and "no tool name before it" in step.error.message
    assert parse("Thought: I know.\nAction: None\nFinal Answer: 4", TOOLS).final_answer == "4"


STRAY_SCHEMAS = {"calculator": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
           "search": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                      "required": ["query"]},
           "lookup": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}


def test_a_stray_input_whose_keys_only_one_tool_takes_is_that_tools_call() -> None:
    turn = 'Thought: I pass them to the calculator.\nAction Input: {"expression": "4 + 5"}\nObservation: 9'
    step = parse(turn, STRAY_SCHEMAS)
    assert (only_action(step).tool, only_action(step).args) == ("calculator", {"expression": "4 + 5"})
    assert "inferred_tool" in step.repairs and step.thought == "I pass them to the calculator."
    assert step.end == turn.index("\nObservation")  # the made-up observation is cut off as usual
    assert only_action(parse('Thought: x\nAction Input: {"query": "a", "limit": 2}', STRAY_SCHEMAS)).tool == "search"


@pytest.mark.parametrize("turn, tools", [
    ('Thought: x\nAction Input: {"query": "a"}', STRAY_SCHEMAS),  # search and lookup both take it
    ('Thought: x\nAction Input: {"limit": 2}', STRAY_SCHEMAS),  # search needs its query too
    ('Thought: x\nAction Input: {"foo": 1}', STRAY_SCHEMAS),
    ("Thought: x\nAction Input: 4 + 5", STRAY_SCHEMAS),  # not keys at all
    ('Thought: x\nAction Input: {"expression": "4 + 5"}', ["calculator", "search"]),  # names only: no schema
])
def test_a_stray_input_that_names_no_one_tool_stays_an_error(turn: str, tools) -> None:
    step = parse(turn, tools)
    assert error_code(step) == "no_action" and "inferred_tool" not in step.repairs


def test_an_echoed_observation_at_the_turn_start_is_skipped_and_the_step_after_it_is_read() -> None:
    step = parse("Observation: 42\nFinal Answer: 42", TOOLS)
    assert step.final_answer == "42" and step.thought is None
    action = only_action(parse("Observation: the page says 42\n\nThought: check it\nAction: search\nAction Input: 42", TOOLS))
    assert (action.tool, action.args) == ("search", "42")
    assert parse("Observation: the page says 42\nThought: check it\nAction: search\nAction Input: 42", TOOLS).thought == "check it"


def test_an_observation_alone_or_after_prose_is_not_trusted() -> None:
    step = parse("Observation: 42", TOOLS)
    assert error_code(step) == "no_action" and step.end == 0
    assert "Do not write the Observation" in step.error.message
    step = parse("I will look.\nObservation: 42\nFinal Answer: 42", TOOLS)
    assert error_code(step) == "no_action" and step.end == len("I will look.")


def test_messages_are_short_and_every_code_is_documented() -> None:
    import react_text.protocol.parser as parser_module

    samples = ["", "Thought: hmm", "Action: calc\nAction Input: 1", "Action: search\n",
               'Action: search\nAction Input: {"q" 42}', 'Act: search("ab', "Final Answer:",
               "Action: the action to take"]
    for text in samples:
        step = parse(text, TOOLS)
        prose = step.error.message.split("\n", 1)[0]
        assert prose.count(". ") + prose.count("? ") <= 3, prose  # one or two sentences, then the line
        assert "\n" in step.error.message  # ... followed by the exact line to write
    for code in ERROR_CODES:
        assert f"``{code}``" in parser_module.__doc__


# --- prose policy ----------------------------------------------------------------------------------

def test_prose_policy() -> None:
    assert error_code(parse("The capital of France is Paris.", TOOLS)) == "no_action"
    step = parse("The capital of France is Paris.\n\nQuestion: and Spain?", TOOLS, prose="final")
    assert step.final_answer == "The capital of France is Paris." and "prose_as_final" in step.repairs
    assert parse("Thought: It is Paris.", TOOLS, prose="final").final_answer == "It is Paris."
    # an action or a real error is never turned into prose
    assert only_action(parse("Action: search\nAction Input: x", TOOLS, prose="final"))
    assert error_code(parse("Action: calc\nAction Input: 1", TOOLS, prose="final")) == "unknown_tool"
    with pytest.raises(ValueError):
        parse("x", prose="always")


# --- tools argument and name matching ----------------------------------------------------------------

@pytest.mark.parametrize("written", ["Search", "SEARCH", "`search`", '"search"', "search.", "**search**",
                                     "functions.search", " search "])
def test_forgiving_name_matching(written: str) -> None:
    step = parse(f"Action: {written}\nAction Input: x", TOOLS)
    assert only_action(step).tool == "search"


def test_the_error_names_what_the_model_wrote() -> None:
    """FormatError.detail: callers learn the tool name or the echoed text without reading the turn again."""
    assert parse("Action: web_search\nAction Input: x", TOOLS).error.detail == "web_search"
    assert parse("Action: search", TOOLS).error.detail == "search"  # missing_input
    assert parse('Action: search\nAction Input: {"q" 42}', TOOLS).error.detail == "search"  # bad_arguments
    assert parse("Action: the action to take", TOOLS).error.detail == "the action to take"
    # a sentence in the slot, or a call whose input was not read, names no tool
    assert parse("Action: I will look it up\nAction Input: x", TOOLS).error.detail is None
    assert parse("Action: web_search", TOOLS).error.detail is None
    assert parse("Thought: hmm", TOOLS).error.detail is None
    assert set(typing.get_args(react_text.ErrorCode)) == set(ERROR_CODES)


def test_match_tool() -> None:
    assert match_tool("Get Weather", ["get_weather", "search"]) == ("get_weather", None)
    assert match_tool("get-weather", ["get_weather"]) == ("get_weather", None)
    assert match_tool("GetWeather", ["get_weather"]) == ("get_weather", None)
    assert match_tool("calculate", ["calculator", "search"]) == (None, "calculator")
    assert match_tool("web_search", ["search"]) == (None, "search")
    assert match_tool("Math", ["calculator"]) == (None, None)
    assert match_tool("anything_goes", None) == ("anything_goes", None)
    assert match_tool("two words", None) == (None, None)


def test_a_tool_whose_own_name_has_the_prefix_models_add_is_found_by_it() -> None:
    """``functions.`` is stripped from what a model writes (``functions.search`` is ``search``), but a tool
    may be named so itself (BFCL: ``functions.zero``); the grammar refused to offer such a tool at all."""
    tools = ["functions.zero", "functions.intersect"]
    assert match_tool("functions.zero", tools) == ("functions.zero", None)
    assert match_tool("`functions.intersect`", tools) == ("functions.intersect", None)
    assert match_tool("functions.search", ["search"]) == ("search", None)
    step = parse('Thought: x\nAction: functions.zero\nAction Input: {"f": "x"}', {t: {} for t in tools})
    assert [a.tool for a in step.actions] == ["functions.zero"]
    assert "functions.zero" in build_grammar("classic", {t: {} for t in tools})


def test_tools_may_be_a_mapping_tool_objects_or_openai_dicts() -> None:
    class FakeTool:
        def __init__(self, name: str, parameters: dict) -> None:
            self.name, self.parameters = name, parameters

    openai = [{"type": "function", "function": {"name": "search", "parameters": SCHEMAS["search"]}}]
    for tools in (SCHEMAS, [FakeTool("search", SCHEMAS["search"])], openai, ("search",), {"search": {}}):
        assert only_action(parse("Act: Search(query='x')", tools)).tool == "search"
    step = parse("Thought: hmm", [FakeTool("search", SCHEMAS["search"])])
    assert 'Action Input: {"query": "..."}' in step.error.message
    assert error_code(parse("Action: search\nAction Input: x", [])) == "unknown_tool"


def test_plain_functions_are_tools_by_their_name_and_arguments() -> None:
    def lookup_price(item: str, currency: str = "EUR") -> float:
        """The price of one item."""
        return 1.0

    def calculator(expression: str) -> str:
        return expression

    tools = [lookup_price, calculator]
    assert only_action(parse("Action: Lookup Price\nAction Input: apples", tools)).tool == "lookup_price"
    assert only_action(parse('Action Input: {"expression": "2+2"}', tools)).tool == "calculator"
    assert only_action(parse("Action: len\nAction Input: x", [len])).tool == "len"
    assert error_code(parse("Action: search\nAction Input: x", tools)) == "unknown_tool"


def test_bad_arguments_to_parse_itself_are_caller_errors() -> None:
    with pytest.raises(TypeError):
        parse(b"Action: search")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse("x", tools=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse("x", tools=[object()])  # type: ignore[list-item]


def test_an_internal_bug_becomes_an_error_step(monkeypatch: pytest.MonkeyPatch) -> None:
    import react_text.protocol.parser as parser_module

    def broken(*_args, **_kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(parser_module, "_step", broken)
    step = parse("Action: search\nAction Input: x", TOOLS)
    assert error_code(step) == "internal" and step.end == len(step.text)


def test_parse_is_deterministic() -> None:
    text = "Thought: x\nAction: search\nAction Input: {'query': 'x', 'n': True,}\nObservation: y"
    assert parse(text, TOOLS) == parse(text, TOOLS)


# --- the lenient JSON reader ------------------------------------------------------------------------

@pytest.mark.parametrize("text,value,repair", [
    ('{"a": 1}', {"a": 1}, None),
    ("{'a': 'it's'}", {"a": "it's"}, "single_quotes"),
    ('{"a": True, "b": None}', {"a": True, "b": None}, "python_literals"),
    ('{"a": [1, 2,],}', {"a": [1, 2]}, "trailing_comma"),
    ('{"a": 1, // note\n "b": /* x */ 2}', {"a": 1, "b": 2}, "comments"),
    ('{a: 1, b_c: "x"}', {"a": 1, "b_c": "x"}, "unquoted_keys"),
    ('{"expr": 2+2}', {"expr": "2+2"}, "unquoted_value"),
    ('{"a": {"b": 1}', {"a": {"b": 1}}, "closed_braces"),
    ('{“q”: “smart”}', {"q": "smart"}, "smart_quotes"),
    ('{"q"："x"，"n"：1}', {"q": "x", "n": 1}, "fullwidth_punctuation"),
    ('"\\u00e9\\ud83d\\ude00\\n"', "é😀\n", None),
])
def test_jsonish_reads_what_a_person_reads(text: str, value, repair) -> None:
    got = read_value(text, 0)
    assert got.value == value
    if repair:
        assert repair in got.repairs


@pytest.mark.parametrize("text,code", [
    ('{"a": "abc', "truncated"), ('{"a": 1,', "truncated"), ('{"a":', "truncated"), ("{", "truncated"),
    ('{"a" 1}', "syntax"), ("[" * 100, "too_deep"), ("/* open", "truncated"),
])
def test_jsonish_refuses_what_a_person_would_not_read(text: str, code: str) -> None:
    with pytest.raises(JsonishError) as info:
        read_value(text, 0)
    assert info.value.code == code


def test_jsonish_loads_and_call_args() -> None:
    assert loads('  {"a": [1, {"b": null}]}  ') == {"a": [1, {"b": None}]}
    with pytest.raises(JsonishError):
        loads('{"a": 1} trailing')
    got = read_call_args("'x', 5, key=True, other: [1, 2])", 0)
    assert [v for _, v in got.positional] == ["x", 5]
    assert got.keywords == {"key": True, "other": [1, 2]}
    assert got.end == len("'x', 5, key=True, other: [1, 2])")


# --- packaging: the parser must not need the engine's dependencies ----------------------------------

def test_import_needs_only_regex() -> None:
    code = (
        "import sys\n"
        "for name in ('jinja2', 'requests', 'llama_cpp'):\n"
        "    sys.modules[name] = None  # importing these now fails\n"
        "import react_text\n"
        "step = react_text.parse('Action: search\\nAction Input: x', ['search'])\n"
        "assert step.actions[0].tool == 'search', step\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_paper_json_may_hold_a_bracket_in_a_string_and_span_lines() -> None:
    turn = 'Thought 2: look it up\nAction 2: search[{"query": "see [1]",\n  "limit": 3}]\nObservation 2: made up'
    step = parse(turn, ["search"])
    assert step.error is None
    assert step.actions[0].args == {"query": "see [1]", "limit": 3}
    assert turn[:step.end].endswith("3}]")


@pytest.mark.parametrize("turn, answer", [
    (" The final answer is 68.04 kg.", "68.04 kg"),
    ("I multiplied them. So the final answer is: $\\boxed{5}$", "5"),
    ("Thus, the final answer is **Ottawa**.", "Ottawa"),
    (" 计算完成。最终答案是 42。", "42"),
    (" 这个转换是正确的，所以 Final Answer 是 16.09 km。", "16.09 km"),
])
def test_a_stated_final_answer_is_the_answer(turn: str, answer: str) -> None:
    # A model shown only call demos never saw a "Final Answer:" label and states its answer instead.
    step = parse(turn, ["search"])
    assert (step.final_answer, step.error) == (answer, None)
    assert "stated_answer" in step.repairs


@pytest.mark.parametrize("turn", [
    "I think the final answer is 5, but I should check.",  # inside a longer sentence: a plan, not an answer
    "What is the final answer? I need to search first.",
])
def test_final_answer_words_inside_a_sentence_are_not_an_answer(turn: str) -> None:
    step = parse(turn, ["search"])
    assert step.final_answer is None and step.error is not None and step.error.code == "no_action"


def test_a_prose_sentence_after_the_first_turn_is_offered_back_as_the_answer() -> None:
    # Shown its own sentence under the label, a small model copies that line; "Final Answer: ..." it copies as "...".
    said = "The weather in Oslo right now is not available."
    later = parse(" " + said, ["search"], n=2)
    assert later.error.code == "no_action" and f"Final Answer: {said}" in later.error.message
    assert "Action: search" in later.error.message  # the other way out stays open
    assert f"最终答案：{said}" in parse(" " + said, ["search"], n=2, dialect="zh").error.message
    first = parse(" " + said, ["search"], n=1)  # before any observation: no answer is offered
    assert first.error.code == "no_action" and said not in first.error.message
    long_plan = parse(" I will search.\nThen I will compute it.", ["search"], n=2)
    assert "I will search" not in long_plan.error.message
