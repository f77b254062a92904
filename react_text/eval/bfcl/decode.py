"""Calls out of a reply: the ``plain`` baseline's ``[func(a=1)]`` text and the shim's ``tool_calls``, and
BFCL's function documents as OpenAI ``tools``.

The ``plain`` reply is read as BFCL reads a prompted model's reply (its rules, this code): backticks,
spaces and newlines are stripped from both ends, brackets are added when missing, and the text must
then be a Python list of keyword calls; anything else holds no call. Positional arguments are not read
(BFCL reads keywords only), a bare name stands for its own text.
"""

from __future__ import annotations

import ast
import copy
import json
import operator
from typing import Any, Mapping, Sequence

from .checker import Call

_SCHEMA_TYPES = {"integer": "integer", "float": "number", "string": "string", "boolean": "boolean",
                 "array": "array", "tuple": "array", "dict": "object", "any": "string"}
"""BFCL's declared types as JSON Schema types, for the ``tools`` of a request."""
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def python_calls(reply: str) -> tuple[Call, ...] | None:
    """The calls a ``[f(a=1), g(b="x")]`` reply makes; None when the reply is not written as calls."""
    text = reply.strip("`\n ")
    text = ("" if text.startswith("[") else "[") + text + ("" if text.endswith("]") else "]")
    try:
        body = ast.parse(text.strip().strip("'"), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    nodes = [body] if isinstance(body, ast.Call) else getattr(body, "elts", None)
    if nodes is None or not all(isinstance(n, ast.Call) for n in nodes):
        return None
    try:
        return tuple(Call(_name(n.func), {k.arg: _value(k.value) for k in n.keywords if k.arg}) for n in nodes)
    except (ValueError, TypeError, ArithmeticError, OverflowError):
        return None


def _name(node: ast.AST) -> str:
    """``math.hypot`` from its attribute chain."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand)
        return -inner if isinstance(node.op, ast.USub) else +inner
    if isinstance(node, ast.List):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(v) for v in node.elts)
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call) and node.keywords:
        return {_name(node.func): {k.arg: _value(k.value) for k in node.keywords if k.arg}}
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _value(node.left), _value(node.right)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
            return _ARITHMETIC[type(node.op)](left, right)
    return ast.unparse(node)


def shim_calls(message: Mapping[str, Any]) -> tuple[Call, ...]:
    """The calls of an OpenAI assistant message; arguments that are not a JSON object count as none."""
    calls = []
    for entry in message.get("tool_calls") or []:
        function = entry.get("function") or {}
        try:
            args = json.loads(function.get("arguments") or "{}")
        except ValueError:
            args = {}
        calls.append(Call(str(function.get("name", "")), args if isinstance(args, dict) else {}))
    return tuple(calls)


def openai_tools(functions: Sequence[Mapping[str, Any]]) -> list[dict]:
    """BFCL's function documents as OpenAI ``tools``: its types (``dict``, ``float``, ``tuple``...) as JSON Schema's."""
    tools = []
    for function in functions:
        doc = copy.deepcopy(dict(function))
        doc["parameters"] = _schema({**doc.get("parameters", {}), "type": "dict"})
        tools.append({"type": "function", "function": doc})
    return tools


def _schema(schema: Mapping[str, Any]) -> dict:
    out = dict(schema)
    out["type"] = _SCHEMA_TYPES.get(str(schema.get("type", "string")), "string")
    if isinstance(schema.get("properties"), Mapping):
        out["properties"] = {k: _schema(v) for k, v in schema["properties"].items() if isinstance(v, Mapping)}
    if isinstance(schema.get("items"), Mapping):
        out["items"] = _schema(schema["items"])
    return out
