"""The numbered result format: what the search tool writes is what the checks read back."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from react_text.protocol.results import ResultLine, format_result, result_lines

_SOURCE = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Cc"), blacklist_characters=":："), min_size=1,
                  max_size=20)
_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=80).filter(
    lambda t: t.strip() == t and "\x85" not in t)


@given(st.integers(1, 99), _SOURCE, _TEXT)
def test_a_written_result_reads_back_as_written(k: int, source: str, text: str) -> None:
    (line,) = result_lines(format_result(k, source, text))
    assert (line.k, line.source, line.text) == (k, source, text)


def test_other_lines_are_skipped_and_a_line_without_a_source_keeps_its_text() -> None:
    observation = "Results:\n[1] en/lake.txt: Lake Emmerlin is deep.\n[2] 工具：青石镇。\n[3] Just a note\nmore"
    assert result_lines(observation) == [
        ResultLine(1, "en/lake.txt", "Lake Emmerlin is deep.", "en/lake.txt: Lake Emmerlin is deep."),
        ResultLine(2, "工具", "青石镇。", "工具：青石镇。"),
        ResultLine(3, None, "Just a note", "Just a note"),
    ]
