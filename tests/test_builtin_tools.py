"""Built-in tools: the eval-free calculator, local file search (English and Chinese), the time."""

from __future__ import annotations

import ast
import math
import re
import warnings
from datetime import datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import react_text.tools.calculator as calculator_module
from react_text.tools.builtins import default_tools
from react_text.tools.calculator import CalculatorError, calculate, calculator, format_number
from react_text.tools.clock import current_time
from react_text.tools.search import search_files
from react_text.tools.calling import call_tool


# --- calculator --------------------------------------------------------------------------

@pytest.mark.parametrize("expression, expected", [
    ("37 * 91 + 12", "3379"),
    ("2 + 3 * 4", "14"),
    ("(2 + 3) * 4", "20"),
    ("7 / 2", "3.5"),
    ("10 / 5", "2"),
    ("10**20 / 10**10", "10000000000"),
    ("7 // 2", "3"),
    ("-7 % 3", "2"),
    ("2 ** 10", "1024"),
    ("2 ** -2", "0.25"),
    ("2 ** 100", "1267650600228229401496703205376"),
    ("12345678901234567890 * 98765432109876543210", "1219326311370217952237463801111263526900"),
    ("0.1 + 0.2", "0.3"),
    ("1 / 3", "0.3333333333"),
    ("-(-3)", "3"),
    ("+5", "5"),
    ("sqrt(16)", "4"),
    ("sqrt(2)", "1.414213562"),
    ("sqrt(10**40)", "100000000000000000000"),
    ("abs(-4.5)", "4.5"),
    ("round(2.567, 2)", "2.57"),
    ("round(2.5)", "2"),
    ("min(3, 1, 2)", "1"),
    ("max(1, 234)", "234"),
    ("floor(2.7) + ceil(2.1)", "5"),
    ("log(100, 10)", "2"),
    ("log(e)", "1"),
    ("ln(1)", "0"),
    ("log10(1000)", "3"),
    ("exp(0)", "1"),
    ("sin(0) + cos(0)", "1"),
    ("tan(pi / 4)", "1"),
    ("pi", "3.141592654"),
    ("factorial(10)", "3628800"),
    ("pow(3, 4)", "81"),
    ("1e3 + 1", "1001"),
    ("1e20", "1e+20"),
    ("2.5e-7 * 2", "5e-07"),
    # spellings small models use
    ("3 × 4", "12"),
    ("10 ÷ 4", "2.5"),
    ("2^10", "1024"),
    ("2 x 3", "6"),
    ("5 − 2", "3"),
    ("1,234,567 + 1", "1234568"),
    ("1,234.5 * 2", "2469"),
    ("37 * 91 + 12 =", "3379"),
    ("= 6 * 7 = ?", "42"),
    ("３７×９１＋１２", "3379"),
    ("（１＋２）＊３", "9"),
    ("3²", "9"),
    ("2³ + 1", "9"),
    ("√16", "4"),
    ("√(9) * 2", "6"),
    ("2π", None),  # implicit multiplication is not guessed
    ("`6 * 7`", "42"),
    ("1_000 * 3", "3000"),
    ("4382,910 * 10", "43829100"),  # a mis-grouped number is still one number, not a tuple
    # words small models write in arithmetic (calc_words)
    ("17% of 846,300", "143871"),
    ("846300 * 17%", "143871"),
    ("10 % 3", "1"),  # modulo stays modulo
    ("318.6 million / 1842", "172964.1694"),
    ("2.35亿 / 735", "319727.8912"),
    ("1.5 thousand + 1", "1501"),
    ("3 的 4 次方", "81"),
    ("8642 的平方减去 1,357 的平方", "72842715"),
    ("2 raised to the power of 10", "1024"),
    ("12 plus 5 times 2", "22"),
    ("100 divided by 8 minus 0.5", "12"),
    ("2 squared + 3 cubed", "31"),
    ("$86 * 1.1 / 4", "23.65"),
    ("87 公里/小时 * 36 小时 + 1,245 公里", "4377 (= 87 * 36 + 1245)"),
    ("1,375 widgets per hour * 22 hours a day * 45 days", "1361250 (= 1375 * 22 * 45)"),
    ("5 kg + 300 kg", "305 (= 5 + 300)"),
    ("2023 census", None),  # a unit alone is no arithmetic
    ("2 pi", None),  # a name the calculator knows is not a unit
])
def test_calculator_evaluates(expression: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(CalculatorError):
            calculate(expression)
    else:
        assert calculate(expression) == expected


@pytest.mark.parametrize("expression, message", [
    ("9**9**9", "exponent"),
    ("2**1000**1000", "exponent"),
    ("10**5000", "exponent"),
    ("(10**999)**10", "too large"),
    ("(10**1000) * (10**1000) * (10**1000) * (10**1000)", "too large"),
    ("factorial(100000)", "too large"),
    ("1e308 * 10", "too large"),
    ("exp(1000)", "too large"),
    ("2.0 ** 5000", "too large"),
    ("1 / 0", "division by zero"),
    ("5 // 0", "division by zero"),
    ("5 % 0", "division by zero"),
    ("0 ** -1", "division by zero"),
    ("sqrt(-1)", "negative"),
    ("log(0)", "positive"),
    ("log(8, 1)", "base"),
    ("(-8) ** (1/3)", "not a real number"),
    ("().__class__", "cannot read '.'"),
    ("().__class__.__bases__[0].__subclasses__()", "cannot read '.'"),
    ("__import__('os').system('echo hi')", "cannot read \"'\""),
    ("__import__(1)", "unknown function '__import__'"),
    ("open(0)", "unknown function 'open'"),
    ("eval(1)", "unknown function 'eval'"),
    ("x + 1", "unknown name 'x'"),
    ("sqrt", "is a function"),
    ("sqrt(1, 2)", "takes 1 argument"),
    ("round(1.5, digits=1)", "cannot read '='"),
    ("max(*[1, 2])", "cannot read '['"),
    ("1 if 1 else 2", "cannot read the word 'if'"),
    ("1 < 2", "cannot read '<'"),
    ("1 << 100000", "cannot read '<'"),
    ("~1", "cannot read '~'"),
    ("(lambda: 1)()", "cannot read the word 'lambda'"),
    ("'a' * 3", "cannot read \"'\""),
    ("1j * 2", "number followed directly by a name"),
    ("2pi", "write the operator, e.g. 2 * pi"),
    ("True + 1", "cannot read the word 'True'"),
    ("(x := 3)", "cannot read ':'"),
    ("what is 2 + 2", "cannot read the word 'is'"),
    ("2 + 2 # comment", "cannot read '#'"),
    ("1.5.real", "cannot read '.'"),
    ("", "empty"),
    ("   =  ", "empty"),
    ("the sum of 2 and 2", "cannot read"),
    ("1 +* 2", "cannot read"),
    ("2 +" * 400 + "2", "too long"),
    ("1" * 5000, "too long"),
    ("(" * 250 + "1" + ")" * 250, "cannot read"),
    ("-" * 100 + "1", "nested too deeply"),
    ("+".join(["1"] * 200), "too many parts"),
    ("\x00", "cannot read"),
    ("5 kg + 300 g", "the units differ (kg, g)"),
    ("48,917,73,604 + 1", "a tuple"),
])
def test_calculator_rejects_with_a_clear_error(expression: str, message: str) -> None:
    with pytest.raises(CalculatorError, match=re.escape(message)):
        calculate(expression)


@pytest.mark.parametrize("source, message", [
    ("().__class__", "attribute access is not allowed"),
    ("(1).real", "attribute access is not allowed"),
    ("__import__('os').system('x')", "attribute access is not allowed"),
    ("__import__('os')", "unknown function '__import__'"),
    ("(lambda: 1)()", "lambda is not allowed"),
    ("[1, 2][0]", "indexing is not allowed"),
    ("1 < 2", "comparison is not allowed"),
    ("1 << 100000", "the operator LShift is not allowed"),
    ("~1", "the operator Invert is not allowed"),
    ("not 1", "the operator Not is not allowed"),
    ("1 if 1 else 2", "if/else is not allowed"),
    ("(x := 3)", "NamedExpr is not allowed"),
    ("'a' * 3", "the value 'a' cannot be used"),
    ("1j", "complex numbers cannot be used"),
    ("True + 1", "the value True cannot be used"),
    ("round(1.5, digits=1)", "plain positional numbers"),
    ("max(*[1, 2])", "plain positional numbers"),
    ("f'{1}'", "an f-string is not allowed"),
])
def test_the_ast_whitelist_is_a_second_wall(source: str, message: str) -> None:
    """Even text that got past the token check cannot reach anything but arithmetic."""
    with pytest.raises(CalculatorError, match=re.escape(message)):
        calculator_module._Evaluator().evaluate(ast.parse(source, mode="eval"))


def test_calculator_source_has_no_eval() -> None:
    source = Path(calculator_module.__file__).read_text(encoding="utf-8")
    called = {node.func.id for node in ast.walk(ast.parse(source))
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not called & {"eval", "exec", "compile", "__import__"}


def test_non_string_input_is_an_error() -> None:
    with pytest.raises(CalculatorError, match="text"):
        calculate(12)  # type: ignore[arg-type]


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_calculator_raises_only_its_own_error(text: str) -> None:
    try:
        result = calculate(text)
    except CalculatorError:
        return
    assert isinstance(result, str) and result


_ALPHABET = "0123456789+-*/%().^×÷ ,eπ√²abcdefghijklmnopqrstuvwxyz_[]{}'\"<>=!~&|@:;"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=120))
def test_calculator_raises_only_its_own_error_on_arithmetic_like_text(text: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            calculate(text)
        except CalculatorError:
            pass
    assert not caught  # no SyntaxWarning noise from Python's parser reaches the agent's stderr


def _expressions() -> st.SearchStrategy[tuple[str, Fraction]]:
    """(text, exact value) pairs over + - * with parentheses: the oracle never calls eval."""
    leaves = st.integers(-10**6, 10**6).map(lambda n: (f"({n})" if n < 0 else str(n), Fraction(n)))

    def combine(children: st.SearchStrategy[tuple[str, Fraction]]) -> st.SearchStrategy[tuple[str, Fraction]]:
        def build(parts: tuple[tuple[str, Fraction], str, tuple[str, Fraction]]) -> tuple[str, Fraction]:
            (left, a), op, (right, b) = parts
            value = {"+": a + b, "-": a - b, "*": a * b}[op]
            return f"({left} {op} {right})", value
        return st.tuples(children, st.sampled_from("+-*"), children).map(build)

    return st.recursive(leaves, combine, max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(_expressions())
def test_integer_arithmetic_is_exact(case: tuple[str, Fraction]) -> None:
    text, value = case
    assert calculate(text) == str(int(value))


@settings(max_examples=200, deadline=None)
@given(st.integers(-10**9, 10**9), st.integers(1, 10**6))
def test_division_is_exact_or_ten_significant_digits(a: int, b: int) -> None:
    result = calculate(f"{a} / {b}")
    if a % b == 0:
        assert result == str(a // b)
    else:
        assert math.isclose(float(result), a / b, rel_tol=1e-9)


def test_format_number() -> None:
    assert [format_number(v) for v in (3, -0.0, 2.0, 1e15, 1 / 3, -2.50, 123456789.123456)] == \
        ["3", "0", "2", "1e+15", "0.3333333333", "-2.5", "123456789.1"]


def test_calculator_tool_through_call_tool() -> None:
    assert calculator.name == "calculator"
    assert calculator.required == ("expression",)
    assert calculator.example == {"expression": "(4 + 6) * 2.5"}
    assert call_tool(calculator, "37 * 91 + 12").text == "3379"
    assert call_tool(calculator, {"query": "6 * 7"}).text == "42"  # wrong argument name, one parameter
    failed = call_tool(calculator, "1 / 0")
    assert (failed.ok, failed.code, failed.retryable) == (False, "tool_error", False)
    assert failed.text == "Tool calculator failed: CalculatorError: division by zero"
    assert call_tool(calculator, "9**9**9").code == "tool_error"  # bounded, never a timeout


# --- search ------------------------------------------------------------------------------

@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "cities").mkdir(parents=True)
    (folder / "cities" / "paris.md").write_text(
        "# Paris\n\nThe Eiffel Tower is 330 metres tall. It was finished in 1889 for the World's Fair.\n\n"
        "Paris has about 2.1 million inhabitants and is the capital of France, on the river Seine.\n",
        encoding="utf-8")
    (folder / "cities" / "rome.txt").write_text(
        "Rome is the capital of Italy. The Colosseum held about 50,000 spectators during games.\n",
        encoding="utf-8")
    (folder / "长城.txt").write_text(
        "长城是中国古代的军事防御工程，总长度超过两万一千公里。\n\n"
        "故宫位于北京，是明清两代的皇家宫殿，现在是博物馆。\n", encoding="utf-8")
    (folder / "recipes.md").write_text(
        "Pancakes need flour, eggs and milk. Towers of pancakes are popular for breakfast.\n", encoding="utf-8")
    (folder / "script.py").write_text("EIFFEL = 'tower in a python file'\n", encoding="utf-8")
    (folder / ".hidden.txt").write_text("Eiffel tower secret\n", encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text("Eiffel Tower outside the corpus folder\n", encoding="utf-8")
    (folder / "link.txt").symlink_to(outside)
    return folder


def _hits(text: str) -> list[str]:
    return re.findall(r"^\[\d+\] (\S+):", text, flags=re.MULTILINE)


def test_search_finds_the_best_passage_first(corpus: Path) -> None:
    search = search_files(corpus)
    assert search.name == "search" and search.required == ("query",)
    result = call_tool(search, "How tall is the Eiffel tower?")
    assert result.ok
    hits = _hits(result.text)
    assert hits[0] == "cities/paris.md"
    assert "330 metres" in result.text.splitlines()[0]
    assert "script.py" not in result.text and ".hidden" not in result.text
    assert "outside the corpus" not in result.text and "link.txt" not in hits
    assert _hits(search("capital of Italy"))[0] == "cities/rome.txt"
    assert _hits(search("COLOSSEUM spectators"))[0] == "cities/rome.txt"  # case-insensitive


def test_search_in_chinese(corpus: Path) -> None:
    search = search_files(corpus)
    answer = search("长城有多长？")
    assert _hits(answer)[0] == "长城.txt" and "两万一千公里" in answer
    palace = search("故宫在哪里")
    assert "故宫位于北京" in palace.splitlines()[0]
    assert "军事" not in palace.splitlines()[0]  # separate paragraphs are separate passages


def test_search_without_results_says_so(corpus: Path, tmp_path: Path) -> None:
    search = search_files(corpus)
    assert search("quantum chromodynamics") == 'No results for "quantum chromodynamics" in 4 files. Try other keywords.'
    assert search("what is the") .startswith('No results for "what is the": the query has no searchable words')
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "has no .txt or .md files" in search_files(empty)("anything")
    with pytest.raises(NotADirectoryError, match="does not exist"):
        search_files(tmp_path / "missing")


def test_search_reads_the_folder_once(corpus: Path) -> None:
    search = search_files(corpus)
    assert search("volcano").startswith("No results")
    (corpus / "volcano.txt").write_text("Vesuvius is a volcano near Naples.\n", encoding="utf-8")
    assert search("volcano").startswith("No results")  # cached on first call
    assert _hits(search_files(corpus)("volcano")) == ["volcano.txt"]  # a new tool reads it


def test_search_output_is_bounded(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.mkdir()
    for i in range(5):
        (big / f"log{i}.txt").write_text(("error in module alpha " * 400 + "\n\n") * 50, encoding="utf-8")
    search = search_files(big, max_results=3)
    result = call_tool(search, "error alpha")
    assert len(_hits(result.text)) == 3
    assert len(result.text) <= search.max_chars + 60
    assert all(len(line) < 620 for line in result.text.splitlines())


# --- time and defaults -------------------------------------------------------------------------

def test_current_time_is_iso_with_weekday() -> None:
    text = call_tool(current_time, {}).text
    match = re.fullmatch(r"(\S+) \((Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\)", text)
    assert match, text
    stamp = datetime.fromisoformat(match.group(1))
    assert stamp.tzinfo is not None
    assert stamp.strftime("%A") == match.group(2) or stamp.weekday() == [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].index(match.group(2))
    assert abs(datetime.now().astimezone() - stamp) < timedelta(hours=1)


def test_default_tools(corpus: Path) -> None:
    assert [t.name for t in default_tools()] == ["calculator", "current_time"]
    tools = default_tools(corpus)
    assert [t.name for t in tools] == ["calculator", "search", "current_time"]
    assert _hits(tools[1]("Seine river"))[0] == "cities/paris.md"
