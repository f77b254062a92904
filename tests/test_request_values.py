"""The request's values of each kind and which the calls so far used (``checks.request_values``)."""

from __future__ import annotations

from react_text.checks.request_values import adds_nothing, in_request_order, held_values, invented, read_request, taken_from

LOANS = ("Check my loan eligibility for $500,000 from HSBC with annual income $100,000 and for Wells Fargo "
         "for $700,000 with annual income of $120,000?")
LOAN = {"properties": {"bank": {"type": "string"}, "amount": {"type": "integer"}, "income": {"type": "integer"}}}
FLIGHTS = "Book a flight from San Francisco to Tokyo on May 3rd 2022 and another from Tokyo to Sydney on May 18th."
FLIGHT = {"properties": {"departure": {"type": "string"}, "destination": {"type": "string"},
                         "date": {"type": "string"}}}


def test_the_kinds_a_request_marks_by_their_form() -> None:
    values = read_request("List cases against 'Dara Inc' filed in 2019. Also case XY1234 in Los Angeles "
                          "County Court, the Treaty of Paris and 3 A.D. I ask.")
    assert values.numbers == (2019.0, 1234.0, 3.0)
    assert values.quoted == ("Dara Inc",) and "XY1234" in values.codes
    assert {"Los Angeles County Court", "Los Angeles", "Treaty of Paris", "Paris", "Dara Inc"} <= set(values.names)
    # a lone capitalised word opening a sentence or clause, a single letter, a unit after a number: no names
    assert not {"List", "Also", "I", "A.D"} & set(values.names)
    assert read_request("Washington D.C. and Oslo.").names == ("Washington D.C.", "Washington", "D.C.", "Oslo")
    assert "May" not in read_request(FLIGHTS).names  # a lone capitalised word before a number: a date


def test_a_repeat_is_held_to_the_values_no_call_used_and_only_the_kinds_that_have_them() -> None:
    first = ("loan", {"bank": "HSBC", "amount": 500000, "income": 100000})
    held = held_values((first,), "loan", LOAN, LOANS)
    assert held == {"bank": ["Wells Fargo", "Wells", "Fargo"], "amount": [100000, 700000, 120000],
                    "income": [500000, 700000, 120000]}
    second = ("loan", {"bank": "Wells Fargo", "amount": 700000, "income": 120000})
    assert held_values((first, second), "loan", LOAN, LOANS) is None  # nothing left: the repeat ends the turn
    # the same company in every call stays free; only the year, whose kind has an unused value, is held
    lawsuits = "List all cases against a company named 'Dara Inc' filed in 2019, also those filed in 2018."
    schema = {"properties": {"company": {"type": "string"}, "year": {"type": "integer"}}}
    assert held_values((("find", {"company": "Dara Inc", "year": 2019}),), "find", schema, lawsuits) == {"year": [2018]}
    # another tool's call used the rest: the request is covered, not asking for a second investment
    trades = (("invest", {"company": "Google", "amount": 2000}), ("withdraw", {"company": "Apple", "amount": 1000}))
    assert held_values(trades, "invest", schema | {"properties": {"company": {}, "amount": {}}},
                       "Invest $2000 in Google and withdraw $1000 from Apple.") is None


def test_a_held_argument_may_take_a_value_another_argument_had() -> None:
    """The next flight leaves from the first one's destination; a part of a value passed is no new value."""
    held = held_values((("fly", {"departure": "San Francisco", "destination": "Tokyo", "date": "2022-05-03"}),),
                       "fly", FLIGHT, FLIGHTS)
    assert held is not None and "date" not in held  # a date the model wrote in its own form is no kind
    assert "Tokyo" in held["departure"] and "San" not in held["departure"] and "Sydney" in held["destination"]


def test_one_call_that_used_every_value_of_its_kinds_is_never_held() -> None:
    roots = "Find the roots of a quadratic equation with coefficients a=1, b=-3, c=2."
    assert read_request(roots).numbers == (1.0, -3.0, 2.0)  # -3 is not 3: no value is left unused
    assert held_values((("roots", {"a": 1, "b": -3, "c": 2}),), "roots", {"properties": {"a": {}, "b": {}, "c": {}}},
                       roots) is None
    villa = "Find a 3 bedroom villa within $300,000 to $400,000 budget in San Diego."
    call = ("find", {"bedrooms": 3, "budget": {"min": 300000, "max": 400000}})  # nested values are used too
    assert held_values((call,), "find", {"properties": {"bedrooms": {}, "budget": {}}}, villa) is None
    assert read_request("From 10-20 on 2022-05-03.").numbers == (10.0, 20.0, 2022.0, 5.0, 3.0)
    assert held_values((("hcf", {"a": 36, "b": 24}),), "hcf", {"properties": {"a": {}, "b": {}}},
                       "Find the highest common factor of 36 and 24.") is None
    assert held_values((("gcd", {"a": 36}),), "gcd", {"properties": {"a": {}}}, "What is the GCD? Say so.") is None


def test_a_value_from_nowhere_where_the_calls_before_took_one_from_the_request() -> None:
    question = "What is the temperature for the next 3 hours in Seattle and Los Angeles?"
    before = [{"location": "Seattle", "hours": 3}]
    assert invented({"location": "Lisbon", "hours": 3}, before, question)
    assert not invented({"location": "Los Angeles", "hours": 3}, before, question)
    assert not invented({"location": "Seattle", "units": "celsius"}, [{"location": "Seattle", "units": "F"}], question)
    assert taken_from(3.0, question) and taken_from("los angeles", question) and not taken_from(True, question)
    assert taken_from("next_3-hours", question)  # an identifier's separators read as the request's spaces


def test_a_call_adds_nothing_when_every_request_value_it_passes_was_passed_before() -> None:
    """``adds_nothing`` (``new_value``): values the request spells and no call before passed make a call new;
    flags, values from nowhere and values already passed (by any tool) do not."""
    text = "Status and trial date of cases XY1234 and GH5678, and the weather in Paris?"
    first = {"case": "XY1234", "details": "status"}
    assert adds_nothing({"case": "XY1234", "details": "status", "full": True}, [first], text)  # a flag
    assert adds_nothing({"case": "XY1234", "details": "summary"}, [first], text)  # a value from nowhere
    assert adds_nothing({"city": "xy1234"}, [first], text)  # another tool, a value already passed
    assert not adds_nothing({"case": "GH5678", "details": "status"}, [first], text)
    assert not adds_nothing({"city": "Paris"}, [first], text)
    assert not adds_nothing({"case": "XY1234", "details": "trial date"}, [first], text)
    both = [first, {"case": "GH5678", "details": "trial date"}]
    assert adds_nothing({"case": "GH5678", "details": "status"}, both, text)  # the price: a recombination
    assert adds_nothing({"a": 18, "b": 12}, [{"a": 12, "b": 18}], "GCD of 12 and 18")  # swapped
    assert not adds_nothing({"n": 3}, [], "3 items")  # the first call of all adds what it passes


def test_calls_in_the_order_the_request_names_their_values() -> None:
    text = "Book a flight from San Francisco to Tokyo on May 3rd and another from Tokyo to Sydney on May 18th."
    second, first = ("book", {"from": "Tokyo", "to": "Sydney", "day": 18}), ("book", {"from": "San Francisco"})
    assert in_request_order([second, first], text) == [first, second]
    assert in_request_order([("a", {"x": 2}), ("b", {"x": 1})], "first 1, then 2") == [("b", {"x": 1}), ("a", {"x": 2})]
    unplaced = [second, ("now", {})]
    assert in_request_order(unplaced, text) == unplaced  # a call with no value of the request: as written
