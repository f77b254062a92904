"""Calls whose values come from nowhere: ``checks.grounding`` and the loop's one correction.

The shim's side of the check is in test_shim.py.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from react_text.agent.decisions import Finish, Retry, RunTool
from react_text.agent.loop import Agent
from react_text.backends.scripted import ScriptedBackend
from react_text.cli.console import Console
from react_text.prompting.templates import load_template
from react_text.protocol.dialects import format_action, format_final
from react_text.checks.grounding import check_call, grounding_nudge, idle_operands, ungrounded_values
from react_text.tools.spec import tool

AUSTEN = "Who wrote Pride and Prejudice?"


# --- ungrounded_values -------------------------------------------------------------

DEMO = ['{"item": "sample item"}', '{"city": "Lyon", "stops": ["Dijon"]}', '{"date": "2031-03-04"}']
"""The arguments of the shown episodes: a string is reported only when it echoes them."""


def test_values_copied_from_nowhere_are_reported():
    assert ungrounded_values({"item": "sample item"}, None, ["How much is 20 EUR in USD?"], DEMO) == ("sample item",)
    assert ungrounded_values({"total": 2.5, "people": 12}, None, [AUSTEN]) == ("2.5", "12")


def test_a_string_of_the_models_own_words_is_no_copy():
    # a search query paraphrases the question: only a string that echoes the episodes is reported
    question = "How much money is in my bank account right now?"
    assert ungrounded_values({"query": "current balance"}, None, [question], DEMO) == ()
    assert ungrounded_values({"query": "sample item"}, None, [question], DEMO) == ("sample item",)
    assert ungrounded_values({"query": "sample item"}, None, [question]) == ()  # no episodes shown


def test_numbers_inside_a_string_compare_as_numbers():
    assert ungrounded_values({"expression": "56789 × 4321"}, None, ["计算 56,789 × 4,321 的结果。"], ["56789"]) == ()


APPLES = "How much do 12 apples cost, in euros?"


@pytest.mark.parametrize("expression", ["12 apples * 1 euro", "1 euro * 12", "12*1", "12 / 1", "12 ^ 1",
                                        "12 * 1.0", "12 + 0", "0 + 12", "12 - 0", "(1 * 12)"])
def test_an_operand_that_changes_nothing_and_comes_from_nowhere_is_reported(expression):
    """Issue 28: "12 apples * 1 euro" multiplies by a price the model does not have; the 12 being in the
    question does not ground the 1."""
    (missing,) = ungrounded_values({"expression": expression}, None, [APPLES])
    assert missing in ("1", "1.0", "0")
    assert idle_operands(expression) == (missing,)


@pytest.mark.parametrize("expression", ["12 * 0.40", "days + 1", "12 - 1", "1 / 4", "12 / 2", "12 * 100", "2 ** 10",
                                        "x * -1", "0 - 12", "(1 + 0.05) * 12", "2024-01-01", "1,000 * 12", "1e3 * 12"])
def test_an_operand_that_changes_the_result_is_the_models_own_reasoning(expression):
    assert idle_operands(expression) == ()
    assert ungrounded_values({"expression": expression}, None, [APPLES, "0.40"]) == ()


def test_an_idle_operand_the_conversation_holds_is_grounded():
    assert ungrounded_values({"expression": "12 * 1"}, None, ["Each of 12 boxes holds 1 kg. How many kg?"]) == ()
    assert ungrounded_values({"expression": "12 * 1"}, None, [APPLES, "1"]) == ()  # a result gave it


def test_each_value_is_reported_once_as_written():
    assert ungrounded_values({"a": 12, "b": 12, "c": "12"}, None, [AUSTEN]) == ("12",)
    assert ungrounded_values({"n": 123456789}, None, [AUSTEN]) == ("123456789",)  # not 1.23457e+08


@pytest.mark.parametrize("args,question", [
    ({"people": 4, "total": 120}, "Four of us had dinner for 120 dollars. How much each?"),
    ({"people": 3, "total": 90}, "三个人吃饭花了90元，每人多少？"),
    ({"people": 12}, "A dozen friends share the bill."),
    ({"total": 1250}, "The bill is 1,250 dollars."),
])
def test_numbers_written_in_words_or_with_separators_are_grounded(args, question):
    assert ungrounded_values(args, None, [question]) == ()


def test_a_percentage_may_be_written_as_the_number_or_as_a_fraction():
    question = "What is a 10% tip on a bill of 80 dollars?"
    assert ungrounded_values({"percent": 10, "bill": 80}, None, [question]) == ()
    assert ungrounded_values({"rate": 0.1, "bill": 80}, None, [question]) == ()


def test_enum_members_defaults_booleans_and_none_are_not_checked():
    schema = {"type": "object", "properties": {
        "target": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
        "kind": {"const": "spot"},
        "precision": {"type": "integer", "default": 2},
        "round": {"type": "boolean"},
    }}
    args = {"target": "GBP", "kind": "spot", "precision": 2, "round": True, "note": None}
    assert ungrounded_values(args, schema, ["How much is 20 EUR?"]) == ()
    # a value other than the default is checked
    assert ungrounded_values({"precision": 7}, schema, ["How much is 20 EUR?"]) == ("7",)


def test_a_zero_is_what_the_request_implies_and_is_not_checked():
    """BFCL simple_python_31: "started from rest" is ``initial_velocity=0``; refusing it sent the model to
    answer from its own head."""
    question = "Final velocity of an object that started from rest, accelerating at 9.8 m/s^2 for 5 seconds?"
    assert ungrounded_values({"initial_velocity": 0, "acceleration": 9.8, "time": 5}, {}, [question]) == ()
    assert ungrounded_values({"initial_velocity": 0.0, "time": 6}, {}, [question]) == ("6",)


def test_an_empty_value_under_an_argument_the_tool_does_not_take_is_not_checked():
    schema = {"type": "object", "properties": {"room": {"type": "string"}, "day": {"type": "string"}}}
    question = ["Is the cedar room free on 2031-03-14?"]
    assert ungrounded_values({"room": "cedar", "day": "2031-03-14", "attendees": 0}, schema, question) == ()
    assert ungrounded_values({"room": "cedar", "attendees": 12}, schema, question) == ("12",)  # not empty


def test_long_free_text_is_not_checked():
    message = "Dear team, the quarterly report is attached; please read it before Friday's meeting. Thanks!"
    assert len(message) > 80
    assert ungrounded_values({"to": "team", "body": message}, None, ["Send the report to the team."]) == ()


def test_a_value_found_in_an_observation_is_grounded():
    texts = ["Where is the nearest airport?", "The nearest city is Lyon (population 522,000)."]
    assert ungrounded_values({"city": "Lyon", "population": 522000}, None, texts) == ()
    assert ungrounded_values({"city": "Lyon"}, None, texts[:1], DEMO) == ("Lyon",)


def test_strings_are_grounded_by_any_word_digit_run_or_chinese_pair():
    assert ungrounded_values({"city": "北京市"}, None, ["北京今天天气怎么样？"]) == ()
    assert ungrounded_values({"city": "上海"}, None, ["北京今天天气怎么样？"], ['{"city": "上海"}']) == ("上海",)
    assert ungrounded_values({"title": "the Pride"}, None, [AUSTEN]) == ()
    assert ungrounded_values({"query": "authors"}, None, ["Which author wrote it?"]) == ()  # "autho..." stem
    assert ungrounded_values({"x": "+"}, None, [AUSTEN]) == ()  # nothing to look for


def test_a_date_is_grounded_when_its_parts_are_in_the_question():
    assert ungrounded_values({"date": "1969-07-20"}, None, ["What day of the week was 20 July 1969?"]) == ()
    assert ungrounded_values({"date": "2031-03-04"}, None, [AUSTEN], DEMO) == ("2031-03-04",)


def test_nested_arguments_and_lists_are_walked():
    schema = {"properties": {"trip": {"properties": {"mode": {"enum": ["car", "train"]}}},
                             "stops": {"items": {"type": "string"}}}}
    args = {"trip": {"mode": "train", "from": "Paris"}, "stops": ["Dijon", "Lyon"]}
    assert ungrounded_values(args, schema, ["By train from Paris to Lyon"], DEMO) == ("Dijon",)


def test_secrets_are_never_checked_nor_quoted():
    args = {"user": "ann", "password": "hunter2-secret", "Api-Key": "k-123456"}
    assert ungrounded_values(args, None, ["Log in as ann"]) == ()
    assert ungrounded_values({"pin": "9911"}, None, ["x"]) == ("9911",)
    assert ungrounded_values({"pin": "9911"}, None, ["x"], secret_fields=frozenset({"pin"})) == ()


def test_huge_numbers_do_not_break_the_check():
    # int() refuses more than 4300 digits and float() overflows on a huge int: neither may escape
    assert ungrounded_values({"q": "page 5"}, None, ["1" * 5000, "see 05"]) == ()
    assert ungrounded_values({"n": 10**400, "m": -(10**400)}, None, [AUSTEN]) == ("inf", "-inf")


def test_a_final_answer_tool_answers_directly():
    # its value is the model's own answer, never in the question: not questioned
    assert check_call("final_answer", {"answer": "Jane Austen"}, None, [AUSTEN], ['{"answer": "Jane Austen"}']) is None
    assert check_call("Final Answer", {"answer": 2.5}, None, [AUSTEN]) is None
    assert check_call("get_weather", {"days": 2.5}, None, [AUSTEN]) is not None


def test_the_correction_names_the_tool_and_values_in_the_prompt_language():
    en = grounding_nudge("split_bill", ("2.5", "12"), "en")
    assert en.code == "ungrounded" and "split_bill" in en.message and '"2.5" and "12"' in en.message
    assert "answer it directly" in en.message
    zh = grounding_nudge("split_bill", ("2.5", "12", "x", "y"), "zh")
    assert "“2.5”、“12”、“x”" in zh.message and "“y”" not in zh.message  # at most three values


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(args=JSON, schema=JSON, texts=st.lists(st.text(max_size=60), max_size=3))
def test_never_raises_on_any_json_like_arguments_and_schema(args, schema, texts):
    missing = ungrounded_values(args, schema if isinstance(schema, dict) else None, texts)
    assert isinstance(missing, tuple) and all(isinstance(v, str) for v in missing)
    assert len(set(missing)) == len(missing)


@settings(max_examples=100, deadline=None)
@given(value=st.text(min_size=1, max_size=30).filter(lambda s: s.strip()))
@example(value="\U00011f50")  # a Unicode digit that float() cannot read (found by Hypothesis)
def test_a_string_written_in_the_question_is_grounded(value):
    assert ungrounded_values({"q": value}, None, [f"Please look up {value} for me."]) == ()


# --- in the loop --------------------------------------------------------------------

def act(name: str, args, thought: str = "I will split the bill.") -> str:
    return f" {thought}\n{format_action('classic', name, args)}"


def final(answer: str) -> str:
    return f" I know it.\n{format_final('classic', answer)}"


@pytest.fixture
def ran() -> list:
    return []


@pytest.fixture
def tools(ran):
    @tool
    def split_bill(total: float, people: int) -> str:
        """Split a bill evenly between people."""
        ran.append((total, people))
        return f"{total / people:.2f} each"

    @tool
    def book_author(title: str) -> str:
        """Who wrote a book."""
        ran.append(title)
        return "Jane Austen" if "pride" in title.lower() else "unknown"

    return [split_bill, book_author]


COPIED = act("split_bill", {"total": 2.5, "people": 12})


def test_a_call_from_nowhere_is_corrected_once_then_a_repeat_runs(tools, ran):
    backend = ScriptedBackend([COPIED, COPIED, final("Jane Austen")])
    result = Agent(backend, tools, load_template("classic")).run(AUSTEN)
    assert result.status == "answered" and result.answer == "Jane Austen"
    corrected, repeated, _ = result.steps
    assert isinstance(corrected.decision, Retry) and corrected.decision.reason == "guard:ungrounded"
    assert '"2.5" and "12"' in corrected.observation_text and "split_bill" in corrected.observation_text
    assert corrected.observation_text in backend.prompts[1]
    assert isinstance(repeated.decision, RunTool) and ran == [(2.5, 12)]  # the repeat runs: one correction a run
    assert isinstance(result.steps[2].decision, Finish)


def test_after_the_correction_a_grounded_call_runs(tools, ran):
    backend = ScriptedBackend([COPIED, act("book_author", {"title": "Pride and Prejudice"}), final("Jane Austen")])
    result = Agent(backend, tools, load_template("classic")).run(AUSTEN)
    assert result.status == "answered"
    assert [type(s.decision).__name__ for s in result.steps] == ["Retry", "RunTool", "Finish"]
    assert ran == ["Pride and Prejudice"]


def test_a_grounded_call_runs_at_once(tools, ran):
    backend = ScriptedBackend([act("split_bill", {"total": 120, "people": 4}), final("30.00 each")])
    result = Agent(backend, tools, load_template("classic")).run("Four of us share a bill of 120 dollars.")
    assert [type(s.decision).__name__ for s in result.steps] == ["RunTool", "Finish"] and ran == [(120, 4)]


def test_switching_ungrounded_off_turns_the_check_off(tools, ran):
    backend = ScriptedBackend([COPIED, final("0.21 each")])
    agent = Agent(backend, tools, load_template("classic"), checks="-ungrounded")
    result = agent.run(AUSTEN)
    assert [type(s.decision).__name__ for s in result.steps] == ["RunTool", "Finish"]
    assert ran == [(2.5, 12)] and len(backend.calls) == 2


def test_a_chinese_question_gets_the_chinese_correction(tools, ran):
    backend = ScriptedBackend([COPIED, COPIED, final("简·奥斯汀")])
    result = Agent(backend, tools, load_template("classic")).run("《傲慢与偏见》的作者是谁？")
    text = result.steps[0].observation_text
    assert result.steps[0].decision.reason == "guard:ungrounded"
    assert text.startswith("你调用 split_bill 时用了") and "“2.5”、“12”" in text
    assert "appear in neither" not in backend.prompts[1]


def test_the_correction_never_quotes_a_secret(tmp_path: Path):
    @tool
    def login(user: str, pin: str) -> str:
        """Log in."""
        return "welcome"

    turn = act("login", {"user": "ann", "pin": "73195468"}, thought="I log in.")
    out = io.StringIO()
    agent = Agent(ScriptedBackend([turn, final("logged in")]), [login], load_template("classic"),
                  trace=tmp_path / "run.jsonl", on_event=Console(out, colour=False), redact=["pin"])
    result = agent.run("Log in as ann")
    assert result.status == "answered" and isinstance(result.steps[0].decision, RunTool)
    assert "73195468" not in (tmp_path / "run.jsonl").read_text() and "73195468" not in out.getvalue()  # 8 digits: no timing figure holds them by chance



# --- the loop: a first call that passes over the tool the question clearly names -------------

@pytest.fixture
def weather_tools(ran):
    @tool
    def current_weather(city: str) -> str:
        """Weather in a city right now."""
        ran.append(("weather", city))
        return f"Sunny in {city}."

    @tool
    def split_bill(total: float, people: int) -> str:
        """Split a bill evenly between people."""
        ran.append(("split", total, people))
        return f"{total / people:.2f} each"

    return [current_weather, split_bill]


WEATHER_Q = "What is the weather in Oslo right now?"


def test_a_first_call_to_another_tool_is_questioned_and_the_next_thought_names_the_tool(weather_tools, ran):
    backend = ScriptedBackend([act("split_bill", {"total": 4, "people": 2}), act("current_weather", {"city": "Oslo"}),
                               final("Sunny.")])
    result = Agent(backend, weather_tools, load_template("classic")).run(WEATHER_Q + " 4 2")
    questioned, called, _ = result.steps
    assert questioned.decision.reason == "guard:tool_choice" and ran == [("weather", "Oslo")]
    assert "current_weather" in questioned.observation_text and "not split_bill" in questioned.observation_text
    assert backend.prompts[1].endswith("Thought: current_weather is the tool for this question.")
    assert isinstance(called.decision, RunTool)


def test_after_a_result_or_once_questioned_the_choice_is_the_models(weather_tools, ran):
    backend = ScriptedBackend([act("current_weather", {"city": "Oslo"}), act("split_bill", {"total": 4, "people": 2}),
                               final("2.00 each")])
    result = Agent(backend, weather_tools, load_template("classic")).run(WEATHER_Q + " Then split 4 between 2.")
    assert [type(s.decision).__name__ for s in result.steps] == ["RunTool", "RunTool", "Finish"]
    backend = ScriptedBackend([act("split_bill", {"total": 4, "people": 2})] * 2 + [final("2.00 each")])
    result = Agent(backend, weather_tools, load_template("classic")).run(WEATHER_Q + " 4 2")
    assert [s.decision.reason if isinstance(s.decision, Retry) else type(s.decision).__name__
            for s in result.steps] == ["guard:tool_choice", "RunTool", "Finish"]


def test_a_question_that_names_no_tool_clearly_is_not_questioned(weather_tools, ran):
    backend = ScriptedBackend([act("split_bill", {"total": 4, "people": 2}), final("2.00 each")])
    result = Agent(backend, weather_tools, load_template("classic")).run("What do 4 and 2 make?")
    assert [type(s.decision).__name__ for s in result.steps] == ["RunTool", "Finish"]


def test_a_run_with_a_lead_replays_exactly_and_streams_as_it_prints(weather_tools, ran, tmp_path):
    from react_text.backends.replay import ReplayBackend

    script = [act("split_bill", {"total": 4, "people": 2}), act("current_weather", {"city": "Oslo"}), final("Sunny.")]
    path = tmp_path / "run.jsonl"
    Agent(ScriptedBackend(script), weather_tools, load_template("classic"), trace=path).run(WEATHER_Q + " 4 2")
    replay = ReplayBackend.from_trace(path)  # the trace's prompt deltas start after the lead the model was given
    again = Agent(replay, weather_tools, load_template("classic")).run(WEATHER_Q + " 4 2")
    assert again.status == "answered" and replay.remaining == 0
    shown = []
    for live in (True, False):
        out = io.StringIO()
        console = Console(out, colour=False, live=live)
        Agent(ScriptedBackend(script), weather_tools, load_template("classic"), on_event=console,
              on_token=console.token).run(WEATHER_Q + " 4 2")
        shown.append(out.getvalue())
    assert "Thought 2: current_weather is the tool for this question." in shown[1]
    live = "".join(line for line in shown[0].splitlines(True) if not line.startswith("── turn"))
    assert live.split("[answered")[0] == shown[1].split("[answered")[0]  # the live line grows from the lead


def test_check_choice_questions_only_a_move_that_leaves_out_the_clear_pick():
    from react_text.checks.grounding import check_choice

    pick = ("add_days", "The date a number of days after a given date.")
    assert check_choice(None, ("days_between",)) is None  # no clear pick: the model's choice
    assert check_choice(pick, ("add_days",)) is None
    other = check_choice(pick, ("days_between",))
    assert other.code == "tool_choice" and "not days_between" in other.message and "add_days" in other.message
    assert "Final Answer" in check_choice(pick, ()).message  # an answer with no call may stand, repeated
    assert "add_days" in check_choice(pick, (), "zh").message and "请" in check_choice(pick, (), "zh").message


def test_numbers_listed_without_spaces_are_each_in_the_request() -> None:
    """"3,4,5,2,8,5" is six numbers, not 345,285: a call passing the list is grounded in it."""
    asked = "Determine the median of the data points 3,4,5,2,8,5 and of 12,500 and 1,234,567."
    schema = {"type": "object", "properties": {"data": {"type": "array", "items": {"type": "number"}}}}
    assert ungrounded_values({"data": [3, 4, 5, 2, 8, 5]}, schema, [asked]) == ()
    assert ungrounded_values({"data": [12500, 1234567]}, schema, [asked]) == ()
    assert ungrounded_values({"data": [345285]}, schema, [asked]) == ("345285",)
