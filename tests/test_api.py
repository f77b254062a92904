"""The short Python API: defaults, names for objects, instructions, chat history and ``react_text.run``.

The loop's own behaviour is tested in test_loop.py; here, that the short
forms build the same agent as the long ones, that bad names fail at once with
a message saying what would work, and that a conversation keeps one
append-only scratchpad (with the real SmolLM2: llama.cpp reuses it).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import react_text
from react_text.agent.names import LazyLlamaBackend, backend_named
from react_text.backends.http import HttpBackend
from react_text.backends.scripted import ScriptedBackend
from react_text.tools.calculator import calculator
from react_text.tools.clock import current_time
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.catalog import DEFAULT_MODEL
from react_text.prompting.templates import load_template

ANSWER = " I know this.\nFinal Answer: 3379"
TRUSTING = "-no_observation"
"""Scripted answers come without a tool result; the "use a tool first" check is not what these tests are about."""


def lookup_price(item: str) -> str:
    """Price of an item in the shop, in euros."""
    return {"apple": "0.40"}.get(item, "unknown item")


def test_agent_with_only_tools_takes_every_default_and_loads_nothing():
    code = (
        "import sys, react_text\n"
        "def f(x: str) -> str:\n"
        "    'Echo.'\n"
        "    return x\n"
        "agent = react_text.Agent(tools=[f])\n"
        "print(type(agent.backend).__name__, agent.backend.model, agent.template.name, agent.limits == react_text.Limits(),"
        " list(agent.tools), 'llama_cpp' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.split() == ["LazyLlamaBackend", DEFAULT_MODEL, "classic", "True", "['f']", "False"]


@pytest.mark.parametrize("backend", [None, "llama"])
def test_constrain_works_with_the_default_backend_and_by_name(backend):
    """The grammar check asks the backend the agent will use (llama.cpp, which takes grammars), not
    the argument as given; and building the grammar loads no model."""
    code = (
        "import sys, react_text\n"
        f"agent = react_text.Agent(tools=['calculator'], backend={backend!r}, constrain=True)\n"
        "print(agent.grammar.startswith('root'), 'llama_cpp' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]


def test_names_are_accepted_wherever_objects_are():
    agent = Agent(backend="llama", model="smollm2-135m", template="json", tools=["calculator", "time", lookup_price])
    assert isinstance(agent.backend, LazyLlamaBackend) and agent.backend.model == "smollm2-135m"
    assert agent.template.name == "json"
    assert list(agent.tools) == ["calculator", "current_time", "lookup_price"]
    assert agent.tools["calculator"] is calculator and agent.tools["current_time"] is current_time
    remote = Agent("http://127.0.0.1:8080", tools=[calculator], model="served-model")
    assert isinstance(remote.backend, HttpBackend) and remote.backend.model == "served-model"
    assert remote.backend.url == "http://127.0.0.1:8080/v1/completions"


def test_the_old_positional_constructor_still_works():
    backend = ScriptedBackend([ANSWER])
    agent = Agent(backend, [calculator], load_template("classic"), Limits(max_steps=2), checks=TRUSTING)
    assert agent.backend is backend and agent.limits.max_steps == 2
    assert agent.run("What is 37 * 91 + 12?").answer == "3379"


@pytest.mark.parametrize("options,message", [
    ({"backend": "gpu"}, "unknown backend 'gpu': use 'llama'"),
    ({"model": "no-such-model"}, "unknown model 'no-such-model': known models are"),
    ({"tools": ["calculatr"]}, "unknown built-in tool 'calculatr'"),
    ({"tools": ["search"]}, "search_files"),
    ({"backend": ScriptedBackend([]), "model": "smollm2-135m"}, "already has its model"),
])
def test_a_bad_name_fails_at_once_saying_what_works(options, message):
    with pytest.raises(ValueError, match=message):
        Agent(**options)


def test_instructions_go_in_front_of_the_rendered_template():
    backend = ScriptedBackend([ANSWER, ANSWER])
    Agent(backend, [calculator], instructions="  Answer in French.\n", checks=TRUSTING).run("What is 37 * 91 + 12?")
    Agent(backend, [calculator], checks=TRUSTING).run("What is 37 * 91 + 12?")
    with_instructions, plain = backend.prompts
    assert with_instructions == "Answer in French.\n\n" + plain


def test_one_call_run_with_every_option_by_name():
    backend = ScriptedBackend([ANSWER])
    seen: list[str] = []
    result = react_text.run("What is 37 * 91 + 12?", tools=["calculator"], backend=backend, on_token=seen.append,
                            checks=TRUSTING)
    assert result.status == "answered" and result.answer == "3379"
    assert "".join(seen) == ANSWER


def test_chat_keeps_one_append_only_scratchpad_and_run_stays_apart():
    backend = ScriptedBackend([
        ' I need the calculator.\nAction: calculator\nAction Input: {"expression": "37*91+12"}',
        ANSWER,
        " It was 3379, doubled.\nFinal Answer: 6758",
        " Fresh.\nFinal Answer: 1",
    ])
    agent = Agent(backend, [calculator], checks=TRUSTING)
    first = agent.chat("What is 37 * 91 + 12?")
    assert agent.history == backend.prompts[1] + ANSWER
    second = agent.chat("  And twice that?  ")
    assert (first.answer, second.answer) == ("3379", "6758")
    p1, p2, p3 = backend.prompts[:3]
    assert p3 == p2 + first.steps[-1].kept + "\n\nQuestion: And twice that?\nThought:"
    assert p2.startswith(p1)  # the whole conversation only ever appends
    agent.run("Unrelated?")
    assert backend.prompts[3].count("Question: What is 37 * 91 + 12?") == 0
    agent.reset()
    assert agent.history is None


def test_chat_follow_up_uses_the_templates_own_question_label():
    backend = ScriptedBackend(["我知道。\n最终答案：3379", "两倍。\n最终答案：6758"])
    agent = Agent(backend, [calculator], "zh", checks=TRUSTING)
    agent.chat("37 乘以 91 再加 12 等于多少？")
    agent.chat("再乘以 2 呢？")
    assert backend.prompts[1].endswith("最终答案：3379\n\n问题：再乘以 2 呢？\n思考：")


def test_a_question_that_never_reached_the_model_leaves_the_conversation_as_it_was():
    from react_text.backends.base import BackendError

    backend = ScriptedBackend([ANSWER, BackendError("server down"), " Second.\nFinal Answer: 2"])
    agent = Agent(backend, [calculator], checks=TRUSTING)
    agent.chat("First?")
    assert agent.chat("Lost?").status == "backend_error"
    agent.chat("Second?")
    assert "Lost?" not in backend.prompts[2] and "Question: Second?" in backend.prompts[2]


def test_backend_named_returns_objects_unchanged():
    backend = ScriptedBackend([])
    assert backend_named(backend) is backend


@pytest.mark.model
def test_real_chat_reuses_the_cached_conversation(smol_backend):
    agent = Agent(smol_backend, [calculator], limits=Limits(max_steps=1, max_turn_tokens=12))
    first = agent.chat("What is 2 + 2?")
    second = agent.chat("And 3 + 3?")
    turn = second.steps[0]
    assert first.steps and turn.prompt_tokens > first.steps[0].prompt_tokens
    # Only the new question (and the tail of the last turn) was evaluated, not the conversation again.
    assert turn.evaluated_tokens < 40 < turn.prompt_tokens
