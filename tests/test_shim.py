"""The function-calling shim: OpenAI chat + tools in, OpenAI tool_calls out.

Conversions run on the scripted backend (it records every prompt), with the
real parser, templates and tools; one test drives the real SmolLM2 model.
"""

from __future__ import annotations

import json

import pytest

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.fc.folding import fold_messages
from react_text.fc.request import ShimRequestError, read_tool_choice
from react_text.fc.request import read_tools
from react_text.prompting.templates import load_template

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
        },
    },
}
CURRENCY = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "Convert an amount of money between currencies.",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number"},
                "source": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
                "target": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
            },
            "required": ["amount", "source", "target"],
        },
    },
}
TOOLS = [WEATHER, CURRENCY]

WEATHER_TURN = ' I need the weather first.\nAction: get_weather\nAction Input: {"city": "Paris"}'
CURRENCY_TURN = (
    ' Now the money.\nAction: convert_currency\nAction Input: {"amount": "20", "source": "EUR", "target": "USD"}'
)
END = " That covers the question.\nFinal Answer: done"
"""The step after a constrained turn's calls that ends the turn (``fc.next_calls``)."""


def _user(text: str) -> list[dict]:
    return [{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}]


def _tool_result(message: dict, *results: str) -> list[dict]:
    return [
        {"role": "tool", "tool_call_id": call["id"], "content": result}
        for call, result in zip(message["tool_calls"], results)
    ]


def test_two_tool_conversation_round_trip() -> None:
    backend = ScriptedBackend([
        WEATHER_TURN + "\nObservation: Rainy, 3 C\nFinal Answer: made up",  # invented tail is cut by the stop
        CURRENCY_TURN,
        " I have both results.\nFinal Answer: Sunny, 21 C in Paris; 20 EUR is 21.60 USD.",
    ])
    messages = _user("What's the weather in Paris, and how much is 20 EUR in USD?")

    first = tool_calls(messages, TOOLS, backend=backend)
    assert first["finish_reason"] == "tool_calls"
    message = first["message"]
    assert message["role"] == "assistant" and message["content"] is None
    (call,) = message["tool_calls"]
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert first["usage"]["total_tokens"] == first["usage"]["prompt_tokens"] + first["usage"]["completion_tokens"] > 0

    messages += [message, *_tool_result(message, "Sunny, 21 C")]
    second = tool_calls(messages, TOOLS, backend=backend)
    (call2,) = second["message"]["tool_calls"]
    assert call2["function"]["name"] == "convert_currency"
    # the schema says number: "20" was coerced
    assert json.loads(call2["function"]["arguments"]) == {"amount": 20, "source": "EUR", "target": "USD"}
    assert call2["id"] != call["id"]

    messages += [second["message"], *_tool_result(second["message"], "21.60 USD")]
    third = tool_calls(messages, TOOLS, backend=backend)
    assert third["finish_reason"] == "stop"
    assert third["message"] == {"role": "assistant", "content": "Sunny, 21 C in Paris; 20 EUR is 21.60 USD."}

    p1, p2, p3 = backend.prompts
    # each prompt only appends to the last: llama.cpp keeps its prefix cache while the client loops
    assert p2.startswith(p1) and p3.startswith(p2)
    assert "What's the weather in Paris" in p1 and "get_weather" in p1 and "convert_currency" in p1
    added = p2[len(p1):]
    assert "Action: get_weather" in added and "Observation: Sunny, 21 C" in added
    assert "Rainy" not in p2  # the model's invented observation never enters the scratchpad
    assert "Observation: 21.60 USD" in p3[len(p2):]
    assert p3.endswith("Thought:")
    assert all(c.stop and "\nObservation:" in c.stop for c in backend.calls)


def test_chat_models_get_the_first_label_inside_their_own_turn() -> None:
    backend = ScriptedBackend([WEATHER_TURN, " Done.\nFinal Answer: sunny"],
                              wrap=lambda text: f"<user>{text}</user><assistant>")
    messages = _user("Weather in Paris?")
    out = tool_calls(messages, TOOLS, backend=backend)
    tool_calls(messages + [out["message"], *_tool_result(out["message"], "Sunny")], TOOLS, backend=backend)
    p1, p2 = backend.prompts
    assert p1.startswith("<user>Be brief.") and p1.endswith("Weather in Paris?\n</user><assistant>Thought:")
    assert p2.startswith(p1) and "Observation: Sunny\nThought:" in p2


def test_few_shot_examples_for_the_clients_tools_replace_the_templates_own() -> None:
    episode = {"question": "Is it cold in Oslo?", "answer": "Yes, -3 C.", "thought": "It is -3 C.",
               "steps": [{"thought": "I need Oslo's weather.", "tool": "get_weather", "args": {"city": "Oslo"},
                          "observation": "-3 C"}]}
    backend = ScriptedBackend([WEATHER_TURN, WEATHER_TURN])
    tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend, examples=[episode])
    tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend)
    custom, default = backend.prompts
    assert "Question: Is it cold in Oslo?" in custom and "calculator" not in custom
    assert "Oslo" not in default and "calculator" not in default  # never a tool the client did not offer
    assert '{"city": "Lisbon"}' in default  # a call demo written from the client's own schema


def test_several_calls_in_one_turn_become_several_tool_calls() -> None:
    turn = (
        " Two lookups.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}\n"
        "Action: get_weather\nAction Input: {\"city\": \"Oslo\"}"
    )
    backend = ScriptedBackend([turn, turn, " Done.\nFinal Answer: Paris is warmer."])
    messages = _user("Is the weather warmer in Paris or Oslo today?")
    out = tool_calls(messages, TOOLS, backend=backend)
    calls = out["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"])["city"] for c in calls] == ["Paris", "Oslo"]
    assert len({c["id"] for c in calls}) == 2

    single = tool_calls(messages, TOOLS, backend=backend, parallel_tool_calls=False)
    assert len(single["message"]["tool_calls"]) == 1

    # results come back out of order; they are matched by tool_call_id
    results = [
        {"role": "tool", "tool_call_id": calls[1]["id"], "content": "Oslo: 2 C"},
        {"role": "tool", "tool_call_id": calls[0]["id"], "content": "Paris: 21 C"},
    ]
    final = tool_calls(messages + [out["message"], *results], TOOLS, backend=backend)
    assert final["message"]["content"] == "Paris is warmer."
    last = backend.prompts[-1]
    assert last.count("Action: get_weather") >= 2
    assert last.index("Paris: 21 C") < last.index("Oslo: 2 C")


def test_question_no_tool_fits_comes_back_as_plain_answer() -> None:
    backend = ScriptedBackend([" No tool is needed for this.\nFinal Answer: Gracias"])
    out = tool_calls(_user('Translate "thank you" into Spanish.'), TOOLS, backend=backend)
    assert out["finish_reason"] == "stop"
    assert out["message"] == {"role": "assistant", "content": "Gracias"}
    assert "tool_calls" not in out["message"]
    assert out["thought"] == "No tool is needed for this."
    assert len(backend.calls) == 1


def test_a_bare_thought_gets_its_answer_asked_for_under_the_answer_label() -> None:
    """Small models often stop after a thought; that thought is not the answer."""
    backend = ScriptedBackend([" I know this; no tool is needed.", " Bonjour"])
    out = tool_calls(_user("Translate 'good morning' into French."), TOOLS, backend=backend)
    assert out["message"] == {"role": "assistant", "content": "Bonjour"}
    assert out["thought"] == "I know this; no tool is needed."
    first, second = backend.prompts
    assert second == first + " I know this; no tool is needed.\nFinal Answer:"  # appends only

    # when the model has nothing to add, its prose is the answer: a decline is never turned into a call
    backend = ScriptedBackend(["Sure! The capital of France is Paris.", ""])
    prose = tool_calls(_user("What is the capital of France?"), TOOLS, backend=backend)
    assert prose["finish_reason"] == "stop"
    assert prose["message"]["content"] == "Sure! The capital of France is Paris."


def test_format_error_is_retried_with_the_error_as_observation() -> None:
    backend = ScriptedBackend([
        ' Check it.\nAction: get_weather\nAction Input: {"town": "Paris", "days": 2}',  # wrong argument names
        WEATHER_TURN,
    ])
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend)
    assert out["finish_reason"] == "tool_calls"
    assert json.loads(out["message"]["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert out["format_errors"] == ["bad_arguments"]
    first, second = backend.prompts
    retry = second[len(first):]
    assert "town" in retry and "city" in retry  # the model is told what was wrong and what is valid
    assert "\nObservation:" in retry and retry.endswith("Thought:")
    assert out["usage"]["prompt_tokens"] == sum(len(p.split()) for p in backend.prompts)


def test_retries_are_bounded_then_a_plain_message_explains() -> None:
    bad = " Hmm.\nAction: get_wether\nAction Input: {\"to\": \"Mars\"}"  # a near miss: worth a retry
    backend = ScriptedBackend([bad] * 5)
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend, max_retries=2)
    assert len(backend.calls) == 3
    assert out["finish_reason"] == "stop"
    assert "tool_calls" not in out["message"]
    assert "get_wether" in out["message"]["content"]
    assert len(out["format_errors"]) == 3


def test_reaching_for_a_tool_not_offered_is_a_decline() -> None:
    """'Action: web_lookup' with only get_weather offered: ask for the model's own answer, not a retry
    that would steer it onto get_weather."""
    backend = ScriptedBackend([
        ' I need to look up who wrote it.\nAction: web_lookup\nAction Input: {"query": "Pride and Prejudice"}',
        " Jane Austen",
    ])
    out = tool_calls(_user("Who wrote Pride and Prejudice?"), TOOLS, backend=backend)
    assert out["message"] == {"role": "assistant", "content": "Jane Austen"}
    assert out["finish_reason"] == "stop" and out["format_errors"] == []
    assert backend.prompts[1].endswith("Thought: I need to look up who wrote it.\nFinal Answer:")


def test_tool_choice_none_refuses_calls() -> None:
    backend = ScriptedBackend([WEATHER_TURN, " Answering from memory.\nFinal Answer: Probably mild."])
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend, tool_choice="none")
    assert out["message"]["content"] == "Probably mild."
    assert out["format_errors"] == ["call_forbidden"]
    assert "Do not call a tool" in backend.prompts[1]


def test_tool_choice_required_forces_a_call() -> None:
    backend = ScriptedBackend(["I think it is sunny.", " Fine.\nFinal Answer: sunny", WEATHER_TURN])
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend, tool_choice="required")
    assert out["finish_reason"] == "tool_calls"
    assert out["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert len(out["format_errors"]) == 2
    assert all(c.grammar is None for c in backend.calls)  # this backend has no grammar support


def test_named_tool_choice_rejects_other_tools_and_uses_a_grammar_when_it_can() -> None:
    backend = ScriptedBackend([WEATHER_TURN, CURRENCY_TURN, END], supports_grammar=True)
    choice = {"type": "function", "function": {"name": "convert_currency"}}
    out = tool_calls(_user("20 EUR in USD?"), TOOLS, backend=backend, tool_choice=choice)
    assert out["message"]["tool_calls"][0]["function"]["name"] == "convert_currency"
    assert out["format_errors"] == ["wrong_tool"]
    grammar = backend.calls[0].grammar
    assert grammar and "convert_currency" in grammar and "get_weather" not in grammar


def test_constrain_needs_a_grammar_backend() -> None:
    with pytest.raises(ValueError, match="grammar"):
        tool_calls(_user("hi"), TOOLS, backend=ScriptedBackend([]), constrain=True)
    backend = ScriptedBackend([WEATHER_TURN, END], supports_grammar=True)
    tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend, constrain=True)
    assert "get_weather" in backend.calls[0].grammar and "Final Answer" in backend.calls[0].grammar


def test_the_grammar_is_the_default_when_the_backend_takes_one() -> None:
    """constrain=None (the default) constrains exactly when the backend supports grammars; False turns it off."""
    backend = ScriptedBackend([WEATHER_TURN, END], supports_grammar=True)
    tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend)
    assert "get_weather" in backend.calls[0].grammar
    off = ScriptedBackend([WEATHER_TURN], supports_grammar=True)
    tool_calls(_user("Weather in Paris?"), TOOLS, backend=off, constrain=False)
    assert off.calls[0].grammar is None
    plain = ScriptedBackend([WEATHER_TURN])
    assert tool_calls(_user("Weather in Paris?"), TOOLS, backend=plain)["finish_reason"] == "tool_calls"
    assert plain.calls[0].grammar is None


def test_under_a_grammar_the_model_may_still_decline_every_tool() -> None:
    """tool_choice auto + constrain: the grammar lets the turn end after the thought; the shim then
    asks for the answer without the grammar, and the reply is plain content, not a forced call."""
    from react_text.grammar.gbnf import grammar_matches

    backend = ScriptedBackend([" No tool fits; I know this.", " Paris"], supports_grammar=True)
    out = tool_calls(_user("Capital of France?"), TOOLS, backend=backend, constrain=True)
    assert out["finish_reason"] == "stop" and out["message"]["content"] == "Paris"
    first, follow_up = backend.calls
    assert grammar_matches(first.grammar, " No tool fits; I know this.")
    assert follow_up.grammar is None and follow_up.prompt.endswith("Final Answer:")
    forced = ScriptedBackend([' x\nAction: get_weather\nAction Input: {"city": "Oslo"}', END], supports_grammar=True)
    tool_calls(_user("Weather?"), TOOLS, backend=forced, tool_choice="required")
    assert not grammar_matches(forced.calls[0].grammar, " No tool fits; I know this.")


def test_a_tool_the_grammar_cannot_carry_is_a_request_error() -> None:
    final_tool = {"type": "function", "function": {"name": "final_answer", "parameters": {
        "type": "object", "properties": {"answer": {"type": "string"}}}}}
    backend = ScriptedBackend([], supports_grammar=True)
    with pytest.raises(ShimRequestError, match="final_answer") as info:
        tool_calls(_user("hi"), [final_tool], backend=backend, constrain=True)
    assert info.value.param == "tools" and backend.calls == []


def test_a_client_tool_named_final_answer_is_still_a_call() -> None:
    """smolagents-style clients offer a final_answer tool and expect it to be called."""
    final_tool = {"type": "function", "function": {"name": "final_answer", "parameters": {
        "type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}}}
    backend = ScriptedBackend([' Done.\nAction: final_answer\nAction Input: {"answer": "42"}'])
    out = tool_calls(_user("6 times 7?"), [WEATHER, final_tool], backend=backend)
    (call,) = out["message"]["tool_calls"]
    assert call["function"]["name"] == "final_answer" and json.loads(call["function"]["arguments"]) == {"answer": "42"}


@pytest.mark.parametrize("template", ["json", "call", "paper", "zh"])
def test_other_dialects_round_trip(template: str) -> None:
    tpl = load_template(template)
    from react_text.protocol.dialects import format_action

    turn = " Look it up.\n" + format_action(tpl.dialect, "get_weather", {"city": "Paris"}, 1)
    backend = ScriptedBackend([turn, turn])
    messages = _user("Weather in Paris?")
    out = tool_calls(messages, TOOLS, backend=backend, template=template)
    assert json.loads(out["message"]["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    messages += [out["message"], *_tool_result(out["message"], "Sunny")]
    tool_calls(messages, TOOLS, backend=backend, template=tpl)
    p1, p2 = backend.prompts
    assert p2.startswith(p1) and "Sunny" in p2[len(p1):] and p2.endswith(tpl.turn_prefix(2))


def test_multi_turn_chat_is_folded_into_context() -> None:
    messages = [
        {"role": "system", "content": "You answer travel questions."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "a", "content": "Sunny, 21 C"},
        {"role": "assistant", "content": "It is sunny in Paris."},
        {"role": "user", "content": [{"type": "text", "text": "And in Oslo?"}]},
    ]
    conversation = fold_messages(messages)
    assert conversation.turns == ()  # the new user message starts a new question turn
    q = conversation.question
    assert conversation.instructions == "You answer travel questions." and "travel" not in q
    assert q.startswith("Earlier in this conversation:")
    assert "User: Weather in Paris?" in q and 'get_weather({"city": "Paris"}) and got: Sunny, 21 C' in q
    assert "Assistant: It is sunny in Paris." in q
    assert q.endswith("And in Oslo?") and q.index("Assistant:") < q.index("And in Oslo?")

    backend = ScriptedBackend([' Oslo now.\nAction: get_weather\nAction Input: {"city": "Oslo"}'])
    out = tool_calls(messages, TOOLS, backend=backend)
    assert json.loads(out["message"]["tool_calls"][0]["function"]["arguments"]) == {"city": "Oslo"}
    assert backend.prompts[0].startswith("You answer travel questions.\n\n")
    assert backend.prompts[0].endswith("And in Oslo?\nThought:")


def test_assistant_content_next_to_calls_is_the_thought_and_missing_results_are_marked() -> None:
    messages = _user("Weather in Paris and Oslo?") + [
        {"role": "assistant", "content": "Checking both cities.", "tool_calls": [
            {"id": "p", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "o", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
        {"role": "tool", "tool_call_id": "p", "content": "Sunny"},
    ]
    (turn,) = fold_messages(messages).turns
    assert turn.thought == "Checking both cities."
    assert turn.results == ("Sunny", "(no result was sent for this call)")


@pytest.mark.parametrize(
    "tools, fragment",
    [
        ({"name": "x"}, "must be a list"),
        (["get_weather"], "tools[0] must be an object"),
        ([{"type": "retrieval"}], "tools[0].type"),
        ([{"type": "function"}], "tools[0].function"),
        ([{"type": "function", "function": {"name": "get weather"}}], "function.name"),
        ([{"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}], "parameters.type"),
        ([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": []}}}],
         "properties"),
        ([{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}}}], "unknown parameters: b"),
        ([WEATHER, WEATHER], "duplicate tool name"),
    ],
)
def test_bad_tools_schemas_raise_clear_value_errors(tools: object, fragment: str) -> None:
    backend = ScriptedBackend([])
    with pytest.raises(ValueError) as info:
        tool_calls(_user("hi"), tools, backend=backend)  # type: ignore[arg-type]
    assert fragment in str(info.value)
    assert backend.calls == []  # nothing reached the model


def test_dict_type_parameters_are_accepted() -> None:
    (tool,) = read_tools([{"type": "function", "function": {
        "name": "lookup", "parameters": {"type": "dict", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}])
    assert tool.name == "lookup" and "q" in tool.parameters["properties"]


@pytest.mark.parametrize(
    "messages, fragment",
    [
        ([], "non-empty list"),
        ([{"role": "system", "content": "hi"}], "at least one 'user' message"),
        ([{"role": "robot", "content": "hi"}], "messages[0].role"),
        ([{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "x", "content": "1"}],
         "must follow an assistant message"),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}], "only text content"),
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}],
         "tool_calls[0].function.name"),
    ],
)
def test_bad_messages_raise_clear_value_errors(messages: list, fragment: str) -> None:
    with pytest.raises(ShimRequestError) as info:
        fold_messages(messages)
    assert fragment in str(info.value) and info.value.param


def test_bad_tool_choice() -> None:
    offered = read_tools(TOOLS)
    assert read_tool_choice(None, offered).mode == "auto"
    assert read_tool_choice({"type": "function", "function": {"name": "get_weather"}}, offered).name == "get_weather"
    for bad, fragment in [("always", "tool_choice must be"), ({"type": "function", "function": {"name": "nope"}},
                          "not in 'tools'")]:
        with pytest.raises(ValueError, match=fragment):
            read_tool_choice(bad, offered)
    with pytest.raises(ValueError, match="at least one tool"):
        read_tool_choice("required", ())


@pytest.mark.model
def test_real_smollm2_turn_has_openai_structure(smol_backend) -> None:
    """Structure only: a 135M model's choice is not the point, the shape of the reply is."""
    messages = _user("What's the weather like in Paris right now?")
    out = tool_calls(messages, TOOLS, backend=smol_backend, max_tokens=64, max_retries=0)
    message = out["message"]
    assert message["role"] == "assistant"
    assert out["finish_reason"] in ("tool_calls", "stop")
    assert out["usage"]["prompt_tokens"] > 100 and out["usage"]["completion_tokens"] > 0
    if out["finish_reason"] == "tool_calls":
        assert message["content"] is None and message["tool_calls"]
        for call in message["tool_calls"]:
            assert call["function"]["name"] in ("get_weather", "convert_currency")
            assert isinstance(json.loads(call["function"]["arguments"]), dict)
    else:
        assert isinstance(message["content"], str) and message["content"].strip()
        assert "tool_calls" not in message

    # forcing a call with the grammar always yields a schema-valid call
    forced = tool_calls(messages, TOOLS, backend=smol_backend, tool_choice="required", max_tokens=128, max_retries=1)
    assert forced["finish_reason"] == "tool_calls"
    for call in forced["message"]["tool_calls"]:
        args = json.loads(call["function"]["arguments"])
        assert call["function"]["name"] in ("get_weather", "convert_currency")
        if call["function"]["name"] == "get_weather":
            assert isinstance(args["city"], str)


def test_a_final_answer_gets_the_loops_checks_but_declining_a_call_stays_allowed() -> None:
    backend = ScriptedBackend([" I can work it out.\nFinal Answer: 1,375 * 22 * 45",
                               " Computed.\nFinal Answer: 1361250"])
    out = tool_calls(_user("What is 1,375 * 22 * 45?"), TOOLS, backend=backend, checks="+expression")
    assert out["message"]["content"] == "1361250"
    assert out["format_errors"] == ["guard:expression"]
    assert "expression, not its value" in backend.prompts[1]
    plain = tool_calls(_user("Who wrote Emma?"), TOOLS, backend=ScriptedBackend([" I know it.\nFinal Answer: Jane Austen"]))
    assert plain["message"]["content"] == "Jane Austen" and plain["format_errors"] == []


def test_an_answer_made_up_after_a_failed_call_is_sent_back_once() -> None:
    bad_call = ' I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris", "colour": "red"}'
    backend = ScriptedBackend([bad_call, " Fine.\nFinal Answer: It is sunny.", WEATHER_TURN])
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend)
    assert out["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert out["format_errors"] == ["bad_arguments", "guard:no_observation"]


# --- calls whose values come from nowhere (checks.grounding) -------------------------------

SPLIT = {
    "type": "function",
    "function": {
        "name": "split_bill",
        "description": "Split a bill evenly between people.",
        "parameters": {
            "type": "object",
            "properties": {"total": {"type": "number"}, "people": {"type": "integer"}},
            "required": ["total", "people"],
        },
    },
}
SPLIT_COPIED = ' I will split it.\nAction: split_bill\nAction Input: {"total": 2.5, "people": 12}'


def test_a_call_with_values_from_nowhere_is_corrected_and_the_answer_comes_as_content() -> None:
    backend = ScriptedBackend([SPLIT_COPIED, " No tool fits this.\nFinal Answer: Jane Austen"])
    out = tool_calls(_user("Who wrote Pride and Prejudice?"), [SPLIT, WEATHER], backend=backend)
    assert out["finish_reason"] == "stop" and out["message"]["content"] == "Jane Austen"
    assert not out["message"].get("tool_calls")
    assert out["format_errors"] == ["guard:ungrounded"] and len(backend.calls) == 2
    correction = backend.prompts[1][len(backend.prompts[0]):]
    assert '"2.5" and "12"' in correction and "split_bill" in correction


def test_the_repeat_of_a_corrected_call_is_returned_unless_it_copies_the_demo_call() -> None:
    """The values here are the demo call's own (``demo_copy``): repeated after the correction, no call is made
    of them; with the check off, the repeat is returned."""
    backend = ScriptedBackend([SPLIT_COPIED, SPLIT_COPIED])
    out = tool_calls(_user("Who wrote Pride and Prejudice?"), [SPLIT], backend=backend, checks="-demo_copy")
    (call,) = out["message"]["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"total": 2.5, "people": 12}
    out = tool_calls(_user("Who wrote Pride and Prejudice?"), [SPLIT], backend=ScriptedBackend([SPLIT_COPIED] * 3))
    assert not out["message"].get("tool_calls") and "example call" in out["message"]["content"]
    assert out["step_checks"] == ["demo_copy"]


def test_a_grounded_call_is_returned_at_once() -> None:
    backend = ScriptedBackend([' I will split it.\nAction: split_bill\nAction Input: {"total": 120, "people": 4}'])
    out = tool_calls(_user("Four of us share a bill of 120 dollars. How much each?"), [SPLIT], backend=backend)
    assert out["finish_reason"] == "tool_calls" and len(backend.calls) == 1
    (call,) = out["message"]["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"total": 120, "people": 4}


def test_a_value_from_an_earlier_tool_result_is_grounded() -> None:
    backend = ScriptedBackend([' Now split it.\nAction: split_bill\nAction Input: {"total": 86.4, "people": 3}'])
    messages = _user("Split the dinner bill between the three of us.") + [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
            "name": "get_weather", "arguments": json.dumps({"city": "Paris"})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "The bill came to 86.40 EUR."},
    ]
    out = tool_calls(messages, [SPLIT, WEATHER], backend=backend)
    assert out["finish_reason"] == "tool_calls" and len(backend.calls) == 1


def test_only_auto_calls_are_checked() -> None:
    backend = ScriptedBackend([SPLIT_COPIED])
    out = tool_calls(_user("Who wrote Pride and Prejudice?"), [SPLIT], backend=backend, tool_choice="required")
    assert out["finish_reason"] == "tool_calls" and len(backend.calls) == 1


# --- a first move that passes over the tool the question clearly asks for -------------------

def test_a_call_to_another_tool_is_questioned_once_naming_the_tool_that_fits() -> None:
    backend = ScriptedBackend([' Weather.\nAction: get_weather\nAction Input: {"city": "Oslo"}', CURRENCY_TURN])
    out = tool_calls(_user("Convert 20 EUR to USD, please: how much money is that?"), TOOLS, backend=backend)
    assert out["message"]["tool_calls"][0]["function"]["name"] == "convert_currency"
    assert out["format_errors"] == ["guard:tool_choice"]
    correction = backend.prompts[1][len(backend.prompts[0]):]
    assert "convert_currency" in correction and "not get_weather" in correction
    assert "20" not in correction and "USD" not in correction  # a tool and what it does, never a value
    # the next thought starts by naming the tool (a small model repeats itself after a correction alone)
    assert correction.endswith("Thought: convert_currency is the tool for this question.")


def test_an_answer_without_the_tool_that_fits_is_questioned_once_then_stands() -> None:
    made_up = " I know this.\nFinal Answer: It is sunny in Paris."
    backend = ScriptedBackend([made_up, made_up])
    out = tool_calls(_user("What is the current weather in Paris?"), TOOLS, backend=backend)
    assert out["message"]["content"] == "It is sunny in Paris." and out["format_errors"] == ["guard:tool_choice"]
    assert "get_weather" in backend.prompts[1][len(backend.prompts[0]):]


@pytest.mark.parametrize("question", [
    "Who wrote Pride and Prejudice?",  # the words point to no tool: a plain answer is right
    "Should I convert money or check the weather first?",  # both alike: only the model can judge
])
def test_no_clear_tool_means_no_question_asked(question: str) -> None:
    backend = ScriptedBackend([" Easy.\nFinal Answer: Jane Austen"])
    out = tool_calls(_user(question), TOOLS, backend=backend)
    assert out["format_errors"] == [] and len(backend.calls) == 1


def test_after_a_tool_result_the_choice_is_the_models() -> None:
    messages = _user("What is the current weather in Paris?") + [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
            "name": "get_weather", "arguments": json.dumps({"city": "Paris"})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 24 C."},
    ]
    backend = ScriptedBackend([" Done.\nFinal Answer: Sunny, 24 C."])
    out = tool_calls(messages, TOOLS, backend=backend)
    assert out["message"]["content"] == "Sunny, 24 C." and out["format_errors"] == []


# --- a first call when the question meets none of the tools ----------------------------------

def test_a_call_for_a_question_no_tool_meets_is_questioned_once() -> None:
    forced = ' Weather.\nAction: get_weather\nAction Input: {"city": "Pride and Prejudice"}'
    backend = ScriptedBackend([forced, " I know this.\nFinal Answer: Jane Austen"])
    out = tool_calls(_user("Who wrote the novel Pride and Prejudice?"), TOOLS, backend=backend)
    assert out["message"]["content"] == "Jane Austen" and out["format_errors"] == ["guard:no_fit"]
    correction = backend.prompts[1][len(backend.prompts[0]):]
    assert "does not mention get_weather" in correction and "call it again" in correction
    assert backend.prompts[1].endswith("Thought:")  # no lead: the model may know the answer


def test_a_call_made_again_after_the_no_fit_correction_goes_through() -> None:
    call = ' My mother.\nAction: get_weather\nAction Input: {"city": "Paris"}'
    backend = ScriptedBackend([call, call])
    out = tool_calls(_user("Is Paris or Oslo warmer today?"), TOOLS, backend=backend)
    assert out["finish_reason"] == "tool_calls" and out["format_errors"] == ["guard:no_fit"]


def test_no_fit_is_not_asked_after_another_correction_or_of_a_chinese_question() -> None:
    made_up = ' Weather.\nAction: get_weather\nAction Input: {"city": "sample city"}'
    backend = ScriptedBackend([made_up, made_up])
    out = tool_calls(_user("Is it warmer in Paris or Oslo?"), TOOLS, backend=backend)
    assert out["format_errors"] == ["guard:ungrounded"] and out["finish_reason"] == "tool_calls"
    backend = ScriptedBackend([WEATHER_TURN])
    out = tool_calls(_user("巴黎今天热吗？"), TOOLS, backend=backend)
    assert out["format_errors"] == [] and out["finish_reason"] == "tool_calls"


def test_the_choice_correction_speaks_chinese() -> None:
    backend = ScriptedBackend([" 我知道。\nFinal Answer: 晴天", WEATHER_TURN])
    out = tool_calls(_user("巴黎现在的天气 weather 怎么样？"), TOOLS, backend=backend, template="zh")
    assert out["format_errors"] == ["guard:tool_choice"]
    assert "请用问题里的值调用" in backend.prompts[1][len(backend.prompts[0]):]
    assert backend.prompts[1].endswith("这个问题要用 get_weather。")


def test_after_the_choice_correction_the_retry_is_held_to_a_call_or_a_decline() -> None:
    """Told which tool fits, a small model often answers from its own head again ("10.0"); under a grammar
    the retry can only call (or decline by reaching for a tool nobody offered), continuing the thought the
    correction began."""
    from react_text.grammar.gbnf import grammar_matches

    made_up = " I know this.\nFinal Answer: It is sunny in Paris."
    backend = ScriptedBackend([made_up, '\nAction: get_weather\nAction Input: {"city": "Paris"}', END],
                              supports_grammar=True)
    out = tool_calls(_user("What is the current weather in Paris?"), TOOLS, backend=backend)
    assert out["finish_reason"] == "tool_calls" and out["format_errors"] == ["guard:tool_choice"]
    retry = backend.calls[1].grammar
    assert backend.calls[1].prompt.endswith("get_weather is the tool for this question.")
    assert grammar_matches(retry, '\nAction: get_weather\nAction Input: {"city": "Paris"}')
    assert grammar_matches(retry, ' I call it.\nAction: get_weather\nAction Input: {"city": "Paris"}')
    assert not grammar_matches(retry, " I know this.\nFinal Answer: It is sunny in Paris.")
    assert not grammar_matches(retry, " I know this.")
    # it may still decline the way a small model does, reaching for a tool nobody offered
    assert grammar_matches(retry, ' It needs a forecast.\nAction: forecast\nAction Input: {"days": 3}')


def test_under_a_grammar_a_turn_may_hold_several_calls_unless_parallel_calls_are_off() -> None:
    from react_text.grammar.gbnf import grammar_matches

    turn = (' Two lookups.\nAction: get_weather\nAction Input: {"city": "Paris"}\n'
            'Action: get_weather\nAction Input: {"city": "Oslo"}')
    backend = ScriptedBackend([turn, END, turn], supports_grammar=True)
    messages = _user("Is the weather warmer in Paris or Oslo today?")
    out = tool_calls(messages, TOOLS, backend=backend)
    assert [json.loads(c["function"]["arguments"])["city"] for c in out["message"]["tool_calls"]] == ["Paris", "Oslo"]
    assert grammar_matches(backend.calls[0].grammar, turn)
    tool_calls(messages, TOOLS, backend=backend, parallel_tool_calls=False)
    assert not grammar_matches(backend.calls[2].grammar, turn) and backend.remaining == 0


@pytest.mark.model
def test_the_default_model_makes_parallel_calls_in_order(qwen_backend) -> None:
    """Qwen2.5-coder-0.5B under the grammar: a request for two independent things comes back as two
    tool_calls, in the order asked; a plain request as one. (The model writes Oslo first, after a retry, and
    lists Paris after it: ``call_list`` gives them back in the request's order.)"""
    messages = [{"role": "user", "content": "What is the weather in Paris and in Oslo right now?"}]
    out = tool_calls(messages, TOOLS, backend=qwen_backend, template="classic")
    cities = [json.loads(c["function"]["arguments"])["city"] for c in out["message"]["tool_calls"]]
    assert cities == ["Paris", "Oslo"]
    single = tool_calls(_user("What is the weather in Paris right now?"), TOOLS, backend=qwen_backend,
                        template="classic")
    assert [c["function"]["name"] for c in single["message"]["tool_calls"]] == ["get_weather"]


def test_a_turn_ends_at_the_first_call_written_again() -> None:
    """Allowed several calls, a small model sometimes loops (A, B, A, B, ... then a call cut short): the
    calls before the first repeat come back, in order; the loop and what follows it are dropped."""
    paris = '\nAction: get_weather\nAction Input: {"city": "Paris"}'
    oslo = '\nAction: get_weather\nAction Input: {"city": "Oslo"}'
    backend = ScriptedBackend([" Both." + paris + oslo + paris + oslo + paris
                               + '\nAction: get_weather\nAction Input: {"city": ""}'])
    out = tool_calls(_user("Weather in Paris and in Oslo?"), TOOLS, backend=backend)
    assert [json.loads(c["function"]["arguments"])["city"] for c in out["message"]["tool_calls"]] == ["Paris", "Oslo"]
