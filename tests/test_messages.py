"""Correction messages as data: one file per language under ``prompts/corrections/``, read by ``lexicon.messages``."""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

from react_text.agent.policy import unknown_tool
from react_text.lexicon import messages
from react_text.checks.declines import no_fit_nudge
from react_text.checks.grounding import choice_nudge, grounding_nudge
from react_text.checks import ALL_CHECKS
from react_text.checks.reading import Situation
from react_text.checks.review import check_answer

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "prompts" / "corrections"


def _load(path: Path) -> dict[str, str]:
    return json.loads(path.read_text(encoding="utf-8"))


def _fields(template: str) -> set[str]:
    return {f"{name}!{conversion}" for _, name, _, conversion in string.Formatter().parse(template) if name is not None}


def test_every_language_has_the_same_keys_and_placeholders() -> None:
    tables = {path.stem: _load(path) for path in FOLDER.glob("*.json")}
    assert {"en", "zh"} <= set(tables)
    english = tables["en"]
    for lang, table in tables.items():
        assert table.keys() == english.keys(), lang
        for key, template in table.items():
            assert _fields(template) == _fields(english[key]), (lang, key)


def _constants(node: ast.expr) -> set[str]:
    """A key written out, or each key a conditional picks between."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _constants(node.body) | _constants(node.orelse)
    return set()


def _keys_in_code() -> set[str]:
    """Every string constant given as the key of ``message(lang, key, ...)``, the separator of ``joined``, or
    the key of the parser's ``Voice.say(key, ...)``."""
    keys: set[str] = set()
    for path in (ROOT / "react_text").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name == "message" and len(node.args) >= 2:
                keys |= _constants(node.args[1])
            elif name == "joined" and len(node.args) >= 3:
                keys |= _constants(node.args[2])
            elif name == "say" and isinstance(node.func, ast.Attribute) and node.args:
                keys |= _constants(node.args[0])
    return keys


def test_every_key_the_code_uses_is_in_the_files_and_every_key_is_used() -> None:
    used = _keys_in_code() | {"list.separator"}  # ``joined``'s default
    english = _load(FOLDER / "en.json")
    assert used and used <= english.keys(), used - english.keys()
    assert english.keys() <= used, english.keys() - used


def test_messages_read_as_they_did_when_they_were_code() -> None:
    """Written out here as the code wrote them before they became data, byte for byte."""
    assert grounding_nudge("convert", ("250", "x", "y", "z"), "en").message == (
        'Your call to convert uses "250" and "x" and "y", which appear in neither the question nor any result. '
        "Take the values from the question or the results; if none of the tools fits the question, "
        "answer it directly instead.")
    assert grounding_nudge("convert", ("250", "x"), "zh-CN").message == (
        "你调用 convert 时用了 “250”、“x”，但问题和已有结果里都没有这些值。参数要取自问题或结果；"
        "如果没有合适的工具，就直接回答问题。")
    assert no_fit_nudge("send_email", ("a", "b"), "zh").message.startswith(
        "没有名为 'send_email' 的工具，你的工具（a、b）也做不到这件事。")
    assert unknown_tool("wether", ("weather", "search"), "en").message == (
        "There is no tool 'wether'. Use one of: weather, search.")
    assert choice_nudge("convert", "Convert money. More text.", ("search",), "en").message == (
        "Check the tool: this question asks for what convert does (Convert money), not search. "
        "Call convert with values from the question, unless it cannot help.")
    for lang, places, expected, lead in (
            ("en", "two", "The question asks for the answer rounded to 2 decimal places: 2.333333 rounded is 2.33.",
             " Rounded to 2 decimal places, the answer is 2.33."),
            ("en", "one", "The question asks for the answer rounded to 1 decimal place: 2.333333 rounded is 2.3.",
             " Rounded to 1 decimal place, the answer is 2.3."),
            ("zh", "two", "问题要求答案保留2位小数：2.333333 四舍五入后是 2.33。", " 按要求保留2位小数，答案是 2.33。")):
        found = check_answer("2.333333", Situation(question=f"What is 7 / 3, to {places} decimal places?", lang=lang,
                                                   observations=("2.333333",), checks=ALL_CHECKS))
        assert found is not None and found.message == expected and found.lead == lead


def test_the_parsers_feedback_reads_as_it_did_when_it_was_code() -> None:
    from react_text.protocol import feedback
    from react_text.protocol.names import toolset

    tools = toolset({"search": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
                     "calculator": {"type": "object", "properties": {"expression": {"type": "string"}}}})
    assert feedback.unknown_tool(feedback.Voice(tools, "classic", 1, "zh"), "serch", "search", {"query": "x"}) == (
        "“serch”不是工具。你是不是想用 search？可用的工具：search, calculator。请原样使用其中之一，例如：\n"
        'Action: search\nAction Input: {"query": "x"}')
    assert feedback.unknown_tool(feedback.Voice(tools, "classic", 1), "serch", "search", {"query": "x"}).startswith(
        '"serch" is not a tool. Did you mean search? Valid tools: search, calculator. Use one of them exactly, e.g.\n')
    assert feedback.missing_answer(feedback.Voice(None, "zh", 2)) == "最终答案是空的。请写出答案本身，例如：\n最终答案：北京"


def test_a_third_language_is_one_file(tmp_path, monkeypatch) -> None:
    for path in FOLDER.glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    french = {key: f"[fr] {template}" for key, template in _load(FOLDER / "en.json").items()}
    (tmp_path / "fr.json").write_text(json.dumps(french), encoding="utf-8")
    monkeypatch.setattr(messages, "_folder", lambda: tmp_path)
    messages.languages.cache_clear()
    messages.table.cache_clear()
    try:
        assert messages.message("fr-FR", "no_fit.lead") == "[fr]  None of my tools can do that, so"
        assert messages.message("de", "no_fit.lead") == " None of my tools can do that, so"  # no file: English
    finally:
        messages.languages.cache_clear()
        messages.table.cache_clear()
