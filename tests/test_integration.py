"""The loop on real models through real llama.cpp.

SmolLM2-135M is too small to be asked for right answers; its runs are checked
for structure: they end within their limits with a status, the trace is
complete, the prompt only grows, llama.cpp reuses the cached prefix, and every
observation is what the tool really returns. The default model (Qwen2.5-Coder
0.5B) must get a calculator question right, end to end.
"""

from __future__ import annotations

import pytest

from react_text.backends.replay import ReplayBackend
from react_text.tools.calculator import calculator
from react_text.tools.clock import current_time
from react_text.agent.decisions import RunTool
from react_text.agent.loop import Agent
from react_text.agent.results import STATUSES
from react_text.agent.state import Limits
from react_text.prompting.templates import load_template
from react_text.tools.calling import call_tool
from react_text.trace import iter_events, prompts_from_events, read_trace, without_timings

pytestmark = pytest.mark.model

SMOL_LIMITS = Limits(max_steps=3, max_turn_tokens=64, timeout_s=300)


@pytest.fixture(scope="module")
def smol_plain(smollm2_path):
    """SmolLM2 as plain completion (no chat template): it then follows the few-shot format and calls tools."""
    from react_text.backends.llama_cpp import LlamaCppBackend

    backend = LlamaCppBackend(smollm2_path, n_ctx=2048, chat=False)
    yield backend
    backend.close()


@pytest.mark.parametrize("backend_name,template_name,question,must_call", [
    # SmolLM2 without its chat template wrote the sum as its thought instead of calling the calculator
    # once the episodes became per-question (session 15 note): well-formedness is still checked.
    ("smol_plain", "classic", "Use the calculator to compute 1234 + 4321.", False),
    ("smol_backend", "classic", "What is 37 * 91 + 12?", False),
    ("smol_backend", "json", "What is 15% of 240?", False),
])
def test_smollm2_run_is_well_formed(request, tmp_path, backend_name, template_name, question, must_call):
    backend = request.getfixturevalue(backend_name)
    template = load_template(template_name)
    path = tmp_path / "smol.jsonl"
    result = Agent(backend, [calculator, current_time], template, limits=SMOL_LIMITS, trace=path).run(question)

    assert result.status in STATUSES and result.status not in ("backend_error", "interrupted", "timeout")
    assert 1 <= len(result.steps) <= SMOL_LIMITS.max_steps
    assert result.answer.strip()

    events = read_trace(path)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_start" and kinds[-1] == "run_end"
    assert sorted({e["n"] for e in iter_events(events, "model_turn")}) == [s.n for s in result.steps]
    assert events[-1]["status"] == result.status and events[-1]["answer"] == result.answer

    # one prompt per step, besides the extra one of a turn asked to go on after its thought
    asked = [e for e in events if e["event"] == "prompt"]
    prompts = [p for p, e in zip(prompts_from_events(events), asked) if e.get("reason") != "label_left_out"]
    continued = {e["n"] for e in asked if e.get("reason") == "label_left_out"}
    assert len(prompts) == len(result.steps)
    for n in range(1, len(prompts)):
        prev = result.steps[n - 1]
        assert prompts[n].startswith(prompts[n - 1] + prev.kept)
        assert prompts[n] == prompts[n - 1] + prev.kept + template.observation(prev.observation_text, n)
        if prev.n in continued:
            continue  # the cache then holds the two halves of that turn, not its kept text
        # llama.cpp re-evaluated only the appended observation, not the whole prompt.
        appended = prompts[n][len(prompts[n - 1]) + len(prev.kept):]
        turn = result.steps[n]
        assert turn.evaluated_tokens <= backend.count_tokens(appended) + 8 < turn.prompt_tokens

    tools = {"calculator": calculator, "current_time": current_time}
    ran = [s for s in result.steps if isinstance(s.decision, RunTool)]
    if must_call:
        assert ran, [s.text for s in result.steps]
    for step in result.steps:
        assert step.text.startswith(step.kept)  # the scratchpad keeps a prefix of what the model wrote
        if isinstance(step.decision, RunTool):
            assert step.observation is not None
            if step.decision.action.tool == "calculator":
                again = call_tool(calculator, step.decision.action.args)
                assert step.observation.text == again.text and step.observation.code == again.code
            else:
                assert step.decision.action.tool in tools


def test_real_run_replays_exactly_without_the_model(qwen_backend, tmp_path):
    """Recorded with the default model, which calls the calculator here (SmolLM2 without its chat template no longer does)."""
    template = load_template("classic")
    path = tmp_path / "recorded.jsonl"
    original = Agent(qwen_backend, [calculator], template, limits=SMOL_LIMITS, trace=path).run(
        "Use the calculator to compute 1234 + 4321.")
    assert any(isinstance(s.decision, RunTool) for s in original.steps)
    replay_path = tmp_path / "replayed.jsonl"
    replay = ReplayBackend.from_trace(path)
    again = Agent(replay, [calculator], template, limits=SMOL_LIMITS, trace=replay_path).run(
        "Use the calculator to compute 1234 + 4321.")
    assert replay.remaining == 0
    assert again.status == original.status and again.answer == original.answer
    assert [s.kept for s in again.steps] == [s.kept for s in original.steps]
    assert [s.observation_text for s in again.steps] == [s.observation_text for s in original.steps]
    recorded = [without_timings(e) for e in read_trace(path) if e["event"] not in ("run_start",)]
    replayed = [without_timings(e) for e in read_trace(replay_path) if e["event"] not in ("run_start",)]
    assert recorded == replayed


def test_default_model_answers_a_calculator_question(qwen_path, tmp_path):
    """The one-call API on the default model, resolved and loaded lazily by name (not by the fixture)."""
    import react_text

    path = tmp_path / "qwen.jsonl"
    result = react_text.run("What is 37 * 91 + 12?", tools=["calculator", "current_time"],
                            limits=Limits(max_steps=4, max_turn_tokens=128, timeout_s=300), trace=path)
    assert result.status == "answered", result.answer
    assert "3379" in result.answer.replace(",", "")
    used = [s for s in result.steps if isinstance(s.decision, RunTool)]
    assert used and used[0].decision.action.tool == "calculator"
    assert any(s.observation is not None and s.observation.ok for s in used)
    events = read_trace(path)
    assert events[-1]["event"] == "run_end" and events[-1]["status"] == "answered"
    assert list(iter_events(events, "observation"))
