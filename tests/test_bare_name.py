"""``checks.bare_names.is_bare_name``: an answer that is only a tool's name, by its shape."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from react_text.checks.bare_names import is_bare_name


@pytest.mark.parametrize("answer", ["law_crimes.search", "basketball_conversion.convert", " `scienceFacts.getWei` ",
                                    "Flight_calculator", "weather", "weather()", "sports_db.find_athlete()"])
def test_a_tools_name_or_an_identifier_with_a_dot_or_underscore_is_a_bare_name(answer: str) -> None:
    assert is_bare_name(answer, {"weather"})


@pytest.mark.parametrize("answer", ["Mars", "Bonjour", "ATCG", "3.14", "42", "The tool is law_crimes.search.",
                                    "_private_", "", "New York", "e.g.", "weather report"])
def test_a_word_a_number_or_a_sentence_is_an_answer(answer: str) -> None:
    assert not is_bare_name(answer, {"weather"})


@given(st.text(max_size=200))
def test_any_text_with_a_blank_inside_is_never_a_bare_name(text: str) -> None:
    words = text.strip().strip("`").strip()
    if " " in words:
        assert not is_bare_name(text, {"weather"})
