"""The ``call_list`` check: after a turn's calls, the request's other calls asked for as the rest of a list."""

from __future__ import annotations

import json

import pytest

from react_text import tool_calls
from react_text.backends.scripted import ScriptedBackend
from react_text.fc.call_list import LIST_END_ODDS, list_ending
from react_text.grammar.gbnf import build_list_grammar, grammar_matches
from react_text.lexicon.messages import message

from test_shim import TOOLS, WEATHER_TURN, _user

LISTED = '    get_weather(city="Oslo"),\n    convert_currency(amount=20, source="EUR", target="USD"),\n]'
ON = "+call_list"


def _calls(out: dict) -> list[tuple[str, dict]]:
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in out["message"]["tool_calls"]]


def test_the_rest_of_the_list_follows_the_turns_call_in_order_from_one_prompt() -> None:
    backend = ScriptedBackend([WEATHER_TURN, LISTED], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris and Oslo, and 20 EUR in USD?"), TOOLS, backend=backend, checks=ON)
    assert _calls(out) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Oslo"}),
                           ("convert_currency", {"amount": 20, "source": "EUR", "target": "USD"})]
    assert out["more_calls"] == 2 and backend.remaining == 0
    listed = backend.calls[1]
    assert listed.prompt.endswith('[\n    get_weather(city="Paris"),\n')  # the turn's own call opens the list
    assert "The request: Weather in Paris and Oslo, and 20 EUR in USD?" in listed.prompt
    assert 'get_weather(city: str): Current weather for a city.' in listed.prompt
    assert grammar_matches(listed.grammar, LISTED) and grammar_matches(listed.grammar, "]")
    assert not grammar_matches(listed.grammar, '    forecast(days=3),\n]')  # only offered tools
    assert not grammar_matches(listed.grammar, 'get_weather(city="Oslo")]')  # one call a line


def test_a_closed_list_keeps_the_one_call_and_a_line_written_again_ends_the_list() -> None:
    closed = ScriptedBackend([WEATHER_TURN, "]"], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=closed, checks=ON)
    assert _calls(out) == [("get_weather", {"city": "Paris"})] and "more_calls" not in out
    again = '    get_weather(city="Paris"),\n    get_weather(city="Oslo"),\n]'
    backend = ScriptedBackend([WEATHER_TURN, again], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=backend,
                     checks=ON + ",-list_rest")  # list_rest would call Oslo from the request's list
    assert _calls(out) == [("get_weather", {"city": "Paris"})]


def test_kept_values_ends_the_list_at_a_call_that_swaps_a_request_value_for_one_from_nowhere() -> None:
    went_on = '    get_weather(city="Seattle"),\n    get_weather(city="Lisbon"),\n]'
    turn = WEATHER_TURN.replace("Paris", "Los Angeles")
    backend = ScriptedBackend([turn, went_on], supports_grammar=True)
    out = tool_calls(_user("Weather in Los Angeles and Seattle?"), TOOLS, backend=backend, checks=ON)
    assert [args["city"] for _, args in _calls(out)] == ["Los Angeles", "Seattle"]
    assert out["step_checks"] == ["kept_values"]
    backend = ScriptedBackend([turn, went_on], supports_grammar=True)
    out = tool_calls(_user("Weather in Los Angeles and Seattle?"), TOOLS, backend=backend,
                     checks=ON + ",-kept_values,-new_value,-demo_copy")  # Lisbon is also the demo call's city
    assert [args["city"] for _, args in _calls(out)] == ["Los Angeles", "Seattle", "Lisbon"]


def test_a_listed_call_that_passes_no_request_value_the_calls_before_did_not_ends_the_list() -> None:
    """``new_value``: the model lists a call of every function offered, or varies a call made (a flag, the
    values swapped); each passes nothing from the request that is not in a call already."""
    tools = [{"type": "function", "function": {"name": name, "description": f"A sculpture's {name}.",
              "parameters": {"type": "object", "properties": {
                  "material": {"type": "string"}, "size": {"type": "integer"}, "rush": {"type": "boolean"}},
                  "required": ["material"]}}} for name in ("price", "availability")]
    turn = ' The price.\nAction: price\nAction Input: {"material": "marble", "size": 3}'
    listed = ('    availability(material="marble"),\n    price(material="marble", size=3, rush=True),\n'
              '    price(material="granite", size=3),\n]')
    question = "What is the price of a marble sculpture 3 feet tall, and of a granite one?"
    backend = ScriptedBackend([turn, listed], supports_grammar=True)
    out = tool_calls(_user(question), tools, backend=backend, checks=ON)
    assert _calls(out) == [("price", {"material": "marble", "size": 3})] and out["step_checks"] == ["new_value"]
    backend = ScriptedBackend([turn, listed.replace('    availability(material="marble"),\n    price(material="marble", '
                                                    'size=3, rush=True),\n', "")], supports_grammar=True)
    out = tool_calls(_user(question), tools, backend=backend, checks=ON)
    assert [a["material"] for _, a in _calls(out)] == ["marble", "granite"]  # granite is new: it stands
    backend = ScriptedBackend([turn, listed], supports_grammar=True)
    out = tool_calls(_user(question), tools, backend=backend, checks=ON + ",-new_value,-added_options")
    assert len(_calls(out)) == 4


def test_a_listed_call_with_a_value_from_nowhere_is_left_out_and_the_list_read_on() -> None:
    listed = ('    convert_currency(amount=1234567, source="EUR", target="USD"),\n'
              '    get_weather(city="Oslo"),\n]')
    question = "Weather in Paris and Oslo, and 20 EUR in USD?"
    backend = ScriptedBackend([WEATHER_TURN, listed], supports_grammar=True)
    out = tool_calls(_user(question), TOOLS, backend=backend, checks=ON)
    assert [args.get("city") for _, args in _calls(out)] == ["Paris", "Oslo"] and out["step_checks"] == ["ungrounded"]
    backend = ScriptedBackend([WEATHER_TURN, listed], supports_grammar=True)
    out = tool_calls(_user(question), TOOLS, backend=backend, checks=ON + ",-ungrounded")
    assert len(_calls(out)) == 3


def test_the_list_holds_at_most_the_parallel_limit_and_a_named_choice_lists_that_tool_alone() -> None:
    cities = [f"City{i}" for i in range(10)]
    rest = "".join(f'    get_weather(city="{c}"),\n' for c in cities[1:]) + "]"
    turn = WEATHER_TURN.replace("Paris", cities[0])
    backend = ScriptedBackend([turn, rest], supports_grammar=True)
    out = tool_calls(_user(f"Weather in {', '.join(cities)}?"), TOOLS, backend=backend, checks=ON)
    assert [args["city"] for _, args in _calls(out)] == cities[:8]
    assert not grammar_matches(backend.calls[1].grammar, rest)  # room for 7 more lines, not 9
    named = {"type": "function", "function": {"name": "get_weather"}}
    backend = ScriptedBackend([WEATHER_TURN, "]"], supports_grammar=True)
    tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend, checks=ON, tool_choice=named)
    assert not grammar_matches(backend.calls[1].grammar, '    convert_currency(amount=1, source="EUR", target="USD"),\n]')


def test_a_chinese_request_is_asked_in_chinese_and_the_switch_needs_more_calls() -> None:
    turn = ' 先查北京。\nAction: get_weather\nAction Input: {"city": "北京"}'
    backend = ScriptedBackend([turn, '    get_weather(city="上海"),\n]'], supports_grammar=True)
    out = tool_calls(_user("北京和上海的天气？"), TOOLS, backend=backend, checks=ON, template="zh")
    assert [args["city"] for _, args in _calls(out)] == ["北京", "上海"]
    assert message("zh", "more_calls.list", functions="", question="")[:6] in backend.calls[1].prompt
    backend = ScriptedBackend([WEATHER_TURN, LISTED], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris and Oslo?"), TOOLS, backend=backend, checks=ON + ",-more_calls,-list_rest")
    assert _calls(out) == [("get_weather", {"city": "Paris"})] and backend.remaining == 1


@pytest.mark.parametrize("calls", [-1, "2"])
def test_the_list_grammar_refuses_a_bad_count(calls: object) -> None:
    with pytest.raises(Exception, match="calls"):
        build_list_grammar(TOOLS, calls=calls)  # type: ignore[arg-type]


def test_the_calls_come_back_in_the_order_the_request_names_them() -> None:
    """The model writes the second city first and lists the first after it: the client gets them as asked.
    A call whose values the request does not spell leaves the order as written."""
    turn = WEATHER_TURN.replace("Paris", "Oslo")
    backend = ScriptedBackend([turn, '    get_weather(city="Paris"),\n]'], supports_grammar=True)
    out = tool_calls(_user("Weather in Paris and in Oslo?"), TOOLS, backend=backend, checks=ON)
    assert [args["city"] for _, args in _calls(out)] == ["Paris", "Oslo"]
    listed = '    convert_currency(amount=20, source="EUR", target="USD"),\n]'
    backend = ScriptedBackend([turn, listed], supports_grammar=True)
    out = tool_calls(_user("20 EUR in USD, and the weather in Oslo?"), TOOLS, backend=backend, checks=ON)
    assert [name for name, _ in _calls(out)] == ["convert_currency", "get_weather"]


def test_a_listed_call_of_a_tool_the_request_names_anew_stands_with_the_same_values() -> None:
    """``new_value`` lets through a call that passes only values already passed when the request names its
    tool by a word no called tool's name has ("the price and the availability"): one value, two tools."""
    tools = [{"type": "function", "function": {"name": f"sculpture_{name}.get", "description": f"A sculpture's {name}.",
              "parameters": {"type": "object", "properties": {"material": {"type": "string"}},
                             "required": ["material"]}}} for name in ("price", "availability")]
    turn = ' The price.\nAction: sculpture_price.get\nAction Input: {"material": "marble"}'
    listed = '    sculpture_availability.get(material="marble"),\n]'
    asked = "What are the price and the availability of a marble sculpture?"
    out = tool_calls(_user(asked), tools, backend=ScriptedBackend([turn, listed], supports_grammar=True), checks=ON)
    assert [name for name, _ in _calls(out)] == ["sculpture_price.get", "sculpture_availability.get"]
    out = tool_calls(_user("What is the price of a marble sculpture?"), tools,
                     backend=ScriptedBackend([turn, listed], supports_grammar=True), checks=ON)
    assert [name for name, _ in _calls(out)] == ["sculpture_price.get"] and out["step_checks"] == ["new_value"]


def test_a_word_that_names_an_argument_passed_does_not_ask_for_another_tool() -> None:
    """"an initial speed of 20 m/s" names the ``initial_speed`` both tools take, not ``final_speed``: the listed
    call of it passes only values already passed, so ``new_value`` ends the list there."""
    params = {"type": "object", "required": ["initial_speed", "time"], "properties": {
        "initial_speed": {"type": "integer"}, "time": {"type": "integer"}}}
    tools = [{"type": "function", "function": {"name": name, "description": f"The {name}.", "parameters": params}}
             for name in ("displacement", "final_speed")]
    turn = ' The displacement.\nAction: displacement\nAction Input: {"initial_speed": 20, "time": 5}'
    listed = '    final_speed(initial_speed=20, time=5),\n]'

    def names(asked: str) -> list[str]:
        out = tool_calls(_user(asked), tools, backend=ScriptedBackend([turn, listed], supports_grammar=True),
                         checks=ON)
        return [name for name, _ in _calls(out)]

    assert names("The displacement of a car at an initial speed of 20 m/s after 5 s?") == ["displacement"]
    assert names("The displacement and the final speed of a car at 20 m/s after 5 s?") == [
        "displacement", "final_speed"]


def test_a_word_a_called_tools_description_holds_does_not_ask_for_another_tool() -> None:
    """"from store GameGeek" names the store ``geek.recommend`` describes; ``shop_store.recommend``'s name has
    "store" too, but the request asks the one tool: the listed call of the other passes only values already passed,
    so ``new_value`` ends the list there. Without the word in the first tool's description, the call stands."""
    def tools(described: str) -> list[dict]:
        return [{"type": "function", "function": {"name": name, "description": about, "parameters": {
            "type": "object", "properties": {"players": {"type": "integer"}}, "required": ["players"]}}}
            for name, about in (("geek.recommend", described), ("shop_store.recommend", "Games from the shop."))]

    turn = ' The games.\nAction: geek.recommend\nAction Input: {"players": 2}'
    listed = '    shop_store.recommend(players=2),\n]'
    asked = "Board games for 2 players from store GameGeek?"

    def names(described: str) -> list[str]:
        out = tool_calls(_user(asked), tools(described),
                         backend=ScriptedBackend([turn, listed], supports_grammar=True), checks=ON)
        return [name for name, _ in _calls(out)]

    assert names("Games from the GameGeek store.") == ["geek.recommend"]
    assert names("Games from GameGeek.") == ["geek.recommend", "shop_store.recommend"]


class _Odds(ScriptedBackend):
    """A scripted model that also reports next-token odds: ``closing(text)`` says how much weight it gives ``]``."""

    def __init__(self, turns: list[str], closing: object) -> None:
        super().__init__(turns, supports_grammar=True)
        self.closing = closing
        self.asked: list[str] = []

    def next_token_odds(self, prompt: str, options: object) -> tuple[float, ...]:
        assert tuple(options) == ("]", "    ")  # type: ignore[arg-type]
        self.asked.append(prompt)
        close = self.closing(prompt)  # type: ignore[operator]
        return close, 1.0 - close


def test_list_end_ends_the_list_where_the_model_gives_closing_it_more_than_its_share() -> None:
    """Greedy, the model writes a second call; the weight it gives ``]`` after the first says the list is done."""
    backend = _Odds([WEATHER_TURN, LISTED], closing=lambda text: 0.05)
    out = tool_calls(_user("Weather in Paris?"), TOOLS, backend=backend, checks="+list_end")
    assert _calls(out) == [("get_weather", {"city": "Paris"})] and out["step_checks"] == ["list_end"]
    assert backend.remaining == 1 and backend.asked[0].endswith('[\n    get_weather(city="Paris"),\n')
    backend = _Odds([WEATHER_TURN, LISTED], closing=lambda text: 0.05)
    out = tool_calls(_user("Weather in Paris and Oslo, and 20 EUR in USD?"), TOOLS, backend=backend)
    assert len(_calls(out)) == 3 and backend.asked == []  # off by default


def test_list_end_reads_the_odds_before_each_listed_line_and_keeps_the_lines_before() -> None:
    """Low odds of closing after the turn's call, high after the first listed line: that line stands, the
    next does not; at exactly the threshold the list goes on."""
    second = '    get_weather(city="Paris"),\n    get_weather(city="Oslo"),\n'

    def closing(text: str) -> float:
        return 0.5 if text.endswith(second) else LIST_END_ODDS

    backend = _Odds([WEATHER_TURN, LISTED], closing=closing)
    out = tool_calls(_user("Weather in Paris and Oslo, and 20 EUR in USD?"), TOOLS, backend=backend, checks="+list_end")
    assert _calls(out) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Oslo"})]
    assert out["step_checks"] == ["list_end"] and len(backend.asked) == 2
    assert list_ending(lambda text, options: (0.02, 0.98))("[") and not list_ending(lambda t, o: (0.0, 0.0))("[")


def test_the_real_model_reports_odds_that_tell_a_closed_list_from_an_open_one(qwen_backend: object) -> None:
    """llama.cpp in process: the weight on each option is a probability, and after a call list the model
    obviously has not finished (an open argument list) it gives ``]`` far less than after one it has."""
    odds = qwen_backend.next_token_odds  # type: ignore[attr-defined]
    asked = "Write the list [1, 2, 3] as a Python list, one item a line."
    head = qwen_backend.wrap_prompt(asked)  # type: ignore[attr-defined]
    done = odds(head + "[\n    1,\n    2,\n    3,\n", ("]", "    "))
    going = odds(head + "[\n    1,\n", ("]", "    "))
    assert all(0.0 <= p <= 1.0 for p in done + going) and sum(done) <= 1.0 + 1e-6
    assert done[0] / sum(done) > 10 * going[0] / sum(going)
    completed = qwen_backend.complete(head + "[\n    1,\n", max_tokens=4)  # type: ignore[attr-defined]
    assert completed.text  # the probe left the backend able to go on


def test_a_listed_call_of_a_tool_the_request_names_by_no_word_of_it_is_left_out() -> None:
    """``unnamed_tool``: "Paris" and "Oslo" are the request's, but nothing in it speaks of money; "20 EUR in
    USD" names the converter by its enum (the first test of this module)."""
    listed = '    convert_currency(amount=2, source="EUR", target="USD"),\n    get_weather(city="Oslo"),\n]'
    question = "Weather in Paris and Oslo, 2 days ahead?"
    backend = ScriptedBackend([WEATHER_TURN, listed], supports_grammar=True)
    out = tool_calls(_user(question), TOOLS, backend=backend, checks=ON + ",-ungrounded")
    assert _calls(out) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Oslo"})]
    assert out["step_checks"] == ["unnamed_tool"]
    backend = ScriptedBackend([WEATHER_TURN, listed], supports_grammar=True)
    out = tool_calls(_user(question), TOOLS, backend=backend, checks=ON + ",-ungrounded,-unnamed_tool")
    assert sorted(name for name, _ in _calls(out)) == ["convert_currency", "get_weather", "get_weather"]


def test_a_request_that_names_no_called_tool_by_its_words_leaves_every_listed_call_in() -> None:
    """``unnamed_tool`` reads words: a Chinese request may name a tool described in English in its own words
    ("欧元换成美元" for the converter), whether it names the turn's own call in Latin words ("weather") or not."""
    listed = '    convert_currency(amount=2, source="EUR", target="USD"),\n]'
    for question in ("巴黎的天气怎么样？再把2欧元换成美元。", "Paris 的 weather 怎么样？再把2欧元换成美元。"):
        backend = ScriptedBackend([WEATHER_TURN, listed], supports_grammar=True)
        out = tool_calls(_user(question), TOOLS, backend=backend, checks=ON + ",-ungrounded")
        assert [name for name, _ in _calls(out)] == ["get_weather", "convert_currency"], question
        assert "unnamed_tool" not in out.get("step_checks", [])


LAWSUITS = {"type": "function", "function": {"name": "lawsuits", "description": "Lawsuits against a company.",
            "parameters": {"type": "object", "required": ["company", "year"], "properties": {
                "company": {"type": "string"}, "year": {"type": "integer"},
                "case_type": {"type": "string", "description": "civil, criminal... Default: all."}}}}}


def test_a_listed_call_that_adds_options_to_a_call_made_is_left_out_and_the_list_read_on() -> None:
    """``added_options``: the list writes the turn's call again with ``case_type`` added, every value the same:
    those are that call's options (``own_options`` asks for them), not another call; Apple's call stands."""
    turn = ' The lawsuits tool.\nAction: lawsuits\nAction Input: {"company": "Google", "year": 2020}'
    listed = ('    lawsuits(company="Google", year=2020, case_type="civil"),\n'
              '    lawsuits(company="Apple", year=2020),\n]')
    question = "Find the civil lawsuits against Google and Apple in 2020."
    out = tool_calls(_user(question), [LAWSUITS], backend=ScriptedBackend([turn, listed], supports_grammar=True))
    assert _calls(out) == [("lawsuits", {"company": "Google", "year": 2020}),
                           ("lawsuits", {"company": "Apple", "year": 2020})]
    assert "added_options" in out["step_checks"]
    off = tool_calls(_user(question), [LAWSUITS], backend=ScriptedBackend([turn, listed], supports_grammar=True),
                     checks="-added_options")
    assert sorted(str(args.get("case_type")) for _, args in _calls(off)) == ["None", "None", "civil"]
