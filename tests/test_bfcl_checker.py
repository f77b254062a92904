"""The BFCL checker on hand-written items: BFCL's AST rules, without bfcl-eval installed."""

from __future__ import annotations

import pytest

from react_text.eval.bfcl.checker import Call, check, loose

AREA = {"name": "area", "description": "Area of a triangle.",
        "parameters": {"type": "dict", "required": ["base", "height"], "properties": {
            "base": {"type": "integer"}, "height": {"type": "float"}, "unit": {"type": "string"}}}}
AREA_ANSWER = {"area": {"base": [10], "height": [5.0], "unit": ["cm", ""]}}
WEATHER = {"name": "weather.get", "description": "Weather of a city.",
           "parameters": {"type": "dict", "required": ["city"], "properties": {
               "city": {"type": "string"}, "days": {"type": "array", "items": {"type": "integer"}},
               "options": {"type": "dict", "properties": {}}}}}


def simple(args: dict, name: str = "area", answer: dict = AREA_ANSWER, doc: dict = AREA) -> bool:
    return check("simple_python", [doc], [Call(name, args)], [answer]).valid


def test_the_expected_call_is_right_and_an_optional_parameter_may_be_left_out():
    assert simple({"base": 10, "height": 5.0, "unit": "cm"})
    assert simple({"base": 10, "height": 5.0})


def test_a_parameter_without_the_omit_mark_must_be_given():
    answer = {"area": {"base": [10], "height": [5.0], "unit": ["cm"]}}
    verdict = check("simple_python", [AREA], [Call("area", {"base": 10, "height": 5.0})], [answer])
    assert not verdict.valid and "'unit'" in verdict.error


@pytest.mark.parametrize("args, why", [
    ({"base": 10}, "missing required"),
    ({"base": 10, "height": 5.0, "colour": "red"}, "unexpected parameter"),
    ({"base": 11, "height": 5.0}, "not among"),
    ({"base": "10", "height": 5.0}, "not of type integer"),
    ({"base": 10.0, "height": 5.0}, "not of type integer"),
    ({"base": True, "height": 5.0}, "not of type integer"),
])
def test_wrong_calls_say_why(args, why):
    verdict = check("simple_python", [AREA], [Call("area", args)], [AREA_ANSWER])
    assert not verdict.valid and why in verdict.error


def test_an_int_is_accepted_where_a_float_is_declared():
    assert simple({"base": 10, "height": 5})


def test_the_wrong_function_or_a_second_call_is_wrong():
    assert not simple({"base": 10, "height": 5.0}, name="volume")
    calls = [Call("area", {"base": 10, "height": 5.0})] * 2
    assert not check("simple_python", [AREA], calls, [AREA_ANSWER]).valid


def test_strings_are_compared_without_case_spaces_and_punctuation():
    answer = {"weather.get": {"city": ["New York, NY"], "days": [""], "options": [""]}}
    for city in ("new york ny", "NEW-YORK,NY", "New_York. NY"):
        assert simple({"city": city}, name="weather.get", answer=answer, doc=WEATHER)
    assert not simple({"city": "Boston"}, name="weather.get", answer=answer, doc=WEATHER)
    assert loose("April 1, 2024") == loose("april 1 2024") == "april12024"


def test_lists_match_one_allowed_list_in_order_and_their_items_are_typed():
    answer = {"weather.get": {"city": ["Paris"], "days": [[1, 2], [2, 1]], "options": [""]}}
    assert simple({"city": "Paris", "days": [2, 1]}, name="weather.get", answer=answer, doc=WEATHER)
    assert not simple({"city": "Paris", "days": [1, 2, 3]}, name="weather.get", answer=answer, doc=WEATHER)
    assert not simple({"city": "Paris", "days": ["1", "2"]}, name="weather.get", answer=answer, doc=WEATHER)


def test_dicts_match_key_by_key_with_their_own_optional_keys():
    answer = {"weather.get": {"city": ["Paris"], "days": [""],
                              "options": [{"units": ["metric", "SI"], "alerts": ["", False]}]}}
    ok = {"city": "Paris", "options": {"units": "si"}}
    assert simple(ok, name="weather.get", answer=answer, doc=WEATHER)
    assert not simple({"city": "Paris", "options": {"units": "imperial"}}, name="weather.get", answer=answer,
                      doc=WEATHER)
    assert not simple({"city": "Paris", "options": {"units": "metric", "wind": True}}, name="weather.get",
                      answer=answer, doc=WEATHER)
    assert not simple({"city": "Paris", "options": {}}, name="weather.get", answer=answer, doc=WEATHER)


def test_a_value_of_the_answers_own_type_stands_for_a_variable():
    # BFCL writes a variable as a string where an integer is declared: the same string is right
    answer = {"area": {"base": ["b"], "height": [5.0], "unit": [""]}}
    assert simple({"base": "b", "height": 5.0}, answer=answer)
    assert not simple({"base": "c", "height": 5.0}, answer=answer)


def test_multiple_judges_the_one_call_against_the_function_the_answer_names():
    answer = {"weather.get": {"city": ["Paris"], "days": [""], "options": [""]}}
    assert check("multiple", [AREA, WEATHER], [Call("weather.get", {"city": "Paris"})], [answer]).valid
    assert not check("multiple", [AREA, WEATHER], [Call("area", {"base": 10, "height": 5.0})], [answer]).valid


def test_parallel_calls_match_in_any_order_but_each_call_once():
    answers = [{"area": {"base": [10], "height": [5.0], "unit": [""]}},
               {"area": {"base": [3], "height": [4.0], "unit": [""]}}]
    a, b = Call("area", {"base": 10, "height": 5.0}), Call("area", {"base": 3, "height": 4})
    assert check("parallel", [AREA], [b, a], answers).valid
    assert check("parallel_multiple", [AREA], [a, b], answers).valid
    assert not check("parallel", [AREA], [a, a], answers).valid
    assert not check("parallel", [AREA], [a], answers).valid
    assert not check("parallel", [AREA], [a, b, b], answers).valid


def test_irrelevance_is_right_with_no_call_and_relevance_with_any():
    assert check("irrelevance", [AREA], [], []).valid
    assert not check("live_irrelevance", [AREA], [Call("area", {})], []).valid
    assert check("live_relevance", [AREA], [Call("area", {"base": 1})], []).valid
    assert not check("live_relevance", [AREA], [], []).valid
