"""Prompt templates: shipped files, scratchpad consistency, loading rules, and hostile input."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text import parse
from react_text.tools.builtins import default_tools
from react_text.cli.main import main as cli_main
from react_text.protocol.dialects import DIALECTS, format_action, format_final, format_thought
from react_text.prompting.tool_views import ToolSpec, describe_tools
from react_text.prompting.templates import (
    ENV_VAR,
    Episode,
    ExampleStep,
    RenderLimits,
    Template,
    TemplateError,
    builtin_folder,
    list_templates,
    load_template,
)

SHIPPED = {"classic": ("classic", "en"), "json": ("json", "en"), "call": ("call", "en"),
           "paper": ("paper", "en"), "zh": ("zh", "zh")}
CORPUS = Path(__file__).resolve().parents[1] / "suites" / "corpus"


@dataclass(frozen=True)
class LocalTool:
    """Anything with name/description/parameters is a tool to a template."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)


def _schema(**props: str) -> dict[str, Any]:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}, "required": list(props)}


TOOLS = [
    LocalTool("calculator", "Evaluate an arithmetic expression.", _schema(expression="string")),
    LocalTool("search", "Search the local text files.", _schema(query="string")),
    LocalTool("current_time", "The current local date and time.", {"type": "object", "properties": {}}),
]
TOOL_NAMES = [t.name for t in TOOLS]


@pytest.fixture(autouse=True)
def _no_user_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)


def _write(folder: Path, name: str, body: str, *, dialect: str = "classic",
           stop: str = '["\\nObservation:", "\\nQuestion:"]', extra: str = "examples: none\n") -> Path:
    path = folder / f"{name}.j2"
    path.write_text(f"{{#-\nname: {name}\ndialect: {dialect}\nstop: {stop}\n{extra}-#}}\n{body}", encoding="utf-8")
    return path


def _turn(template: Template, step: ExampleStep, n: int) -> str:
    """What the model writes after the turn label for one tool step."""
    thought = format_thought(template.dialect, step.thought, n)[len(template.turn_prefix(n)):]
    return thought + "\n" + format_action(template.dialect, step.tool, step.args, n)


def _final_turn(template: Template, episode: Episode) -> str:
    n = len(episode.steps) + 1
    thought = format_thought(template.dialect, episode.thought, n)[len(template.turn_prefix(n)):]
    return thought + "\n" + format_final(template.dialect, episode.answer, n)


# --- shipped templates ---------------------------------------------------------------


def test_every_shipped_template_is_listed_with_its_dialect_and_language() -> None:
    found = {t.name: t for t in list_templates()}
    assert set(SHIPPED) <= set(found)
    for name, (dialect, language) in SHIPPED.items():
        template = found[name]
        assert (template.dialect, template.language) == (dialect, language)
        assert template.description
        assert template.path == builtin_folder() / f"{name}.j2"
        kinds = [ep.kind for ep in template.episodes]
        assert len(kinds) >= 6 and len(set(kinds)) == len(kinds)
        assert {"lookup", "multihop", "refusal", "in_question", "recovery"} <= set(kinds)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_number_repeats_across_the_shipped_episodes(lang: str) -> None:
    """A copied value must point at one episode, and no episode may teach another's number."""
    from react_text.prompting.episodes import episode_values

    episodes = load_template("classic").library(lang)
    seen: dict[str, int] = {}
    for i, episode in enumerate(episodes):
        for value in episode_values([episode]):
            if len(value) >= 2:
                assert seen.setdefault(value, i) == i, (value, i, seen[value])


def test_no_two_episodes_open_with_the_same_words() -> None:
    """Episode 1's first words once sent most questions to the calculator."""
    for lang in ("en", "zh"):
        openings = [(ep.steps[0].thought if ep.steps else ep.thought)[:12] for ep in load_template("classic").library(lang)]
        assert len(set(openings)) == len(openings), openings


@pytest.mark.parametrize("name", SHIPPED)
def test_stops_merge_the_dialect_and_catch_every_label_the_model_might_fake(name: str) -> None:
    template = load_template(name)
    assert len(set(template.stop)) == len(template.stop)
    assert set(DIALECTS[template.dialect].stop) <= set(template.stop)
    question_label = "\n问题：" if template.language == "zh" else "\nQuestion:"
    fakes = [question_label] + ["\n" + DIALECTS[template.dialect].observation.format(n=n) for n in (1, 2, 12)]
    for fake in fakes:
        assert any(fake.startswith(stop) for stop in template.stop), fake


@pytest.mark.parametrize("name", SHIPPED)
def test_render_describes_the_tools_and_ends_with_the_first_turn_label(name: str) -> None:
    template = load_template(name)
    prompt = template.render("What is 6 * 7?", TOOLS)
    assert prompt.endswith("What is 6 * 7?\n" + template.turn_prefix(1))
    for tool in TOOLS:
        assert tool.name in prompt and tool.description in prompt
    assert "expression" in prompt and "query" in prompt


def test_each_dialect_writes_tool_signatures_in_its_own_syntax() -> None:
    tools = default_tools(CORPUS)
    assert "calculator(expression: str):" in load_template("call").render("q", tools)
    assert "search(query: str):" in load_template("call").render("q", tools)
    assert "current_time():" in load_template("call").render("q", tools)
    paper = load_template("paper").render("q", tools)
    assert "- calculator[expression]:" in paper and "- Finish[answer]:" in paper
    assert 'Action Input: {"expression": string}' in load_template("classic").render("q", tools)
    assert 'action_input: {"query": string}' in load_template("json").render("q", tools)
    assert '行动输入：{"expression": string}' in load_template("zh").render("q", tools)
    # the parameter descriptions from the real tool schema reach the prompt
    note = tools[0].parameters["properties"]["expression"]["description"]
    assert note.rstrip(".") in load_template("classic").render("q", tools)


@pytest.mark.parametrize("name", SHIPPED)
def test_examples_in_the_prompt_are_exactly_the_scratchpad_the_loop_builds(name: str) -> None:
    """Few-shot text == turn_prefix + turn + observation(...) + ...: the model sees the format it continues."""
    template = load_template(name)
    prompt = template.render("What is 6 * 7?", TOOLS, list(template.episodes))
    for episode in template.episodes:
        transcript = template.turn_prefix(1)
        for n, step in enumerate(episode.steps, 1):
            transcript += _turn(template, step, n) + template.observation(step.observation, n)
        transcript += _final_turn(template, episode)
        assert transcript in prompt, transcript


@pytest.mark.parametrize("name", SHIPPED)
def test_prompt_of_the_next_step_starts_with_the_previous_prompt_and_turn(name: str) -> None:
    template = load_template(name)
    episode = template.episodes[1]  # two tool steps
    prompt = template.render("How old is the bridge?", TOOLS)
    for n, step in enumerate(episode.steps, 1):
        turn = _turn(template, step, n)
        parsed = parse(template.turn_prefix(n) + turn, TOOL_NAMES)
        kept = (template.turn_prefix(n) + turn)[: parsed.end][len(template.turn_prefix(n)):]
        assert kept == turn  # nothing of a clean turn is dropped
        following = prompt + kept + template.observation(step.observation, n)
        assert following.startswith(prompt + turn)
        assert following.endswith(template.turn_prefix(n + 1))
        prompt = following


@pytest.mark.parametrize("name", SHIPPED)
def test_rendered_examples_parse_back_to_their_tool_and_arguments(name: str) -> None:
    template = load_template(name)
    prompt = template.render("q", TOOLS, list(template.episodes))
    for episode in template.episodes:
        for n, step in enumerate(episode.steps, 1):
            text = template.turn_prefix(n) + _turn(template, step, n)
            assert text[len(template.turn_prefix(n)):] in prompt
            parsed = parse(text, TOOL_NAMES)
            assert parsed.error is None, parsed.error
            expected = step.args
            if template.dialect == "paper" and len(step.args) == 1:  # Tool[x] carries the lone value; coerce_args maps it back
                (expected,) = step.args.values()
            assert [(a.tool, a.args) for a in parsed.actions] == [(step.tool, expected)]
        final = parse(template.turn_prefix(len(episode.steps) + 1) + _final_turn(template, episode), TOOL_NAMES)
        assert final.error is None and final.final_answer == episode.answer


def test_observation_text_per_dialect() -> None:
    assert load_template("classic").observation("310\n\n", 1) == "\nObservation: 310\nThought:"
    assert load_template("paper").observation("151", 2) == "\nObservation 2: 151\nThought 3:"
    assert load_template("paper").turn_prefix(3) == "Thought 3:"
    zh = load_template("zh")
    assert zh.observation("151", 1).startswith("\n观察") and zh.observation("151", 1).endswith("\n思考：")


def test_classic_prompt_with_the_builtin_tools_stays_compact(smollm2_path: Path) -> None:
    from llama_cpp import Llama

    tokenizer = Llama(str(smollm2_path), vocab_only=True, verbose=False)
    prompt = load_template("classic").render("What is 37 * 91 + 12?", default_tools(CORPUS))
    tokens = tokenizer.tokenize(prompt.encode("utf-8"), add_bos=False)
    assert 200 < len(tokens) < 1000  # up to four episodes chosen for the question (837 tokens here)


# --- examples and tools ---------------------------------------------------------------


def test_examples_that_need_missing_tools_are_left_out() -> None:
    template = load_template("classic")
    calculator_only = template.render("What is 6 * 7?", TOOLS[:1])
    assert "search" not in calculator_only.split("Question:", 1)[1]  # no episode calls a tool not offered
    assert "3888" in calculator_only  # the arithmetic episode, closest to the question
    no_tools = template.render("q", [])
    assert "Action:" not in no_tools and "6:50 pm" in no_tools


def test_the_question_picks_its_episodes_and_a_refusal_is_always_among_them() -> None:
    template = load_template("classic")
    lookup = template.render("Who designed the Orlen Dam?", TOOLS)
    arithmetic = template.render("What is 1,234 * 56 + 7?", TOOLS)
    assert "Selmer Lighthouse" in lookup and "36 * 27 * 4" in arithmetic
    for prompt in (lookup, arithmetic):
        assert "the documents do not say" in prompt
        assert prompt.count("\nQuestion:") <= 5


def test_a_chinese_question_gets_chinese_episodes_and_instructions_under_an_english_template() -> None:
    prompt = load_template("classic").render("青石镇的人口是多少？", TOOLS)
    assert "石湾港" in prompt and "Tollen" not in prompt  # the refusal episode, in Chinese
    assert "回答问题" in prompt and "Answer the question" not in prompt
    assert "Action Input:" in prompt  # the dialect's labels stay


@pytest.mark.parametrize("name", SHIPPED)
def test_unfamiliar_tools_get_call_demos_and_never_a_tool_they_were_not_offered(name: str) -> None:
    weather = [LocalTool("get_weather", "Current weather for a city.", _schema(city="string")),
               LocalTool("get_stock_price", "Latest price of a stock.", _schema(symbol="string"))]
    template = load_template(name)
    prompt = template.render("Is it raining in Oslo?", weather)
    for builtin in ("calculator", "search", "current_time"):
        assert builtin not in prompt
    shown = template.shown_episodes(weather, "Is it raining in Oslo?")
    demos = [ep for ep in shown if ep.is_demo]
    assert [ep.steps[0].tool for ep in demos] == ["get_weather", "get_stock_price"]  # closest first
    assert demos[0].steps[0].args == {"city": "Lisbon"}
    call = parse(template.turn_prefix(1) + " x\n" + format_action(template.dialect, "get_weather", {"city": "Lisbon"}, 1),
                 ["get_weather", "get_stock_price"])
    assert call.actions and call.actions[0].tool == "get_weather"
    for ep in demos:  # a demo shows no observation and no answer: nothing to copy
        assert ep.steps[0].observation == "" and ep.answer == ""


def test_explicit_examples_replace_the_template_ones() -> None:
    template = load_template("call")
    mine = [{"question": "Weather in Oslo?", "thought": "Known.", "answer": "Cold",
             "steps": [{"thought": "Look it up.", "tool": "get_weather", "args": {"city": "Oslo"},
                        "observation": "-3 C"}]}]
    prompt = template.render("q", TOOLS, mine)
    assert 'Act: get_weather(city="Oslo")\nObservation: -3 C\nThought: Known.\nFinal Answer: Cold' in prompt
    assert "Varro" not in prompt
    assert template.render("q", TOOLS, []).count("Question:") == 1
    with pytest.raises(ValueError, match="episode 1.*'answer'"):
        template.render("q", TOOLS, [{"question": "x", "thought": "y", "steps": []}])


def test_tools_are_read_from_objects_openai_dicts_and_mappings() -> None:
    openai = {"type": "function", "function": {"name": "lookup", "description": "Find a word.",
                                               "parameters": {"type": "dict", "properties": {
                                                   "word": {"type": "string", "description": "the word"},
                                                   "limit": {"type": "integer", "default": 3},
                                                   "unit": {"enum": ["c", "f"]},
                                                   "tags": {"type": "array", "items": {"type": "string"}}},
                                                   "required": ["word"]}}}
    (spec,) = describe_tools([openai])
    assert [(p.name, p.type, p.pytype, p.required) for p in spec.parameters] == [
        ("word", "string", "str", True), ("limit", "integer", "int", False),
        ("unit", "string", "str", False), ("tags", "array", "list[str]", False)]
    call = load_template("call").render("q", [openai])
    assert 'lookup(word: str, limit: int = 3, unit: "c" | "f" = None, tags: list[str] = None): Find a word.' in call
    assert "(word: the word)" in call
    classic = load_template("classic").render("q", [openai])
    assert '{"word": string, "limit": integer (optional, default 3), "unit": "c" | "f" (optional)' in classic
    by_name = describe_tools({"calculator": _schema(expression="string")})
    assert by_name[0].name == "calculator" and by_name[0].parameters[0].name == "expression"
    assert describe_tools(default_tools())[0] == ToolSpec(
        "calculator", default_tools()[0].description, describe_tools(default_tools())[0].parameters)
    with pytest.raises(ValueError, match="two tools are named 'a'"):
        describe_tools(["a", "a"])


def test_render_is_text_not_html_and_the_question_is_data() -> None:
    prompt = load_template("json").render('Is <b>5 & 6</b> "{{ 7*7 }}"?', TOOLS)
    assert 'Is <b>5 & 6</b> "{{ 7*7 }}"?' in prompt
    assert "49" not in prompt and "&amp;" not in prompt


_PAPER = load_template(builtin_folder() / "paper.j2")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_any_question_renders(question: str) -> None:
    template = _PAPER
    prompt = template.render(question, TOOLS)
    assert prompt.endswith(template.turn_prefix(1))
    assert question.strip() in prompt


# --- finding templates -------------------------------------------------------------------


def test_a_user_folder_shadows_the_builtin_and_adds_new_templates(tmp_path: Path) -> None:
    _write(tmp_path, "classic", "MINE\nQuestion: {{ question }}\nThought:")
    _write(tmp_path, "terse", "{{ tool_names|join(', ') }}\nQuestion: {{ question }}\nThought:")
    assert load_template("classic", [tmp_path]).render("q", TOOLS).startswith("MINE")
    assert load_template("classic").render("q", TOOLS).startswith("Answer the question")
    names = {t.name: t for t in list_templates([tmp_path])}
    assert names["classic"].path == tmp_path / "classic.j2" and "paper" in names
    assert load_template("terse", [tmp_path]).render("q", TOOLS).startswith("calculator, search, current_time")


def test_env_var_folders_are_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    _write(second, "mine", "B\nThought:")
    _write(first, "mine", "A\nThought:")
    monkeypatch.setenv(ENV_VAR, f"{first}{__import__('os').pathsep}{second}")
    assert load_template("mine").render("q") == "A\nThought:"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "missing"))
    with pytest.raises(TemplateError, match=ENV_VAR):
        load_template("classic")


def test_a_declared_name_and_a_path_both_find_a_template(tmp_path: Path) -> None:
    path = tmp_path / "file_name.j2"
    path.write_text('{#-\nname: declared\ndialect: paper\nstop: "\\nObservation"\nexamples: none\n-#}\nThought 1:')
    assert load_template("declared", [tmp_path]).path == path
    assert load_template(str(path)).name == "declared"
    assert load_template(path).dialect == "paper"


def test_unknown_names_list_what_is_available(tmp_path: Path) -> None:
    with pytest.raises(TemplateError) as info:
        load_template("clasic")
    assert "unknown template 'clasic'" in str(info.value) and "classic, json, paper, zh" in str(info.value)
    with pytest.raises(TemplateError, match="no such template file"):
        load_template(str(tmp_path / "nope.j2"))
    with pytest.raises(TemplateError, match="does not exist"):
        load_template("classic", [tmp_path / "missing"])


def test_a_user_template_finds_examples_beside_it(tmp_path: Path) -> None:
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "mine.json").write_text(json.dumps(
        [{"question": "Ping?", "thought": "Easy.", "answer": "Pong", "steps": []}]))
    body = "{% for ex in examples %}Q: {{ ex.question }} A: {{ ex.answer }}\n{% endfor %}Thought:"
    _write(tmp_path, "t", body, extra="examples: mine\n")
    assert load_template("t", [tmp_path]).render("q") == "Q: Ping? A: Pong\nThought:"
    _write(tmp_path, "u", body, extra="")  # default set = language (en): the built-in one
    assert "Runa Vell" in load_template("u", [tmp_path]).render("Who designed it?", TOOLS)


def test_broken_files_are_skipped_only_when_asked(tmp_path: Path) -> None:
    _write(tmp_path, "good", "Thought:")
    _write(tmp_path, "bad", "{% for %}\nThought:")
    with pytest.raises(TemplateError, match="bad.j2:7"):
        list_templates([tmp_path])
    errors: list[TemplateError] = []
    names = [t.name for t in list_templates([tmp_path], errors=errors)]
    assert "good" in names and "bad" not in names
    assert len(errors) == 1 and errors[0].path == str(tmp_path / "bad.j2") and errors[0].line == 7


# --- broken and hostile templates --------------------------------------------------------


def _error(folder: Path, body: str, limits: RenderLimits | None = None) -> TemplateError:
    path = _write(folder, "t", body)
    with pytest.raises(TemplateError) as info:
        load_template(str(path)).render("q", TOOLS, limits=limits)
    assert info.value.path == str(path)
    return info.value


@pytest.mark.parametrize("front, line, reason", [
    ("dialect: classic\nstop [1]\n", 3, "not 'key: value'"),
    ("dialect: classic\nstop: [\"\\nObservation:\"\n", 3, "bad JSON for 'stop'"),
    ("dialect: classic\nstops: []\n", 3, "unknown front matter key 'stops'"),
    ("stop: [\"\\nObservation:\"]\n", 1, "needs 'dialect'"),
    ("dialect: klingon\nstop: [\"\\nObservation:\"]\n", 2, "unknown dialect 'klingon'"),
    ("dialect: [\"classic\"]\nstop: [\"\\nObservation:\"]\n", 2, "unknown dialect ['classic']"),
    ("dialect: classic\n", 1, "needs 'stop'"),
    ("dialect: paper\nstop: [\"\\nObservation:\"]\n", 3, "observation label '\\nObservation 1:'"),
    ("dialect: classic\nstop: [\"\\nObservation:\", \"\\nAction\"]\n", 3, "would cut the model's own turn"),
    ("dialect: classic\nstop: [\"\\nObservation:\"]\nexamples: nowhere\n", 4, "no example set 'nowhere'"),
    ("dialect: classic\nstop: [\"\\nObservation:\"]\nlanguage: English!\n", 4, "bad language code"),
])
def test_bad_front_matter_names_the_line(tmp_path: Path, front: str, line: int, reason: str) -> None:
    path = tmp_path / "t.j2"
    path.write_text("{#-\n" + front + "-#}\nThought:", encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        load_template(str(path))
    assert (info.value.path, info.value.line) == (str(path), line)
    assert reason in info.value.reason
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_front_matter_values_are_json_only_when_they_look_like_json(tmp_path: Path) -> None:
    path = tmp_path / "t.j2"
    path.write_text('{#-\ndialect: call\nstop: "\\nObservation:"\ndescription: 2 steps, then "answer"\n'
                    'language: zh\nexamples: none\n# a comment line\n-#}\nThought:', encoding="utf-8")
    template = load_template(str(path))
    assert template.description == '2 steps, then "answer"' and template.name == "t"
    assert template.stop[0] == "\nObservation:" and template.language == "zh" and template.episodes == ()


def test_missing_front_matter_or_bad_bytes(tmp_path: Path) -> None:
    plain = tmp_path / "plain.j2"
    plain.write_text("Question: {{ question }}\nThought:")
    with pytest.raises(TemplateError, match="missing front matter"):
        load_template(str(plain))
    binary = tmp_path / "binary.j2"
    binary.write_bytes(b"{#- dialect: classic -#}\xff\xfe")
    with pytest.raises(TemplateError, match="not UTF-8"):
        load_template(str(binary))


def test_bad_example_files_name_the_file(tmp_path: Path) -> None:
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "bad.json").write_text('[\n{"question": "x",\n}\n]')
    _write(tmp_path, "t", "Thought:", extra="examples: bad\n")
    with pytest.raises(TemplateError) as info:
        load_template("t", [tmp_path])
    assert info.value.path == str(tmp_path / "examples" / "bad.json") and info.value.line == 3
    (tmp_path / "examples" / "bad.json").write_text('{"episodes": [{"question": "x", "steps": [{"tool": "a"}]}]}')
    with pytest.raises(TemplateError, match="episode 1 step 1: 'thought'"):
        load_template("t", [tmp_path])


def test_syntax_and_undefined_errors_name_the_line(tmp_path: Path) -> None:
    error = _error(tmp_path, "Question: {{ question }}\n{% for x in %}\nThought:")
    assert error.line == 8 and "syntax error" in error.reason
    error = _error(tmp_path, "Question: {{ question }}\n\n{{ not_a_variable }}\nThought:")
    assert error.line == 9 and "'not_a_variable' is undefined" in error.reason
    error = _error(tmp_path, "{{ tools[0].nope }}\nThought:")
    assert error.line == 7 and "undefined" in error.reason


@pytest.mark.parametrize("body", [
    "{{ ''.__class__.__mro__ }}",
    "{{ question.__class__ }}",
    "{{ range.__globals__ }}",
    "{{ '{0.__class__}'.format(question) }}",
    "{{ tools[0].__dataclass_fields__ }}",
    "{{ cycler.__init__.__globals__ }}",
    "{{ format_action.__globals__['json'] }}",
])
def test_attribute_escapes_are_refused(tmp_path: Path, body: str) -> None:
    error = _error(tmp_path, "line one\n" + body + "\nThought:")
    assert error.line == 8
    assert "unsafe" in error.reason or "undefined" in error.reason
    assert "<" not in error.reason  # no object repr leaks out


@pytest.mark.parametrize("body, reason", [
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "loop iterations"),
    ("{{ 'x' * 1000000000 }}", "limit is"),
    ("{{ [0] * 1000000000 }}", "limit is"),
    ("{{ 10 ** 100000 }}", "power too large"),
    ("{{ 'x'|center(1000000000) }}", "padded string"),
    ("{{ 'x'.ljust(1000000000) }}", "padded string"),
    ("{{ '{:1000000000}'.format(1) }}", "format width"),
    ("{{ '%1000000000d' % 1 }}", "format width"),
    ("{{ '%1000000000d'|format(1) }}", "format width"),
    ("{% set big = 'x' * 100000 %}{{ big|replace('', big) }}", "limit is"),
    ("{{ [1]|slice(1000000000)|list }}", "filter argument"),
    ("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "limit is"),
    ("{% macro d(n) %}{% if n %}{% set s = d(n-1) %}{{ s }}{{ s }}{% endif %}x{% endmacro %}{{ d(64) }}", "limit is"),
    ("{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(64) }}", "calls"),
    ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "recursion"),
    ("{% macro m() %}{% for i in range(20000) %}{{ 'y' * 100 }}{% endfor %}{% endmacro %}{% set x = m() %}",
     "characters of output"),
])
def test_expensive_templates_are_stopped(tmp_path: Path, body: str, reason: str) -> None:
    # a generous clock: on a loaded machine the 2 s limit could otherwise trip before the limit under test
    error = _error(tmp_path, "line one\n" + body + "\nThought:", limits=RenderLimits(seconds=120))
    assert error.line == 8
    assert "too expensive" in error.reason and reason in error.reason


def test_the_time_limit_stops_a_render(tmp_path: Path) -> None:
    error = _error(tmp_path, "{% for t in tools %}{{ t.name }}{% endfor %}\nThought:", limits=RenderLimits(seconds=0))
    assert "took longer than 0 s" in error.reason and error.line == 7


def test_an_oversized_prompt_is_refused(tmp_path: Path) -> None:
    error = _error(tmp_path, "{% for i in range(3000) %}{{ 'y' * 100 }}{% endfor %}\nThought:")
    assert "prompt is over 200000 characters" in error.reason


def test_includes_and_a_missing_turn_label_are_errors(tmp_path: Path) -> None:
    error = _error(tmp_path, "x\n{% include '/etc/passwd' %}\nThought:")
    assert error.line == 8 and "not supported" in error.reason
    error = _error(tmp_path, "Question: {{ question }}\nAnswer:")
    assert "must end with the label" in error.reason and "'Thought:'" in error.reason


# --- CLI -----------------------------------------------------------------------------------


def test_cli_lists_templates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _write(tmp_path, "mine", "Thought:", dialect="call")
    _write(tmp_path, "broken", "{{ x\nThought:")
    assert cli_main(["templates", "--path", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert rows["zh"][:3] == ["zh", "zh", "zh"] and rows["zh"][3].endswith("zh.j2")
    assert rows["mine"][:3] == ["mine", "call", "en"] and rows["mine"][3] == str(tmp_path / "mine.j2")
    assert set(SHIPPED) <= set(rows)
    assert "broken.j2:8: syntax error" in err


def test_cli_shows_a_render_with_the_builtin_tools(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["templates", "show", "paper", "--question", "How tall is the tower?"]) == 0
    out, err = capsys.readouterr()
    assert out.rstrip().endswith("Question: How tall is the tower?\nThought 1:")
    assert "- calculator[expression]:" in out and "- search[query]:" in out and "current_time[]" in out
    assert "dialect paper" in err
    assert cli_main(["templates", "show", "nope"]) == 2
    assert "unknown template 'nope'" in capsys.readouterr().err
    assert cli_main(["templates", "show"]) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_episodes_never_misreport_the_calculator(lang):
    """An episode teaches by example: one that says the calculator cannot read '15% of 3960' (it returns 642)
    teaches the model to avoid an input that works. Every calculator step shows what the calculator does."""
    from react_text.prompting.templates import load_examples
    from react_text.tools.calculator import calculator

    root = Path(__file__).resolve().parents[1] / "prompts" / "examples"
    steps = [s for e in load_examples(root / f"{lang}.json") for s in e.steps if s.tool == "calculator"]
    assert steps
    for step in steps:
        try:
            result = calculator(**step.args)
        except Exception:
            assert step.observation.startswith("Error"), step
        else:
            assert step.observation == str(result), step


def test_param_lines_puts_each_described_parameter_on_its_own_line_for_templates_of_ones_own() -> None:
    """The ``param_lines`` filter (no shipped template uses it yet: listing parameters this way cost the shim
    its declines on a BFCL sample) lists type, enum members, required/optional and the description."""
    from react_text.prompting.tool_views import param_lines

    tool = {"type": "function", "function": {"name": "get_weather", "description": "Current weather.",
            "parameters": {"type": "object", "required": ["location"], "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. Berkeley, CA"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}}}}}
    (spec,) = describe_tools([tool])
    assert param_lines(spec) == ('\n  - location (string, required): The city and state, e.g. Berkeley, CA'
                                 '\n  - unit ("celsius" | "fahrenheit", optional, default "celsius")')
    assert "必填" in param_lines(spec, "zh")
    bare = describe_tools([{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"x": {"type": "integer"}}}}}])[0]
    assert param_lines(bare) == ""
