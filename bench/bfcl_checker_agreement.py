"""How often react-text's BFCL checker and reply decoder agree with BFCL's own, on right and wrong calls.

For every item of BFCL's AST categories it builds calls from the possible answers (the first allowed
value of each parameter, optional ones left out, and the last allowed values) and perturbed ones
(a wrong value, a required parameter missing, an unexpected parameter, an extra call, a wrong function
name, a number sent as text, an int sent as float and back, a list sent as a tuple, parallel calls in reverse order, a string in other case and spacing),
then asks both checkers. BFCL's checker is imported from the installed ``bfcl-eval`` with only the
module that would pull its model handlers (``constants.model_config``, read for dotted names only)
replaced by a stub. The ``plain`` cell's decoder (``decode.python_calls``) is compared with BFCL's
``default_decode_ast_prompting`` on replies written from the same calls (bare, fenced, with prose,
positional, computed values); that needs two light packages of BFCL's and its Java/JavaScript parsers
(tree-sitter) stubbed:

    pip install --no-deps bfcl-eval==2026.3.23 && pip install filelock tenacity
    python bench/bfcl_checker_agreement.py [--categories simple_python,multiple,...]
"""

from __future__ import annotations

import argparse
import copy
import sys
import types
from collections import Counter, defaultdict
from typing import Any

from react_text.eval.bfcl.checker import Call, check
from react_text.eval.bfcl.data import ANY_CALL, CATEGORIES, NO_CALL, load_items
from react_text.eval.bfcl.decode import python_calls

AST_CATEGORIES = [c for c in CATEGORIES if c not in NO_CALL | ANY_CALL]


def bfcl_checker():
    """BFCL's ``ast_checker`` and its ``Language`` enum, its model table stubbed (no dotted-name rewriting)."""
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = defaultdict(lambda: types.SimpleNamespace(underscore_to_dot=False))
    sys.modules["bfcl_eval.constants.model_config"] = stub
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    return ast_checker, Language.PYTHON


def bfcl_decoder():
    """BFCL's decoder for prompted replies, its tree-sitter parsers (Java, JavaScript) stubbed."""
    for name in ("java_parser", "js_parser"):
        stub = types.ModuleType(f"bfcl_eval.model_handler.parser.{name}")
        stub.parse_java_function_call = stub.parse_javascript_function_call = None
        sys.modules[stub.__name__] = stub
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    return default_decode_ast_prompting


def replies(calls: list[Call]) -> dict[str, str]:
    """Ways a model may write ``calls``: BFCL's form, fenced, with prose, bare, positional, computed."""
    def text(call: Call, positional: bool = False) -> str:
        args = [repr(v) for v in call.args.values()] if positional else [f"{k}={v!r}" for k, v in call.args.items()]
        return f"{call.name}({', '.join(args)})"

    listed = "[" + ", ".join(text(c) for c in calls) + "]"
    out = {"list": listed, "fenced": f"```\n{listed}\n```", "fenced_python": f"```python\n{listed}\n```",
           "prose_before": f"Sure! {listed}", "prose_after": f"{listed} That is all.", "bare": text(calls[0]),
           "positional": "[" + ", ".join(text(c, True) for c in calls) + "]", "prose": "I cannot do that.",
           "quoted": f"'{listed}'", "empty": "[]"}
    number = next(((k, v) for k, v in calls[0].args.items() if type(v) is int and v > 1), None)
    if number:
        out["computed"] = f"[{calls[0].name}({number[0]}=1+{number[1] - 1})]"
    return out


def decode_agreement(items) -> None:
    decode = bfcl_decoder()
    agree: Counter = Counter()
    total: Counter = Counter()
    shown = []
    for item in items:
        for case, reply in replies(truth(item.answers)).items():
            try:
                theirs = decode(reply)
                theirs = theirs if all(isinstance(d, dict) for d in theirs) else None
            except Exception:
                theirs = None
            ours = python_calls(reply)
            ours = None if ours is None else [{c.name: dict(c.args)} for c in ours]
            total[case] += 1
            if ours == theirs:
                agree[case] += 1
            elif len(shown) < 10:
                shown.append((item.id, case, reply[:80], ours, theirs))
    print(f"\n{'decode case':18} {'agree':>13}")
    for case in total:
        print(f"{case:18} {agree[case]:>6}/{total[case]:<6}")
    print(f"{'all':18} {sum(agree.values()):>6}/{sum(total.values()):<6}")
    for row in shown:
        print("disagree:", *row)


def option(values: list, pick: int) -> Any:
    """An allowed value (``pick``: 0 the first, -1 the last) that is not the omit mark ``""``; "" when none is."""
    real = [v for v in values if v != ""]
    return real[pick] if real else ""


def first(values: list, pick: int = 0) -> Any:
    """An allowed value; a dict (or list of dicts) built out one level, as BFCL's answers nest options."""
    value = option(values, pick)

    def built(d: dict) -> dict:
        return {k: option(v, pick) for k, v in d.items() if option(v, pick) != ""}

    if isinstance(value, dict):
        return built(value)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [built(d) for d in value]
    return value


def truth(answers, pick: int = 0) -> list[Call]:
    calls = []
    for answer in answers:
        (name, params), = answer.items()
        calls.append(Call(name, {k: first(v, pick) for k, v in params.items() if first(v, pick) != ""}))
    return calls


def perturbed(item, calls: list[Call]) -> dict[str, list[Call]]:
    out: dict[str, list[Call]] = {"truth": calls, "truth_last": truth(item.answers, -1)}
    head = calls[0]
    doc = next(f for f in item.functions if f["name"] == head.name)
    if head.args:
        key = next(iter(head.args))
        value = head.args[key]
        wrong = (value + 7 if isinstance(value, (int, float)) and not isinstance(value, bool) else
                 (not value) if isinstance(value, bool) else value + "zz" if isinstance(value, str) else
                 [] if isinstance(value, list) and value else ["zz"] if isinstance(value, list) else {"zz": 1})
        out["wrong_value"] = [Call(head.name, {**head.args, key: wrong}), *calls[1:]]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out["number_as_text"] = [Call(head.name, {**head.args, key: str(value)}), *calls[1:]]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            other = float(value) if isinstance(value, int) else int(value) if value == int(value) else None
            if other is not None:
                out["int_float_swap"] = [Call(head.name, {**head.args, key: other}), *calls[1:]]
        if isinstance(value, list):
            out["list_as_tuple"] = [Call(head.name, {**head.args, key: tuple(value)}), *calls[1:]]
        if isinstance(value, str):
            out["case_spacing"] = [Call(head.name, {**head.args, key: " " + value.upper() + "."}), *calls[1:]]
    required = doc["parameters"].get("required", [])
    if required and required[0] in head.args:
        out["missing_required"] = [Call(head.name, {k: v for k, v in head.args.items() if k != required[0]}),
                                   *calls[1:]]
    out["unexpected_param"] = [Call(head.name, {**head.args, "zz_extra": 1}), *calls[1:]]
    out["extra_call"] = [*calls, copy.deepcopy(head)]
    out["wrong_name"] = [Call(head.name + "_x", head.args), *calls[1:]]
    if len(calls) > 1:
        out["reversed"] = list(reversed(calls))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--categories", default=",".join(AST_CATEGORIES))
    args = parser.parse_args(argv)
    ast_checker, python = bfcl_checker()
    items = load_items(args.categories.split(","))
    agree: Counter = Counter()
    total: Counter = Counter()
    valid_ours: Counter = Counter()
    disagreements = []
    for item in items:
        for case, calls in perturbed(item, truth(item.answers)).items():
            ours = check(item.category, item.functions, calls, item.answers).valid
            try:
                theirs = ast_checker(list(item.functions), [{c.name: dict(c.args)} for c in calls],
                                     list(item.answers), python, item.category, "stub")["valid"]
            except Exception as exc:  # their checker raising on a shape it never meets is a disagreement too
                theirs = f"raised {type(exc).__name__}"
            total[case] += 1
            valid_ours[case] += ours
            if ours == theirs:
                agree[case] += 1
            else:
                disagreements.append((item.id, case, ours, theirs))
    print(f"{'case':18} {'agree':>13} {'judged right (ours)':>20}")
    for case in total:
        print(f"{case:18} {agree[case]:>6}/{total[case]:<6} {valid_ours[case]:>12}")
    print(f"{'all':18} {sum(agree.values()):>6}/{sum(total.values()):<6}")
    for row in disagreements[:20]:
        print("disagree:", *row)
    decode_agreement(items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
