"""Judging calls the way BFCL's AST checker does, written from its rules (no code of its own is used).

A call is right when it names the expected function, passes every required parameter, passes no
parameter the function or the possible answer lacks, gives each value the declared type (an int
where a float is declared is fine; a value of the possible answer's own type stands for a variable)
and a value among the allowed ones; strings are compared with spaces and ``,./-_*^`` removed, in
lower case, so "April 1, 2024" and "april 1 2024" agree. An allowed ``""`` lets the parameter be left
out. Parallel items take their calls in any order, matched greedily answer by answer as BFCL does;
``irrelevance`` is right with no call, ``live_relevance`` with any call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .data import ANY_CALL, NO_CALL

_TYPES: dict[str, type] = {"string": str, "integer": int, "float": float, "boolean": bool, "array": list,
                           "tuple": list, "dict": dict, "any": str}
"""BFCL's declared types, as the Python type a value must have."""
_NESTED = ("array", "tuple")
_LOOSE = re.compile(r"[ ,./\-_*^]")


@dataclass(frozen=True)
class Call:
    """One function call as a model made it: the name and the keyword arguments."""

    name: str
    args: Mapping[str, Any]


@dataclass(frozen=True)
class Verdict:
    """Whether an item's calls are right; ``error`` says why not."""

    valid: bool
    error: str = ""


_OK = Verdict(True)


def check(category: str, functions: Sequence[Mapping], calls: Sequence[Call], answers: Sequence[Mapping]) -> Verdict:
    """Judge ``calls`` for one item of ``category`` against its possible ``answers``."""
    if category in NO_CALL:
        return _OK if not calls else Verdict(False, "a call was made where none fits")
    if category in ANY_CALL:
        return _OK if calls else Verdict(False, "no call was made")
    if len(calls) != len(answers):
        return Verdict(False, f"wrong number of calls: {len(calls)}, expected {len(answers)}")
    if "parallel" in category:
        return _any_order(functions, calls, answers)
    return check_call(_doc(functions, answers[0]), calls[0], answers[0])


def _doc(functions: Sequence[Mapping], answer: Mapping) -> Mapping:
    name = next(iter(answer))
    return next((f for f in functions if f.get("name") == name), functions[0])


def _any_order(functions: Sequence[Mapping], calls: Sequence[Call], answers: Sequence[Mapping]) -> Verdict:
    """Each answer in turn takes the first call not yet taken that it accepts (BFCL's greedy matching)."""
    taken: set[int] = set()
    for i, answer in enumerate(answers):
        doc = _doc(functions, answer)
        found = next((j for j, call in enumerate(calls) if j not in taken and check_call(doc, call, answer).valid), None)
        if found is None:
            return Verdict(False, f"no call matches expected call {i} ({next(iter(answer))})")
        taken.add(found)
    return _OK


def check_call(doc: Mapping, call: Call, answer: Mapping) -> Verdict:
    """One call against one function's documentation and its possible answer ``{name: {param: [values]}}``."""
    allowed: Mapping[str, list] = next(iter(answer.values()))
    if call.name != doc["name"]:
        return Verdict(False, f"function {call.name!r}, expected {doc['name']!r}")
    params = doc["parameters"].get("properties", {})
    for name in doc["parameters"].get("required", []):
        if name not in call.args:
            return Verdict(False, f"missing required parameter {name!r}")
    for name, value in call.args.items():
        if name not in params or name not in allowed:
            return Verdict(False, f"unexpected parameter {name!r}")
        problem = _value_problem(name, value, params[name], allowed[name])
        if problem:
            return Verdict(False, problem)
    for name, values in allowed.items():
        if name not in call.args and "" not in values:
            return Verdict(False, f"parameter {name!r} left out but not optional")
    return _OK


def _value_problem(name: str, value: Any, schema: Mapping, allowed: list) -> str | None:
    declared = schema["type"]
    want = _TYPES[declared]
    inner = _TYPES[schema["items"]["type"]] if declared in _NESTED else None
    if declared == "tuple" and isinstance(value, tuple):
        value = list(value)
    if declared == "float" and type(value) is int:
        value = float(value)
    typed = _typed(value, want, inner, allowed)
    if typed is None:
        return f"parameter {name!r}: {value!r} is not of type {declared}"
    if typed == "variable":
        return None if value in allowed else f"parameter {name!r}: {value!r} not among {allowed}"
    if want is dict:
        return None if _dict_ok(value, allowed) else f"parameter {name!r}: {value!r} not among {allowed}"
    if want is list and inner is dict:
        return None if _dicts_ok(value, allowed) else f"parameter {name!r}: {value!r} not among {allowed}"
    if want in (str, list):
        return None if loose(value) in [_loose_option(a, want) for a in allowed] else (
            f"parameter {name!r}: {value!r} not among {allowed}")
    return None if value in allowed else f"parameter {name!r}: {value!r} not among {allowed}"


def _answer_type(allowed: Sequence) -> type | None:
    """The type of the first allowed value that is not the "may be omitted" mark."""
    return next((type(a) for a in allowed if a != ""), None)


def _typed(value: Any, want: type, inner: type | None, allowed: Sequence) -> str | None:
    """"value", "variable" (the value has the possible answer's own type, not the declared one) or None."""
    answer_type = _answer_type(allowed)
    variable = answer_type is not None and answer_type is not want
    if type(value) is want:
        if inner is None:
            return "variable" if variable else "value"
        if any(not isinstance(option, list) or all(_typed(v, inner, None, option) for v in value)
               for option in allowed):
            return "variable" if variable else "value"
        return None
    if answer_type is not None and type(value) is answer_type:
        return "variable"
    return None


def loose(value: Any) -> Any:
    """A string as BFCL compares it; the strings of a list likewise (one level deep)."""
    if isinstance(value, str):
        return _LOOSE.sub("", value).lower().replace("'", '"')
    if isinstance(value, list):
        return [loose(v) if isinstance(v, str) else v for v in value]
    return value


def _loose_str(value: Any) -> Any:
    """A string as BFCL compares it; anything else as it is (inside dicts BFCL loosens only strings)."""
    return loose(value) if isinstance(value, str) else value


def _loose_option(option: Any, want: type) -> Any:
    if want is list and isinstance(option, (list, str)):
        return [loose(v) if isinstance(v, str) else v for v in option]
    return loose(option) if isinstance(option, str) else option


def _dict_ok(value: Mapping, allowed: Sequence) -> bool:
    """Some allowed dict takes every key of ``value`` with an allowed value and misses none it needs."""
    for option in allowed:
        if option == "" or not isinstance(option, Mapping):
            continue
        fits = all(key in option and _loose_str(v) in [_loose_str(a) for a in option[key]]
                   for key, v in value.items())
        if fits and all(key in value or "" in values for key, values in option.items()):
            return True
    return False


def _dicts_ok(value: Sequence, allowed: Sequence) -> bool:
    """Some allowed list of dicts has as many dicts as ``value``, each taking its counterpart."""
    return any(isinstance(option, (list, str)) and len(option) == len(value)
               and all(isinstance(v, Mapping) and _dict_ok(v, [o]) for v, o in zip(value, option))
               for option in allowed)
