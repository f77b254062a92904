"""The loop on the scripted backend: every way a run ends, every fault it absorbs.

The parser, templates and tools are the real ones; only the model is scripted.
"""

from __future__ import annotations

import re
import threading
from dataclasses import replace as replace_state

import pytest

from react_text.backends.base import BackendError
from react_text.backends.scripted import ScriptedBackend
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.decisions import Finish, Retry, RunTool, Stop
from react_text.agent.loop import Agent
from react_text.agent.policy import advance, check_limits, decide, fingerprint, kept_text
from react_text.agent.results import STATUSES, StepRecord
from react_text.agent.state import Limits, RunState
from react_text.protocol.parser import parse
from react_text.prompting.templates import load_template
from react_text.tools.spec import tool
from react_text.types import Action, Observation, Step


# --- helpers -----------------------------------------------------------------

def act(tool_name: str, args, thought: str = "I should use a tool.") -> str:
    """A model turn (the text after "Thought:") calling one tool, in the classic dialect."""
    return f" {thought}\n{format_action('classic', tool_name, args)}"


def final(answer: str, thought: str = "I know the answer now.") -> str:
    return f" {thought}\n{format_final('classic', answer)}"


class Calls:
    """Counts tool calls (tools run in worker threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.log: list[tuple[str, object]] = []

    def add(self, name: str, value: object) -> None:
        with self.lock:
            self.log.append((name, value))

    def count(self, name: str) -> int:
        return sum(1 for n, _ in self.log if n == name)


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def tools(calls: Calls):
    @tool
    def multiply(a: int, b: int) -> int:
        """Multiply two integers."""
        calls.add("multiply", (a, b))
        return a * b

    @tool
    def lookup(query: str) -> str:
        """Look a word up in a tiny dictionary."""
        calls.add("lookup", query)
        return {"cat": "a small feline", "dog": "a loyal canine"}.get(query.lower(), f"no entry for {query}")

    return [multiply, lookup]


@pytest.fixture(scope="module")
def template():
    return load_template("classic")


def still_unlabelled(thought: str) -> list[str]:
    """A turn that stops after its thought, and the reply when the loop asks it to go on
    (``policy.wants_label``): still no action and no answer, so the turn is a format error."""
    return [thought, ""]


NOT_GROUNDED = "-ungrounded"
"""For tests of tool faults, whose made-up arguments ("1") the grounding check would question first."""


def make_agent(turns, tools, template, limits=Limits(), **kw):
    backend = kw.pop("backend", None) or ScriptedBackend(turns)
    return Agent(backend, tools, template, limits=limits, **kw), backend


# --- answered, and how the scratchpad grows ---------------------------------

def test_two_step_run_answers_with_real_observation(tools, template, calls):
    agent, backend = make_agent(
        [act("multiply", {"a": "37", "b": 91}), final("3379")], tools, template
    )
    result = agent.run("What is 37 * 91?")
    assert result.status == "answered" and result.ok
    assert result.answer == "3379"
    assert calls.log == [("multiply", (37, 91))]  # "37" coerced to 37 by the tools layer
    first = result.steps[0]
    assert isinstance(first.decision, RunTool) and first.action.tool == "multiply"
    assert first.observation is not None and first.observation.ok and first.observation.text == "3367"
    assert "3367" in backend.prompts[1]
    assert result.totals.steps == 2
    assert result.totals.completion_tokens == sum(s.completion_tokens for s in result.steps) > 0


def test_prompt_only_appends_kept_turn_and_observation(tools, template):
    agent, backend = make_agent(
        [act("lookup", {"query": "cat"}), act("multiply", {"a": 6, "b": 7}), final("42")], tools, template
    )
    result = agent.run("Two things")
    assert result.status == "answered"
    p = backend.prompts
    assert p[0] == template.render("Two things", list(agent.tools.values()))
    for n in (1, 2):
        rec = result.steps[n - 1]
        assert p[n].startswith(p[n - 1] + rec.kept)
        assert p[n] == p[n - 1] + rec.kept + template.observation(rec.observation_text, n)
    # The kept turn is exactly what the model wrote, minus trailing whitespace.
    assert result.steps[0].kept == act("lookup", {"query": "cat"}).rstrip()


def test_wrap_prompt_applied_once_at_the_start(tools, template):
    backend = ScriptedBackend([act("multiply", {"a": 2, "b": 3}), final("6")],
                              wrap=lambda p: f"<|user|>{p}<|end|><|assistant|>")
    agent, _ = make_agent(None, tools, template, backend=backend)
    assert agent.run("2*3?").status == "answered"
    assert all(p.startswith("<|user|>") for p in backend.prompts)
    assert backend.prompts[1].count("<|user|>") == 1
    assert backend.prompts[1].startswith(backend.prompts[0])


def test_stop_sequences_and_turn_budget_are_passed(tools, template):
    agent, backend = make_agent([final("ok")], tools, template, limits=Limits(max_turn_tokens=77))
    agent.run("q")
    call = backend.calls[0]
    assert call.stop == tuple(template.stop)
    assert "\nObservation:" in call.stop
    assert call.max_tokens == 77
    assert call.temperature == 0.0 and call.grammar is None


def test_hallucinated_observation_is_cut_by_stop_and_never_reaches_the_prompt(tools, template, calls):
    invented = act("multiply", {"a": 2, "b": 2}) + "\nObservation: 5\nThought: done\nFinal Answer: 5"
    agent, backend = make_agent([invented, final("4")], tools, template)
    result = agent.run("2*2?")
    assert result.answer == "4"
    assert "Observation: 5" not in backend.prompts[1]
    assert "Observation: 4" in backend.prompts[1]


def test_untrusted_tail_dropped_by_parser_when_stop_does_not_fire(tools, template, calls):
    # No observation label (so no stop sequence fires), but a made-up final answer after the action.
    sneaky = act("multiply", {"a": 3, "b": 3}) + "\nFinal Answer: 10"
    agent, backend = make_agent([sneaky, final("9")], tools, template)
    result = agent.run("3*3?")
    assert result.status == "answered" and result.answer == "9"
    assert calls.count("multiply") == 1
    assert "Final Answer: 10" not in backend.prompts[1]
    assert result.steps[0].kept == act("multiply", {"a": 3, "b": 3})


def test_multi_action_turn_runs_only_the_first(tools, template, calls):
    two = act("lookup", {"query": "dog"}) + "\n" + format_action("classic", "multiply", {"a": 1, "b": 2})
    agent, backend = make_agent([two, final("a loyal canine")], tools, template)
    result = agent.run("What is a dog?")
    assert result.status == "answered"
    assert calls.log == [("lookup", "dog")]
    assert "multiply" not in result.steps[0].kept
    assert backend.prompts[1].endswith(
        result.steps[0].kept + template.observation("a loyal canine", 1)
    )


# --- every termination path ---------------------------------------------------

def test_max_steps(tools, template):
    turns = [act("multiply", {"a": i, "b": 2}) for i in range(10)]
    agent, backend = make_agent(turns, tools, template, limits=Limits(max_steps=3))
    result = agent.run("loop forever")
    assert result.status == "max_steps"
    assert len(backend.calls) == 3 and len(result.steps) == 3
    assert "3 steps" in result.answer and "4" in result.answer  # last observation 2*2


def test_max_tokens(tools, template):
    turns = [act("multiply", {"a": i, "b": 2}) for i in range(10)]
    first = template.render("q", tools)
    budget = len(first.split()) + 5  # the first prompt nearly uses it up
    agent, backend = make_agent(turns, tools, template, limits=Limits(max_total_tokens=budget))
    result = agent.run("q")
    assert result.status == "max_tokens"
    assert len(backend.calls) == 1
    assert backend.calls[0].max_tokens <= budget
    assert str(budget) in result.reason


def test_timeout_with_injected_clock(tools, template):
    now = [0.0]

    def clock() -> float:
        return now[0]

    def slow_turn(prompt: str) -> str:
        now[0] += 50.0  # each model turn "takes" 50 s
        return act("multiply", {"a": len(prompt) % 7, "b": 3})

    agent, backend = make_agent([slow_turn] * 10, tools, template,
                                limits=Limits(timeout_s=120), clock=clock)
    result = agent.run("q")
    assert result.status == "timeout"
    assert len(backend.calls) == 3  # 50, 100 (< 120: go on), 150 → stop
    assert result.totals.wall_seconds == 150.0
    assert result.totals.model_seconds == 150.0


def test_no_progress_nudges_then_stops(tools, template, calls):
    same = act("lookup", {"query": "cat"})
    agent, backend = make_agent([same, same, same, final("x")], tools, template)
    result = agent.run("What is a cat?")
    assert result.status == "no_progress"
    assert calls.count("lookup") == 1  # the repeat is answered from memory, not re-run
    nudge = result.steps[1].decision
    assert isinstance(nudge, Retry) and nudge.reason == "no_progress"
    assert "You already called lookup" in backend.prompts[2] and "a small feline" in backend.prompts[2]
    assert len(backend.calls) == 3
    assert "a small feline" in result.answer


def test_after_a_repeat_the_next_thought_starts_from_the_short_result(tools, template, calls):
    same = act("lookup", {"query": "cat"})
    agent, backend = make_agent([same, same, final("a small feline")], tools, template)
    result = agent.run("What is a cat?")
    assert result.status == "answered" and calls.count("lookup") == 1
    shown = result.steps[0].observation_text.strip()
    assert "\n" not in shown and backend.prompts[2].endswith(f"I already have the result: {shown}")


def test_repeat_after_new_call_is_nudged_again_not_stopped(tools, template, calls):
    a = act("lookup", {"query": "cat"})
    b = act("lookup", {"query": "dog"})
    agent, _ = make_agent([a, a, b, a, final("done")], tools, template)
    result = agent.run("What are a cat and a dog?")
    assert result.status == "answered"
    assert [type(s.decision).__name__ for s in result.steps] == ["RunTool", "Retry", "RunTool", "Retry", "Finish"]


def test_format_errors_stop_after_the_cap(tools, template):
    prose = " I think the answer is probably something."
    agent, backend = make_agent(still_unlabelled(prose) * 5, tools, template, limits=Limits(max_format_errors=3))
    result = agent.run("q")
    assert result.status == "format_errors"
    assert len(backend.calls) == 6  # each unusable turn: the turn, and once asked to go on
    # Each error message was shown to the model as the observation.
    err = result.steps[0].step.error
    assert err is not None and err.message in backend.prompts[2]
    assert result.answer.strip()


def test_format_error_then_recovery(tools, template):
    agent, backend = make_agent([*still_unlabelled(" just chatting"), final("fine")], tools, template,
                                checks="-no_observation")
    result = agent.run("q")
    assert result.status == "answered" and result.answer == "fine"
    assert isinstance(result.steps[0].decision, Retry)
    assert result.steps[0].decision.reason.startswith("format_error:")


def test_unknown_tool_error_names_the_valid_tools(tools, template):
    agent, backend = make_agent([act("calculate", {"x": 1}), final("ok")], tools, template,
                                checks="-no_observation")
    result = agent.run("q")
    assert result.status == "answered"
    shown = result.steps[0].observation_text
    assert "multiply" in shown and "lookup" in shown


def test_a_call_to_a_tool_offered_nowhere_gets_one_no_fit_correction_and_lead(tools, template):
    email = act("send_email", {"to": "landlord"}, "I must send an email.")
    agent, backend = make_agent([email, final("I cannot send emails.", " I cannot send it."), email, email],
                                tools, template)
    result = agent.run("Send an email to my landlord.")
    assert result.status == "answered" and result.answer == "I cannot send emails."
    first = result.steps[0].decision
    assert isinstance(first, Retry) and first.reason == "guard:no_fit"
    assert "none of your tools (multiply, lookup)" in first.observation and "Action" not in first.observation
    assert backend.prompts[1].endswith("None of my tools can do that, so")
    assert len(backend.calls) == 2  # told to answer without a tool, the answer is not asked for a tool again


def test_a_first_call_when_the_question_meets_no_tool_is_questioned_once(template):
    @tool
    def item_price(item: str) -> str:
        """The shop price of an item."""
        return f"no item {item!r}"

    forced = act("item_price", {"item": "Oslo"})
    agent, backend = make_agent([forced, final("I cannot tell the weather."), forced], [item_price], template)
    result = agent.run("What is the weather in Oslo right now?")
    assert result.status == "answered" and result.answer == "I cannot tell the weather."
    first = result.steps[0].decision
    assert isinstance(first, Retry) and first.reason == "guard:no_fit" and "item_price" in first.observation
    assert len(backend.calls) == 2  # the answer without a tool is not asked for a tool again


def test_a_refusal_right_after_a_failed_tool_names_the_tools_not_tried(template):
    @tool
    def item_price(item: str) -> str:
        """The price of an item on a bill."""
        raise ValueError(f"no item {item!r}")

    @tool
    def split_bill(total: float, people: int) -> str:
        """Split a bill evenly."""
        return f"{total / people:g} each"

    turns = [act("item_price", {"item": "dinner"}), final("I cannot work that out."),
             act("split_bill", {"total": 153, "people": 3}), final("51 each")]
    agent, backend = make_agent(turns, [item_price, split_bill], template, checks="+after_failure")
    result = agent.run("Three of us share a bill of 153 euros. What does each pay?")
    assert result.status == "answered" and result.answer == "51 each"
    nudge = result.steps[1].decision
    assert isinstance(nudge, Retry) and nudge.reason == "guard:after_failure"
    assert "you have not tried split_bill" in nudge.observation


def test_a_refusal_after_a_search_or_with_every_tool_tried_stands(tools, template):
    agent, _ = make_agent([act("lookup", {"query": "emu"}), final("I cannot find it.")], tools, template)
    assert agent.run("What is an emu?").answer == "I cannot find it."


def test_the_no_fit_correction_fires_once_then_an_unknown_tool_is_a_format_error(tools, template):
    email = act("send_email", {"to": "landlord"})
    agent, _ = make_agent([email, email, final("done")], tools, template, checks="-no_observation")
    result = agent.run("Send an email to my landlord.")
    reasons = [r.decision.reason for r in result.steps if isinstance(r.decision, Retry)]
    assert reasons == ["guard:no_fit", "format_error:unknown_tool"]


def test_a_misspelt_or_copied_tool_is_no_decline(tools, template):
    agent, _ = make_agent([act("lookupp", {"query": "cat"}), final("ok")], tools, template,
                          checks="-no_observation")
    result = agent.run("What is a cat?")
    assert result.steps[0].decision.reason == "format_error:unknown_tool"
    assert "Did you mean lookup?" in result.steps[0].observation_text
    state = RunState(tool_names=("multiply", "lookup"), example_tools=frozenset({"calculator"}))
    step = parse(act("calculator", {"expression": "2*3"}), [t for t in tools])
    assert decide(state, step).reason == "format_error:unknown_tool"


def test_tool_failures_stop_after_retries(template, calls):
    @tool
    def flaky(n: int) -> str:
        """Always fails."""
        calls.add("flaky", n)
        raise RuntimeError(f"service down ({n})")

    turns = [act("flaky", {"n": i}) for i in range(10)]
    agent, backend = make_agent(turns, [flaky], template, limits=Limits(max_tool_retries=2), checks="-ungrounded")
    result = agent.run("q")
    assert result.status == "tool_failures"
    assert calls.count("flaky") == 3  # first failure + 2 retries
    assert len(backend.calls) == 3
    assert "service down (2)" in result.answer


def test_backend_error_status(tools, template):
    agent, _ = make_agent([act("multiply", {"a": 1, "b": 1}), BackendError("server said 500")], tools, template)
    result = agent.run("q")
    assert result.status == "backend_error"
    assert "server said 500" in result.answer and len(result.steps) == 1


def test_script_exhausted_is_a_backend_error(tools, template):
    agent, _ = make_agent([], tools, template)
    result = agent.run("q")
    assert result.status == "backend_error" and "exhausted" in result.answer


def test_interrupted_in_model_turn(tools, template):
    agent, _ = make_agent([act("multiply", {"a": 1, "b": 5}), KeyboardInterrupt()], tools, template)
    result = agent.run("What is 1 * 5?")
    assert result.status == "interrupted"
    assert len(result.steps) == 1 and "5" in result.answer


def test_interrupted_in_tool(template):
    @tool
    def boom(x: str) -> str:
        """Simulates Ctrl-C while the tool runs."""
        raise KeyboardInterrupt

    agent, _ = make_agent([act("boom", {"x": "1"})], [boom], template, checks=NOT_GROUNDED)
    result = agent.run("q")
    assert result.status == "interrupted"


def test_gave_up_after_two_empty_turns(tools, template):
    agent, backend = make_agent(["", "   ", final("late")], tools, template)
    result = agent.run("q")
    assert result.status == "gave_up"
    assert len(backend.calls) == 2 and result.answer.strip()


def test_every_status_is_documented():
    import react_text.agent.results as results

    for status in STATUSES:
        assert f"``{status}``" in results.__doc__


# --- faults turned into observations ----------------------------------------

def test_tool_raising_becomes_error_observation(template):
    @tool
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        return a / b

    agent, backend = make_agent([act("divide", {"a": 1, "b": 0}), final("undefined")], [divide], template)
    result = agent.run("1/0?")
    assert result.status == "answered"
    obs = result.steps[0].observation
    assert obs is not None and not obs.ok and obs.code == "tool_error"
    assert "ZeroDivisionError" in backend.prompts[1]
    assert result.steps[0].observation_text.startswith("Error (tool_error)")


def test_hanging_tool_times_out(template):
    release = threading.Event()

    @tool
    def hang(x: str) -> str:
        """Never returns on its own."""
        release.wait(5)
        return "late"

    agent, backend = make_agent([act("hang", {"x": "1"}), final("gave up waiting")], [hang], template,
                                limits=Limits(tool_timeout_s=0.2), checks="-ungrounded")
    try:
        result = agent.run("q")
    finally:
        release.set()
    assert result.status == "answered"
    obs = result.steps[0].observation
    assert obs is not None and obs.code == "timeout"
    assert "Error (timeout)" in backend.prompts[1]


def test_megabyte_result_is_truncated(template):
    @tool
    def dump(x: str) -> str:
        """Returns far too much."""
        return "y" * 3_000_000

    agent, backend = make_agent([act("dump", {"x": "1"}), final("too big")], [dump], template,
                                limits=Limits(max_observation_chars=500), checks="-ungrounded")
    result = agent.run("q")
    obs = result.steps[0].observation
    assert obs is not None and obs.truncated
    assert len(obs.text) < 700
    assert len(backend.prompts[1]) - len(backend.prompts[0]) < 1000


def test_bad_arguments_become_observation(tools, template):
    agent, backend = make_agent([act("multiply", {"a": "many", "b": 2}), final("?")], tools, template,
                                checks=NOT_GROUNDED)
    result = agent.run("q")
    obs = result.steps[0].observation
    assert obs is not None and obs.code == "bad_arguments"
    assert "a" in result.steps[0].observation_text


def test_cut_off_action_is_refused_as_truncated(tools, template, calls):
    long_thought = " ".join(["word"] * 30)
    cut = act("lookup", "cat and then some more words here", thought=long_thought)
    agent, backend = make_agent([cut, final("ok")], tools, template, limits=Limits(max_turn_tokens=36))
    result = agent.run("q")
    assert backend.calls[0].max_tokens == 36
    assert result.steps[0].finish_reason == "length"
    assert result.steps[0].step.error is not None and result.steps[0].step.error.code == "truncated"
    assert calls.count("lookup") == 0


# --- the fake-success guard ----------------------------------------------------

def test_require_observation_refuses_first_unsupported_answer(tools, template):
    agent, backend = make_agent([final("12"), final("12")], tools, template,
                                limits=Limits())
    result = agent.run("q")
    assert result.status == "answered" and result.answer == "12"
    assert isinstance(result.steps[0].decision, Retry)
    assert result.steps[0].decision.reason == "needs_observation"
    assert "You have not used a tool yet" in backend.prompts[1]


def test_require_observation_accepts_answer_after_real_observation(tools, template):
    agent, backend = make_agent([act("multiply", {"a": 3, "b": 4}), final("12")], tools, template,
                                limits=Limits())
    result = agent.run("What is 3 * 4?")
    assert result.status == "answered" and len(backend.calls) == 2


def test_guard_off_by_default_and_without_tools(template):
    agent, _ = make_agent([final("hi")], [], template, limits=Limits())
    assert agent.run("q").status == "answered"


# --- answer never empty ---------------------------------------------------------

@pytest.mark.parametrize(
    "turns,limits",
    [
        ([" prose"] * 4, Limits(max_format_errors=2)),
        ([act("lookup", {"query": str(i)}) for i in range(4)], Limits(max_steps=2)),
        (["", ""], Limits()),
        ([BackendError("")], Limits()),
        ([KeyboardInterrupt()], Limits()),
        ([final("   ")] * 3, Limits()),
    ],
)
def test_answer_is_never_empty(tools, template, turns, limits):
    agent, _ = make_agent(turns, tools, template, limits=limits)
    result = agent.run("q")
    assert result.status in STATUSES
    assert result.answer.strip()


# --- the pure parts ---------------------------------------------------------------

def test_decide_is_pure_and_data_only():
    state = RunState(limits=Limits(), tool_names=("lookup",), question="What is a cat?")
    step = parse('Thought: x\nAction: lookup\nAction Input: {"query": "cat"}', {"lookup": {}})
    assert decide(state, step) == decide(state, step) == RunTool(step.actions[0])
    fin = parse("Thought: done\nFinal Answer: 7")
    assert decide(state, fin) == Retry(decide(state, fin).observation, "needs_observation", check="no_observation")  # once, no tool ran yet
    assert decide(replace_state(state, observation_nudged=True), fin) == Finish("7")
    prose = parse("Thought: hmm, no idea", {"lookup": {}})
    assert isinstance(decide(state, prose), Retry)
    at_cap = replace_state(state, format_errors=Limits().max_format_errors - 1)
    stop = decide(at_cap, prose)
    assert isinstance(stop, Stop) and stop.status == "format_errors" and prose.error.code in stop.reason


def test_fingerprint_canonical():
    assert fingerprint(Action("lookup", {"query": "cat"})) == fingerprint(Action("lookup", " cat "))
    assert fingerprint(Action("m", {"a": 1, "b": 2})) == fingerprint(Action("m", {"b": 2, "a": 1}))
    assert fingerprint(Action("m", {"a": 1, "b": 2})) != fingerprint(Action("m", {"a": 2, "b": 1}))


def test_retryable_failure_is_rerun_not_nudged():
    action = Action("lookup", {"query": "cat"})
    state = RunState(tool_names=("lookup",), question="What is a cat?")
    step = Step(text="", actions=(action,))
    rec = StepRecord(1, "", "", step, RunTool(action),
                     observation=Observation(False, "busy", "tool_error", retryable=True),
                     observation_text="Error (tool_error): busy")
    state = advance(state, rec)
    assert decide(state, step) == RunTool(action)
    assert state.failing_tool == "lookup" and state.tool_failures == 1


def test_check_limits_order_and_values():
    limits = Limits(max_steps=2, max_total_tokens=100, timeout_s=10)
    assert check_limits(RunState(limits=limits), 0.0) is None
    assert check_limits(RunState(limits=limits, steps=2), 0.0).status == "max_steps"
    assert check_limits(RunState(limits=limits, tokens=100), 0.0).status == "max_tokens"
    assert check_limits(RunState(limits=limits), 10.0).status == "timeout"
    failing = RunState(limits=limits, failing_tool="t", tool_failures=3, steps=2)
    assert check_limits(failing, 0.0).status == "tool_failures"


def test_kept_text_cuts_at_end_and_first_action():
    text = 'Thought: a\nAction: lookup\nAction Input: {"query": "x"}\nAction: lookup\nAction Input: {"query": "y"}'
    step = parse(text, {"lookup": {}})
    assert len(step.actions) == 2
    kept = kept_text(step, len("Thought:"))
    assert kept == ' a\nAction: lookup\nAction Input: {"query": "x"}'


def test_limits_validate():
    with pytest.raises(ValueError, match="max_steps"):
        Limits(max_steps=0)
    with pytest.raises(ValueError, match="timeout_s"):
        Limits(timeout_s=0)


# --- propose ---------------------------------------------------------------------

def test_propose_returns_step_without_running_tools(tools, template, calls):
    agent, backend = make_agent([act("multiply", {"a": 2, "b": 5})], tools, template)
    step = agent.propose("2*5?")
    assert step.ok and step.actions[0].tool == "multiply"
    assert calls.log == [] and len(backend.calls) == 1


def test_propose_retries_format_errors_then_gives_last(tools, template):
    agent, backend = make_agent([*still_unlabelled(" hmm"), act("lookup", {"query": "cat"})], tools, template)
    step = agent.propose("cat?")
    assert step.ok and step.actions[0].args == {"query": "cat"}
    assert len(backend.calls) == 3 and backend.prompts[2].startswith(backend.prompts[0])

    agent, backend = make_agent(still_unlabelled(" hmm") * 5, tools, template, limits=Limits(max_format_errors=2))
    step = agent.propose("cat?")
    assert step.error is not None and len(backend.calls) == 4  # two unusable turns, each asked once to go on


def test_propose_continues_from_history(tools, template):
    agent, backend = make_agent([final("a small feline")], tools, template)
    history = [(Action("lookup", {"query": "cat"}), Observation(True, "a small feline"))]
    step = agent.propose("What is a cat?", history=history)
    assert step.final_answer == "a small feline"
    prompt = backend.prompts[0]
    assert prompt.startswith(template.render("What is a cat?", list(agent.tools.values())))
    continued = prompt[len(template.render("What is a cat?", list(agent.tools.values()))):]
    assert "lookup" in continued and template.observation("a small feline", 1) in continued
    # What we wrote for the history reads back as that action.
    replayed = parse(template.turn_prefix(1) + continued.split(template.observation("a small feline", 1))[0],
                     {"lookup": {}})
    assert replayed.actions and replayed.actions[0].tool == "lookup"


# --- grammar hook ------------------------------------------------------------------

def test_constrain_needs_a_grammar_backend(tools, template):
    with pytest.raises(ValueError, match="grammar"):
        Agent(ScriptedBackend([]), tools, template, constrain=True)


def test_constrain_passes_grammar(tools, template):
    backend = ScriptedBackend([final("ok")], supports_grammar=True)
    agent = Agent(backend, tools, template, constrain=True)
    agent.run("q")
    grammar = backend.calls[0].grammar
    assert grammar and "root" in grammar and "multiply" in grammar


def test_constrained_turn_may_run_to_the_grammar_bound(tools, template):
    """A grammar-made turn cut at max_turn_tokens would be the one turn that fails to parse."""
    from react_text.grammar.gbnf import max_bytes

    backend = ScriptedBackend([final("ok")], supports_grammar=True)
    agent = Agent(backend, tools, template, limits=Limits(max_turn_tokens=64), constrain=True)
    agent.run("q")
    call = backend.calls[0]
    assert call.max_tokens == max_bytes(call.grammar) > 64

    plain = ScriptedBackend([final("ok")], supports_grammar=True)
    Agent(plain, tools, template, limits=Limits(max_turn_tokens=64)).run("q")
    assert plain.calls[0].max_tokens == 64


# --- the scripted backend itself ------------------------------------------------------

def test_scripted_backend_behaves_like_a_backend():
    backend = ScriptedBackend([
        "a b\nQuestion: x\nObservation: y",
        lambda prompt: f"echo {len(prompt)}",
        "one two three four five",
    ])
    c = backend.complete("p1", stop=["\nObservation:", "\nQuestion:"])
    assert c.text == "a b" and c.finish_reason == "stop"  # cut at the earliest stop string
    c = backend.complete("p1a b more", stop=[])  # previous prompt + its output + new text
    assert c.text == "echo 10"
    assert c.evaluated_tokens == 1  # "more": the rest matched the previous prompt + output
    c = backend.complete("p3", max_tokens=2)
    assert c.text == "one two" and c.finish_reason == "length" and c.completion_tokens == 2
    assert [call.prompt for call in backend.calls] == ["p1", "p1a b more", "p3"]
    assert backend.calls[0].stop == ("\nObservation:", "\nQuestion:")
    with pytest.raises(BackendError, match="exhausted"):
        backend.complete("p4")
    with pytest.raises(BackendError, match="grammar"):
        ScriptedBackend(["x"]).complete("p", grammar="root ::= \"x\"")
    assert ScriptedBackend([]).wrap_prompt("same") == "same"


def test_a_chinese_question_under_an_english_template_is_corrected_in_chinese(tools):
    # classic words its instructions by the question's language, so its corrections follow suit
    template = load_template("classic")
    backend = ScriptedBackend([*still_unlabelled(" Hmm."), final("猫是一种小型猫科动物。")])
    agent = Agent(backend, tools, template)
    agent.run("猫是什么？")
    correction = backend.prompts[2][len(backend.prompts[0]):]
    assert re.search(r"[\u4e00-\u9fff]{4}", correction), correction
    backend = ScriptedBackend([*still_unlabelled(" I wonder."), final("A small feline.")])
    Agent(backend, tools, template).run("What is a cat?")
    assert not re.search(r"[\u4e00-\u9fff]", backend.prompts[2][len(backend.prompts[0]):])


# --- a turn that stops after its thought is asked once to go on (policy.wants_label) ----------

def test_a_turn_that_stops_after_its_thought_is_asked_to_go_on(tmp_path):
    from react_text.trace import read_trace

    backend = ScriptedBackend([" The answer is 77.", "Final Answer: 77"])
    trace = tmp_path / "run.jsonl"
    result = Agent(backend, [], "classic", trace=trace).run("How many days are 11 weeks?")
    assert result.status == "answered" and result.answer == "77" and len(result.steps) == 1
    step = result.steps[0]
    assert isinstance(step.decision, Finish) and step.text == " The answer is 77.\nFinal Answer: 77"
    # the continuation is the first prompt, the turn so far and a line break
    assert backend.prompts[1] == backend.prompts[0] + " The answer is 77.\n"
    events = read_trace(trace)
    prompts = [e for e in events if e["event"] == "prompt"]
    assert [p.get("reason") for p in prompts] == [None, "label_left_out"]
    assert prompts[1]["n"] == 1 and prompts[1]["delta"] == " The answer is 77.\n"
    turns = [e for e in events if e["event"] == "model_turn"]
    assert [t["n"] for t in turns] == [1, 1]
    # one step, both calls counted
    assert step.completion_tokens == sum(t["completion_tokens"] for t in turns)
    assert step.evaluated_tokens == sum(t["evaluated_tokens"] for t in turns)
    assert step.prompt_tokens == turns[0]["prompt_tokens"]
    assert result.totals.completion_tokens == step.completion_tokens


def test_a_continued_turn_streams_as_it_is_joined():
    pieces: list[str] = []
    result = Agent(ScriptedBackend([" The answer is 77.", "Final Answer: 77"]), [], "classic",
                   on_token=pieces.append).run("How many days are 11 weeks?")
    assert "".join(pieces) == result.steps[0].text == " The answer is 77.\nFinal Answer: 77"


def test_after_a_continued_turn_the_next_prompt_is_traced_whole(tools, template, tmp_path):
    from react_text.trace import prompts_from_events, read_trace

    backend = ScriptedBackend([" I should multiply.", act("multiply", {"a": 6, "b": 7}, thought="x"), final("42")])
    trace = tmp_path / "run.jsonl"
    result = Agent(backend, tools, template, trace=trace).run("What is 6 * 7?")
    assert result.status == "answered" and [type(s.decision).__name__ for s in result.steps] == ["RunTool", "Finish"]
    assert result.steps[0].text.startswith(" I should multiply.\n")
    events = read_trace(trace)
    prompts = [e for e in events if e["event"] == "prompt"]
    assert "text" in prompts[2] and "delta" not in prompts[2]
    assert prompts_from_events(events) == backend.prompts  # what replay rebuilds is what was sent


def test_a_turn_cut_by_the_token_limit_is_not_continued(tools, template):
    long = " " + " ".join(["word"] * 20)
    backend = ScriptedBackend([long, *still_unlabelled(" ok"), final("77")])
    result = Agent(backend, tools, template, limits=Limits(max_turn_tokens=8), checks="-no_observation").run(
        "How many days are 11 weeks?")
    assert result.steps[0].finish_reason == "length"
    # the next call is the next turn, after the error, not the cut turn asked to go on
    assert "\nObservation:" in backend.prompts[1][len(backend.prompts[0]):]
    assert result.steps[0].step.error is not None and result.status == "answered" and result.answer == "77"
    assert len(result.steps) == 3 and len(backend.calls) == 4  # only the turn that stopped on its own went on


def test_a_constrained_turn_is_not_continued(tools, template):
    backend = ScriptedBackend([" The answer is 77.", final("77")], supports_grammar=True)
    agent = Agent(backend, tools, template, constrain=True, checks="-no_observation")
    result = agent.run("How many days are 11 weeks?")
    assert result.status == "answered" and result.answer == "77" and len(result.steps) == 2
    assert isinstance(result.steps[0].decision, Retry) and result.steps[0].decision.reason == "format_error:no_action"
    assert all(call.grammar for call in backend.calls)


def test_a_continuation_that_still_has_no_label_is_one_format_error(tools, template):
    backend = ScriptedBackend([*still_unlabelled(" Hmm."), final("77")])
    result = Agent(backend, tools, template, checks="-no_observation").run("11 weeks in days?")
    assert [type(s.decision).__name__ for s in result.steps] == ["Retry", "Finish"]
    assert len(backend.calls) == 3 and backend.prompts[1] == backend.prompts[0] + " Hmm.\n"
    assert result.steps[0].step.error.message in backend.prompts[2][len(backend.prompts[1]):]


def test_a_tool_named_by_its_alias_runs_the_tool(template):
    """`行动：计算器`: a small model names a built-in in Chinese; the built-ins declare those names."""
    from react_text.tools.builtins import default_tools

    agent, _ = make_agent(['I compute.\nAction: 计算器\nAction Input: {"expression": "6 * 7"}', final("42")],
                          default_tools(), template)
    result = agent.run("What is 6 * 7?")
    assert result.status == "answered" and result.answer == "42"
    assert [s.step.actions[0].tool for s in result.steps if s.step.actions] == ["calculator"]
    assert result.steps[0].observation.text == "42"


def test_aliases_are_declared_on_the_tool_and_read_by_the_parser():
    @tool(aliases=("乘法",))
    def multiply(a: int, b: int) -> int:
        """Multiply."""
        return a * b

    step = parse('Action: 乘法\nAction Input: {"a": 2, "b": 3}', [multiply])
    assert step.actions[0].tool == "multiply"
    assert parse("Action: 乘法\nAction Input: x", ["multiply"]).error.code == "unknown_tool"
