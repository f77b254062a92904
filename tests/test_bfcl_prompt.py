"""The ``plain`` BFCL cell speaks BFCL's own system prompt (read from bfcl-eval's constants), in the model's
chat template, so the one-prompt baseline is the leaderboard's Prompt mode and not a weaker prompt of ours."""

from __future__ import annotations

import json
import sys
import types

import pytest

from react_text.backends.scripted import ScriptedBackend
from react_text.eval.bfcl.cells import plain_prompt
from react_text.eval.bfcl.data import BfclItem
from react_text.eval.bfcl.prompting import bfcl_messages, bfcl_system_prompt

FUNCTIONS = ({"name": "area", "description": "Area of a triangle.",
              "parameters": {"type": "dict", "properties": {"base": {"type": "integer"}}, "required": ["base"]}},)
ITEM = BfclItem(id="simple_python_0", category="simple_python",
                messages=({"role": "user", "content": "Area of a triangle of base 3?"},), functions=FUNCTIONS)
CHAT_TEMPLATE = ("{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}"
                 "{% if add_generation_prompt %}<assistant>{% endif %}")


@pytest.fixture
def fake_bfcl(monkeypatch):
    """A stand-in for bfcl-eval's constants (CI does not install the package): made-up wording, BFCL's shape."""
    prompts = types.ModuleType("bfcl_eval.constants.default_prompts")
    prompts.DEFAULT_SYSTEM_PROMPT_FORMAT = "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"
    prompts.OUTPUT_FORMAT_MAPPING = {"python": "[f(a=1)]"}
    prompts.PARAM_TYPE_MAPPING = {"python": ""}
    prompts.PROMPT_STYLE_TEMPLATES = {"classic": {
        "persona": "PERSONA.", "task": "TASK.", "tool_call_no_tag": "Write {output_format}.{param_types}",
        "tool_call_with_tag": "<T>{output_format}</T>", "multiturn_behavior": "TURNS.",
        "available_tools": "Functions ({format}):\n{functions}\n"}}
    prompts.PROMPT_TEMPLATE_MAPPING = {"plaintext": "{persona}{task}\n\n{tool_call_format}\n\n{multiturn_behavior}\n\n{available_tools}"}
    constants = types.ModuleType("bfcl_eval.constants")
    constants.default_prompts = prompts
    monkeypatch.setitem(sys.modules, "bfcl_eval", types.ModuleType("bfcl_eval"))
    monkeypatch.setitem(sys.modules, "bfcl_eval.constants", constants)
    monkeypatch.setitem(sys.modules, "bfcl_eval.constants.default_prompts", prompts)


def test_the_system_prompt_is_assembled_from_bfcls_default_format(fake_bfcl):
    text = bfcl_system_prompt(FUNCTIONS)
    assert text.startswith("PERSONA.TASK.\n\nWrite [f(a=1)].\n\nTURNS.\n\nFunctions (json):\n")
    assert json.loads(text.split("Functions (json):\n", 1)[1]) == list(FUNCTIONS)


def test_the_system_prompt_goes_first_or_joins_the_items_own(fake_bfcl):
    assert [m["role"] for m in bfcl_messages(ITEM.messages, FUNCTIONS)] == ["system", "user"]
    own = bfcl_messages(({"role": "system", "content": "Be brief."}, *ITEM.messages), FUNCTIONS)
    assert [m["role"] for m in own] == ["system", "user"] and own[0]["content"].endswith("\n\nBe brief.")


def test_the_plain_prompt_is_bfcls_in_the_models_chat_template(fake_bfcl):
    backend = ScriptedBackend(["[area(base=3)]"])
    backend.chat_template = CHAT_TEMPLATE
    prompt = plain_prompt(ITEM, backend)
    assert prompt.startswith("<system>PERSONA.TASK.") and prompt.endswith(
        "<user>Area of a triangle of base 3?</user><assistant>")


def test_without_a_chat_template_the_texts_go_in_the_backends_own_wrapping(fake_bfcl):
    prompt = plain_prompt(ITEM, ScriptedBackend(["x"]))
    assert prompt.startswith("PERSONA.TASK.") and prompt.endswith("\n\nArea of a triangle of base 3?")


def test_a_chat_template_that_fails_falls_back_to_the_texts(fake_bfcl):
    backend = ScriptedBackend(["x"])
    backend.chat_template = "{{ raise_exception('no') }}"
    assert plain_prompt(ITEM, backend).startswith("PERSONA.TASK.")


def test_without_bfcl_eval_the_plain_prompt_is_react_texts_own(monkeypatch):
    monkeypatch.setitem(sys.modules, "bfcl_eval.constants.default_prompts", None)
    assert bfcl_system_prompt(FUNCTIONS) is None and bfcl_messages(ITEM.messages, FUNCTIONS) is None
    assert "area(base: int" in plain_prompt(ITEM, ScriptedBackend(["x"]))


def test_the_installed_bfcl_eval_gives_its_published_prompt():
    pytest.importorskip("bfcl_eval.constants.default_prompts")
    text = bfcl_system_prompt(FUNCTIONS)
    assert "[func_name1(params_name1=params_value1" in text and '"name": "area"' in text
