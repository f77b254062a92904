"""Task suites: loading, refusing bad files, answer matching, and the integrity
of the shipped suites and corpus (every expected value re-derived here)."""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.eval.answers import (
    answer_matches,
    deciding_number,
    extract_numbers,
    normalize_text,
    parse_tolerance,
)
from react_text.lexicon.answers import is_refusal
from react_text.eval.suites import (
    BUILTIN_TOOLS,
    Suite,
    SuiteError,
    Task,
    builtin_corpus_dir,
    list_suites,
    load_suite,
    match_answer,
    parse_suite,
)

SUITE_NAMES = ["arithmetic", "distractor", "lookup", "multihop", "tools", "unanswerable"]


def _task(match: str, expected, *, tolerance=None, question: str = "q") -> Task:
    return Task(id="t", question=question, expected=expected, match=match, tools=(), lang="en",
                category="c", tolerance=tolerance)


def _line(**fields) -> str:
    record = {"id": "t1", "question": "What is 6 × 7?", "expected": 42, "match": "number",
              "tools": ["calculator"], "lang": "en", "category": "arithmetic"}
    record.update(fields)
    return json.dumps({k: v for k, v in record.items() if v is not ...}, ensure_ascii=False)


# --- loading -----------------------------------------------------------------------

def test_builtin_suites_are_listed_and_load_by_name():
    assert list_suites() == SUITE_NAMES
    for name in SUITE_NAMES:
        suite = load_suite(name)
        assert isinstance(suite, Suite) and suite.name == name
        assert suite.sources == (name,)
        assert {task.category for task in suite} == {name}
        assert all(task.source == name and task.line >= 1 for task in suite)
        assert suite.corpus_dir == builtin_corpus_dir()


def test_all_loads_every_suite_with_at_least_80_tasks_in_both_languages():
    suite = load_suite("all")
    assert suite.sources == tuple(SUITE_NAMES)
    assert len(suite) >= 80
    langs = Counter(task.lang for task in suite)
    assert set(langs) == {"en", "zh"}
    assert 0.3 <= langs["zh"] / len(suite) <= 0.5, langs
    per_category = Counter((task.category, task.lang) for task in suite)
    for name in SUITE_NAMES:
        assert per_category[(name, "en")] >= 5 and per_category[(name, "zh")] >= 5, per_category


def test_several_suites_at_once_keep_file_order_and_skip_repeats():
    suite = load_suite(["lookup", "arithmetic", "lookup"])
    assert suite.sources == ("lookup", "arithmetic")
    assert suite.name == "lookup+arithmetic+lookup"
    categories = [task.category for task in suite]
    assert categories == sorted(categories, key=["lookup", "arithmetic"].index)
    assert len(load_suite(["all", "multihop"])) == len(load_suite("all"))
    assert len(load_suite("lookup.jsonl")) == len(load_suite("lookup"))


def test_task_lookup_by_id():
    suite = load_suite("lookup")
    assert suite.task("lookup-zh-02").expected == "林雪梅"
    with pytest.raises(KeyError):
        suite.task("no-such-task")


def test_unknown_name_and_missing_file_are_refused_with_the_choices(tmp_path):
    with pytest.raises(SuiteError) as info:
        load_suite("lokup")
    assert "lokup" in str(info.value) and "lookup" in str(info.value) and "all" in str(info.value)
    with pytest.raises(SuiteError, match="no such file"):
        load_suite(str(tmp_path / "missing.jsonl"))
    with pytest.raises(SuiteError, match="is a folder"):
        load_suite(tmp_path)
    with pytest.raises(SuiteError, match="no suite given"):
        load_suite([])


def test_user_file_uses_the_corpus_folder_beside_it(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text(_line() + "\n", encoding="utf-8")
    suite = load_suite(path)
    assert suite.corpus_dir is None and suite.name == "mine"
    (tmp_path / "corpus").mkdir()
    suite = load_suite(str(path))
    assert suite.corpus_dir == tmp_path / "corpus"
    assert suite.tasks[0].expected == 42 and suite.tasks[0].line == 1
    with pytest.raises(SuiteError, match="different corpus folders"):
        load_suite([path, "lookup"])


def test_user_file_may_share_the_shipped_corpus_when_it_has_none(tmp_path):
    path = tmp_path / "extra.jsonl"
    path.write_text(_line(id="extra-1") + "\n", encoding="utf-8")
    suite = load_suite([path, "lookup"])
    assert suite.corpus_dir == builtin_corpus_dir()
    assert suite.tasks[0].id == "extra-1"


# --- validation ------------------------------------------------------------------------

def test_every_bad_line_is_reported_with_its_number_and_nothing_is_returned(tmp_path):
    lines = [
        _line(id="ok-1"),                                        # 1 fine
        '{"id": "broken", "question": ',                         # 2 not JSON
        _line(id="no-question", question=...),                   # 3 missing field
        _line(id="bad-kind", match="fuzzy"),                      # 4 unknown match kind
        _line(id="bad-regex", match="regex", expected="(unclosed"),  # 5
        _line(id="ok-1"),                                        # 6 duplicate id
        _line(id="nan", expected="forty-two"),                   # 7 number not numeric
        "",                                                      # 8 blank: skipped
        _line(id="tol", match="contains", expected="x", tolerance=1),  # 9 tolerance on contains
        _line(id="tool", tools=["calculater"]),                  # 10 unknown tool
        _line(id="field", tolerence=1),                           # 11 unknown field (typo)
        _line(id="ref", match="refusal", expected="no"),          # 12 refusal with expected
        _line(id="one", match="one_of", expected=[]),             # 13 empty one_of
        "[1, 2, 3]",                                             # 14 not an object
        _line(id="neg", tolerance=-1),                            # 15 negative tolerance
        _line(id="pct", tolerance="abc%"),                        # 16 bad relative tolerance
        _line(id="lang", lang="English"),                         # 17 bad language tag
        _line(id="no-expected", expected=...),                    # 18 missing expected
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    problems = info.value.problems
    assert sorted({p.line for p in problems}) == [2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]
    by_line = {p.line: p.message for p in problems}
    assert "not valid JSON" in by_line[2]
    assert "missing field 'question'" in by_line[3]
    assert "'fuzzy'" in by_line[4] and "one_of" in by_line[4]
    assert "regular expression" in by_line[5]
    assert "duplicate id 'ok-1'" in by_line[6] and f"{path}:1" in by_line[6]
    assert "numeric" in by_line[7]
    assert "only applies" in by_line[9]
    assert "calculater" in by_line[10] and "calculator" in by_line[10]
    assert "tolerence" in by_line[11]
    assert "refusal" in by_line[12]
    assert "one_of" in by_line[13]
    assert "JSON object" in by_line[14]
    assert ">= 0" in by_line[15]
    assert "abc%" in by_line[16]
    assert "lang" in by_line[17]
    assert "missing field 'expected'" in by_line[18]
    message = str(info.value)
    assert "before any work started" in message
    for line in by_line:
        assert f"{path}:{line}:" in message


def test_all_problems_across_files_are_listed_together(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(_line(id="same") + "\nnot json\n", encoding="utf-8")
    second.write_text(_line(id="same") + "\n", encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite([first, second])
    found = {(Path(p.source).name, p.line) for p in info.value.problems}
    assert found == {("a.jsonl", 2), ("b.jsonl", 1)}


def test_empty_file_is_refused_and_blank_lines_keep_physical_line_numbers(tmp_path):
    with pytest.raises(SuiteError, match="holds no tasks"):
        parse_suite("\n\n  \n", "empty.jsonl")
    suite = parse_suite("\n\n" + _line(id="third") + "\n")
    assert suite.tasks[0].line == 3


def test_custom_tools_are_accepted_when_the_caller_names_them():
    text = _line(tools=["get_weather"])
    with pytest.raises(SuiteError, match="get_weather"):
        parse_suite(text)
    assert parse_suite(text, known_tools=None).tasks[0].tools == ("get_weather",)
    assert parse_suite(text, known_tools={"get_weather"}).tasks[0].tools == ("get_weather",)


def test_loaded_values_are_normalised_and_frozen():
    suite = parse_suite("\n".join([
        _line(id="a", expected="3,379", tolerance="1%"),
        _line(id="b", match="one_of", expected=["x", "y"]),
        _line(id="c", match="refusal", expected=...),
    ]))
    a, b, c = suite.tasks
    assert a.expected == 3379.0 and a.tolerance == "1%"
    assert b.expected == ("x", "y")
    assert c.expected is None
    with pytest.raises(AttributeError):
        a.expected = 1  # type: ignore[misc]


# --- numbers -------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [
    "3379", "3,379", "3379.0", "about 3379", "It is 3,379.", "The answer is **3379**",
    "共有3,379人。", "答案是３３７９", "３，３７９人", "约 3379 人", "3\u202f379", "3\u2009379", "3.379e3",
])
def test_number_forms_that_mean_3379(answer):
    assert answer_matches("number", 3379, answer), answer


@pytest.mark.parametrize("answer", ["3,380", "33,79", "337.9", "3 379", "3379 or 3380", "no idea", "", "   ", None])
def test_number_forms_that_do_not_mean_3379(answer):
    assert not answer_matches("number", 3379, answer), answer


def test_percentages_scales_and_signs():
    assert answer_matches("number", 12.5, "12.5%")
    assert answer_matches("number", 0.125, "12.5%")
    assert answer_matches("number", 0.125, "百分之12.5")
    assert answer_matches("number", 18.1, "about 18.1 per cent")
    assert answer_matches("number", 235_000_000, "全年销售额为2.35亿元")
    assert answer_matches("number", 35_000, "约3.5万人")
    assert answer_matches("number", 3.5, "约3.5万人")  # the face value is still a reading
    assert answer_matches("number", 318_600_000, "318.6 million crowns")
    assert answer_matches("number", -42, "The result is \u221242.")  # U+2212 minus sign
    assert answer_matches("number", -42, "-42")
    assert answer_matches("number", 1_500_000, "1.5e6")
    assert not answer_matches("number", -7, "the Heron-7 robot")
    assert answer_matches("number", 7, "the Heron-7 robot")
    assert not answer_matches("number", 35_000, "3.5")


def test_extract_numbers_reads_each_number_once():
    values = [m.values[0] for m in extract_numbers("On 2024-03-01 at 10:30, 1,2,3 and 1,234,567.5 (x) ")]
    assert values == [2024, 3, 1, 10, 30, 1, 2, 3, 1234567.5]
    assert [m.bracketed for m in extract_numbers("5 (6 [7]) 8")] == [False, True, True, False]
    assert extract_numbers("three moons, 三千人") == []


def test_the_deciding_number_is_the_last_new_one_outside_brackets():
    copied = {7384, 129, 56201}
    assert deciding_number("1,008,737 (7,384 × 129 + 56,201)").values[0] == 1008737
    assert deciding_number("1,008,737 is 7,384 × 129 + 56,201", copied).values[0] == 1008737
    assert deciding_number("1,008,737 is 7,384 × 129 + 56,201").values[0] == 56201
    assert deciding_number("7384 * 129 + 56201 = 1008737", copied).values[0] == 1008737
    # Only copied or bracketed numbers: judged by the last one outside brackets, else the last.
    assert deciding_number("212 passengers, as the note says (page 3)", {212, 3}).values[0] == 212
    assert deciding_number("(5) (6)").values[0] == 6
    assert deciding_number("no numbers here") is None


def test_listing_guesses_does_not_pass_by_containing_the_right_number():
    assert not answer_matches("number", 96426, "It is 96,426 or maybe 96,500.")
    assert not answer_matches("number", 96426, "96,426? No wait, 98,000.")
    assert answer_matches("number", 96426, "Maybe 98,000... no: 96,426.")
    context = ("If the population doubled, how many?", "the town had a population of 48,213")
    assert not answer_matches("number", 96426, "96,426 or 96,500", context=context)


def test_numbers_echoed_from_the_question_or_the_facts_do_not_decide():
    question = "What was the population of the town of Varnholt at the 2023 census?"
    answer = "Varnholt had 48,213 inhabitants at the 2023 census."
    assert answer_matches("number", 48213, answer, context=[question])
    assert not answer_matches("number", 48213, answer)
    zh_question = "青石镇2022年的人口是多少？"
    assert answer_matches("number", 26480, "青石镇有26,480人（2022年统计）", context=[zh_question])
    assert answer_matches("number", 26480, "26480人，这是2022年的数据", context=[zh_question])
    facts = ("How many years passed?", "founded in 1687", "opened in 1994")
    assert answer_matches("number", 307, "307 years passed between 1687 and 1994.", context=facts)
    assert not answer_matches("number", 307, "From 1687 to 1994.", context=facts)
    # A context number equal to the expected value still counts as the answer.
    lookup = ("How many residents?", "Varnhalt had 3,917 residents")
    assert answer_matches("number", 3917, "48,213? No, Varnhalt had 3,917.", context=lookup)
    assert not answer_matches("number", 3917, "Varnhalt had 3,917 residents, or 4,000.", context=lookup)


def test_tolerance_absolute_relative_and_default():
    assert answer_matches("number", 13871.54, "13871.539", tolerance=0.006)
    assert not answer_matches("number", 13871.54, "13871.53", tolerance=0.006)
    assert answer_matches("number", 1000, "1,009", tolerance="1%")
    assert not answer_matches("number", 1000, "1,011", tolerance="1%")
    assert answer_matches("number", 0.1 + 0.2, "0.3")  # float rounding is not a miss
    assert not answer_matches("number", 3379, "3379.01")
    assert parse_tolerance(None) == (0.0, False)
    assert parse_tolerance(2) == (2.0, False)
    assert parse_tolerance(" 5% ") == (5.0, True)
    for bad in (-1, "5", "x%", True, float("nan"), float("inf"), [1]):
        with pytest.raises(ValueError):
            parse_tolerance(bad)


@settings(max_examples=200, deadline=None)
@given(
    value=st.one_of(st.integers(-10**12, 10**12), st.decimals(-10**6, 10**6, places=3).map(float)),
    separators=st.booleans(),
    full_width=st.booleans(),
    before=st.sampled_from(["", "The answer is ", "答案是", "约", "≈ ", "Result: "]),
    after=st.sampled_from(["", ".", "。", " people", "人", " (rounded)", " (7 × 3 + 1)"]),
)
def test_any_written_number_is_read_back(value, separators, full_width, before, after):
    text = f"{value:,}" if separators else f"{value}"
    if full_width:
        text = text.translate(str.maketrans("0123456789,.-", "０１２３４５６７８９，．－"))
    assert answer_matches("number", value, before + text + after), before + text + after


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_matching_never_raises_on_any_text(answer):
    for kind, expected in (("number", 42), ("exact", "x"), ("contains", "x"), ("one_of", ("x", "y")),
                           ("regex", r"\d+"), ("refusal", None)):
        assert answer_matches(kind, expected, answer, tolerance=None) in (True, False)
    for mention in extract_numbers(answer):
        assert mention.values and all(isinstance(v, float) for v in mention.values)


# --- text kinds -------------------------------------------------------------------------

def test_normalize_text_folds_case_width_punctuation_and_cjk_spacing():
    assert normalize_text("  ＴＨＵＲＳＤＡＹ. ") == "thursday"
    assert normalize_text("Heron-7!") == "heron 7"
    assert normalize_text("飞 燕 队。") == "飞燕队"
    assert normalize_text("“Blue   Heron”") == "blue heron"


def test_exact():
    assert answer_matches("exact", "Thursday", "thursday.")
    assert answer_matches("exact", "Thursday", "ＴＨＵＲＳＤＡＹ")
    assert not answer_matches("exact", "Thursday", "It is Thursday")
    assert answer_matches("exact", "飞燕队", "飞燕队。")


def test_contains_respects_word_boundaries_but_not_for_chinese():
    assert answer_matches("contains", "Ilse Marrow", "The mayor is ILSE   MARROW.")
    assert answer_matches("contains", "Heron-7", "their robot, the Heron 7, lifts pallets")
    assert not answer_matches("contains", "Orin", "the Orinoco river")
    assert not answer_matches("contains", "3", "13 moons")
    assert answer_matches("contains", "3", "13 moons, no: 3 moons")
    assert answer_matches("contains", "飞燕队", "冠军是飞燕队。")
    assert answer_matches("contains", "Varnholt", "瓦恩霍尔特（Varnholt）")
    assert not answer_matches("contains", "Ilse Marrow", "Ilse")


def test_one_of_accepts_any_option_as_contained_words():
    options = ("3", "three")
    assert answer_matches("one_of", options, "Tavu has three moons.")
    assert answer_matches("one_of", options, "3")
    assert not answer_matches("one_of", options, "Tavu has thirteen moons.")
    assert not answer_matches("one_of", options, "Tavu has 2 moons.")


def test_regex_is_case_insensitive_and_sees_canonical_text():
    pattern = r"(?<![0-9])0?3\s*月\s*0?1\s*日|March\s+1(?![0-9])"
    assert answer_matches("regex", pattern, "30天后是３月１日。")
    assert answer_matches("regex", pattern, "it is MARCH 1, 2024")
    assert not answer_matches("regex", pattern, "March 10")
    assert not answer_matches("regex", pattern, "13月1日")


@pytest.mark.parametrize("answer", [
    "I cannot find that information.", "I don't know.", "The documents do not mention his salary.",
    "This is unknown.", "There is no information about that in the corpus.", "I can’t know your thoughts.",
    "It is impossible to predict the winner of a future race.", "I'm not sure; the search returned no results.",
    "无法确定。", "我不知道。", "资料中没有找到相关信息。", "文档里没有这方面的数据。", "这无法预测。",
])
def test_refusals_in_english_and_chinese(answer):
    assert is_refusal(answer)
    assert answer_matches("refusal", None, answer)


@pytest.mark.parametrize("answer", [
    "The population in 1850 was 12,400.", "Ilse Marrow's number is 555-0199.", "Blue Heron will win.",
    "1900年青石镇有8,000人。", "他的生日是3月5日。", "", None,
])
def test_invented_answers_are_not_refusals(answer):
    assert not answer_matches("refusal", None, answer)


def test_unknown_match_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown match kind"):
        answer_matches("fuzzy", "x", "x")


def test_match_answer_uses_the_tasks_rule_and_question():
    task = _task("number", 1008737, question="What is 7,384 multiplied by 129, plus 56,201?")
    assert match_answer(task, "1,008,737 = 7,384 × 129 + 56,201")
    bridge = Task(id="b", question="How many years between the founding and the bridge?", expected=307,
                  match="number", tools=(), lang="en", category="multihop",
                  evidence=("founded in 1687", "opened in 1994"))
    assert match_answer(bridge, "307 years passed between 1687 and 1994.")
    assert not match_answer(bridge, "It opened in 1994.")
    assert not match_answer(task, "7,384")
    assert not match_answer(_task("number", 5, tolerance=0.5), "5.6")
    assert match_answer(_task("number", 5, tolerance=0.5), "5.4")


# --- the shipped suites and corpus -----------------------------------------------------

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_FUNCS = {"sqrt": math.sqrt}
# Numbers a check may use without the question or the corpus stating them.
_CONSTANTS = {1, 2, 7, 24, 60, 100, 3600, 10000}


def _evaluate(node: ast.AST) -> float:
    """Arithmetic over number literals only; anything else is a test failure."""
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
            and len(node.args) == 1 and not node.keywords):
        return _FUNCS[node.func.id](_evaluate(node.args[0]))
    raise AssertionError(f"check uses something other than arithmetic: {ast.dump(node)}")


def _literals(node: ast.AST) -> list[float]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)]


def _squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite("all")


@pytest.fixture(scope="module")
def corpus() -> dict[str, str]:
    root = builtin_corpus_dir()
    return {str(p.relative_to(root)): _squash(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.txt"))}


def test_the_evaluator_in_this_test_refuses_non_arithmetic():
    for source in ("__import__('os')", "(1).__class__", "x + 1", "max(1, 2)", "'a' * 3"):
        with pytest.raises(AssertionError):
            _evaluate(ast.parse(source, mode="eval"))
    assert _evaluate(ast.parse("-(2 ** 3) + sqrt(16) % 3", mode="eval")) == -7.0


def test_corpus_has_short_documents_in_both_languages(corpus):
    assert 15 <= len(corpus) <= 30
    assert {name.split("/")[0] for name in corpus} == {"en", "zh"}
    root = builtin_corpus_dir()
    for path in root.rglob("*.txt"):
        paragraphs = [p for p in path.read_text(encoding="utf-8").split("\n\n") if p.strip()]
        assert 3 <= len(paragraphs) <= 8, path
        assert len(path.read_text(encoding="utf-8")) < 2500, path


def test_corpus_holds_near_miss_names(corpus):
    text = " ".join(corpus.values())
    for real, near in [("Varnholt", "Varnhalt"), ("Quillfeather", "Quillfield"), ("Corvel Bridge", "Corvell"),
                       ("planet Orin", "moon Orrin"), ("Milvane", "Milvan "), ("青石镇", "青石村"), ("白鹭湖", "白鹭塘")]:
        assert real in text
        if near != "Milvan ":  # Milvan appears only in a distractor question, never in the corpus
            assert near in text
    assert "Milvan " not in text


def test_tasks_use_only_builtin_tools_and_sensible_ones(suite):
    for task in suite:
        assert set(task.tools) <= BUILTIN_TOOLS, task.id
        assert f"-{task.lang}-" in task.id and task.id.startswith(task.category[:5]), task.id
        if task.category == "arithmetic":
            assert "calculator" in task.tools, task.id
        if task.category in ("lookup", "multihop"):
            assert "search" in task.tools, task.id
        if task.category == "multihop":
            assert "calculator" in task.tools, task.id


def test_every_check_rederives_the_expected_value(suite):
    checked = 0
    for task in suite:
        if task.check is None:
            continue
        assert task.match == "number", task.id
        value = _evaluate(ast.parse(task.check, mode="eval"))
        amount, relative = parse_tolerance(task.tolerance)
        allowed = abs(task.expected) * amount / 100 if relative else amount
        assert abs(value - task.expected) <= allowed + 1e-9 * max(1, abs(task.expected)), (task.id, value)
        assert match_answer(task, f"{value}"), task.id
        checked += 1
    assert checked >= 45


def test_checks_only_use_numbers_the_task_states(suite):
    for task in suite:
        if task.check is None:
            continue
        stated = {v for text in (task.question, *task.evidence) for m in extract_numbers(text) for v in m.values}
        for literal in _literals(ast.parse(task.check, mode="eval")):
            assert any(math.isclose(literal, s, rel_tol=1e-9) for s in stated) or literal in _CONSTANTS, \
                (task.id, literal)


def test_the_builtin_tools_solve_every_check(suite):
    """The real calculator computes each derivation, and its output passes."""
    from react_text.tools.calculator import calculator
    from react_text.tools.calling import call_tool

    for task in suite:
        if task.check is not None:
            observation = call_tool(calculator, {"expression": task.check})
            assert observation.ok and match_answer(task, observation.text), (task.id, observation.text)


def test_the_search_tool_reads_the_shipped_corpus_in_both_languages(suite):
    from react_text.tools.builtins import default_tools
    from react_text.tools.calling import call_tool

    search = {t.name: t for t in default_tools(corpus_dir=suite.corpus_dir)}["search"]
    english = call_tool(search, {"query": "Corvel Bridge"}).text
    chinese = call_tool(search, {"query": "青石村 村长"}).text
    assert "1,260 metres" in english and "selk_river.txt" in english
    assert "周大海" in chinese and "qingshi_village.txt" in chinese


def test_numeric_answers_are_derived_or_given(suite):
    for task in suite:
        if task.category in ("arithmetic", "multihop"):
            assert task.check is not None, task.id
        if task.match == "number" and task.check is None and not task.calls:
            sources = [task.question, *task.evidence]
            assert any(task.expected in m.values for s in sources for m in extract_numbers(s)), task.id


def test_every_evidence_string_occurs_in_exactly_one_corpus_document(suite, corpus):
    with_evidence = [task for task in suite if task.category in ("lookup", "multihop")]
    for task in with_evidence:
        assert task.evidence, task.id
        for evidence in task.evidence:
            holders = [name for name, text in corpus.items() if _squash(evidence) in text]
            assert len(holders) == 1, (task.id, evidence, holders)


def test_every_lookup_answer_is_written_in_the_corpus(suite, corpus):
    everything = " ".join(corpus.values())
    for task in suite:
        if task.category != "lookup":
            continue
        assert any(match_answer(task, evidence) for evidence in task.evidence), task.id
        if task.match in ("contains", "exact"):
            assert task.expected in everything, task.id
        elif task.match == "one_of":
            assert any(option in everything for option in task.expected), task.id


def test_unanswerable_tasks_really_lack_an_answer(suite, corpus):
    everything = " ".join(corpus.values()).casefold()
    unanswerable = [task for task in suite if task.category == "unanswerable"]
    assert len(unanswerable) >= 10
    for task in unanswerable:
        assert task.match == "refusal", task.id
        for phrase in task.absent:
            assert phrase.casefold() not in everything, (task.id, phrase)
        refusal = "I could not find this information." if task.lang == "en" else "资料中没有找到相关信息，无法回答。"
        assert match_answer(task, refusal), task.id
        assert not match_answer(task, "It is 4,200."), task.id


def test_refusing_or_guessing_fails_every_answerable_task(suite):
    for task in suite:
        if task.match == "refusal":
            continue
        assert not match_answer(task, "I don't know."), task.id
        assert not match_answer(task, "无法回答。"), task.id
        assert not match_answer(task, ""), task.id


def test_written_out_expected_answers_pass(suite):
    for task in suite:
        if task.match == "number":
            for text in (f"{task.expected}", f"The answer is {task.expected:,}.", f"答案是{task.expected}。"):
                assert match_answer(task, text), (task.id, text)
        elif task.match in ("contains", "exact"):
            assert match_answer(task, task.expected), task.id
        elif task.match == "one_of":
            assert all(match_answer(task, option) for option in task.expected), task.id


def test_regex_tasks_accept_their_answer_and_reject_a_near_miss(suite):
    founders = suite.task("lookup-en-05")
    assert match_answer(founders, "It was founded by Mara Quist and Tobias Grell in 2009.")
    assert not match_answer(founders, "Tobias Grell founded it.")
    date = suite.task("distract-zh-04")
    for answer in ("3月1日", "2024年3月1日", "2024-03-01", "It is March 1, 2024.", "1st March"):
        assert match_answer(date, answer), answer
    for answer in ("3月2日", "2月29日", "March 10", "2024-03-11"):
        assert not match_answer(date, answer), answer


def test_distractors_reject_the_tempting_answer(suite):
    assert not match_answer(suite.task("distract-en-01"), "The Milvane ferry carries 180 passengers.")
    assert not match_answer(suite.task("distract-en-05"), "The mayor is Ilse Marrow.")
    assert not match_answer(suite.task("distract-zh-02"), "青石镇有26,480人。")
    assert match_answer(suite.task("distract-zh-02"), "根据便条，青松镇有9,120人。")


def test_readme_documents_every_match_kind_and_field():
    readme = (Path(__file__).resolve().parents[1] / "suites" / "README.md").read_text(encoding="utf-8")
    for word in ("exact", "number", "contains", "regex", "one_of", "refusal", "tolerance", "check",
                 "evidence", "absent", "line number"):
        assert re.search(rf"\b{word}\b", readme), word


def test_tools_suite_answers_come_from_running_its_calls():
    """Every expected value of the ``tools`` suite is what its recorded calls return."""
    from react_text.eval.suite_tools import SUITE_TOOLS

    suite = load_suite("tools")
    assert len(suite) >= 40 and len({t for task in suite for t in task.tools}) >= 12
    assert sum(1 for task in suite if task.calls == ()) >= 6  # no offered tool fits
    assert sum(1 for task in suite if task.calls and len(task.calls) == 2) >= 4  # two calls needed
    for task in suite:
        assert task.calls is not None, task.id
        for tool, args in task.calls:
            assert tool in task.tools, task.id
        if task.calls and task.match != "regex":
            outputs = [SUITE_TOOLS[tool].fn(**args) for tool, args in task.calls]
            last = outputs[-1]
            if task.id in ("tools-en-19",):  # a sum of two results
                continue
            assert match_answer(task, last), (task.id, last, task.expected)
