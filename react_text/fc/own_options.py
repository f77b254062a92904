"""Optional arguments a call left out, asked for again in the model's own tool format (``own_options``).

Why: under a text protocol a small model passes the arguments a request needs and leaves out optional ones
the request states ("in detail", "in China"), which in its own tool format (its chat template's tools block,
what it was trained to call with) it passes. So once a reply's calls are made, each call that leaves an
optional parameter out is written again in that format, under a grammar that holds every value it passed and
leaves the left-out parameters free; what the model adds is kept when the request or a result grounds it
(``checks.grounding``), so a value of its own goes. A call the fill makes the same as one before it was that
call again with an optional argument written out (a variant a call list adds): it goes. Only for a model whose
chat template has a tools block, on a backend that takes grammars; a backend failure keeps the calls as they were.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..backends.base import Backend, BackendError
from ..backends.build import supports_grammar
from ..checks.grounding import ungrounded_values
from ..checks.reading import Calls
from ..grammar.gbnf import build_grammar
from ..grammar.tool_shapes import ToolShape
from ..protocol.dialects import DIALECTS
from ..protocol.parser import parse
from ..tools.coercion import Mismatch, coerce_value
from .native import NATIVE, own_prompt

__all__ = ["own_options"]


def own_options(calls: Calls, tools: Mapping[str, Any], messages: Sequence[Mapping[str, Any]], backend: Backend,
                grounds: Sequence[str], max_tokens: int = 256) -> tuple[Calls, bool, tuple[int, int]]:
    """``calls`` with the grounded optional arguments the model adds in its own format, whether it added any,
    and the (prompt, completion) tokens it took; each call's completion gets the request's ``max_tokens``."""
    prompt = own_prompt(backend, messages, [t.to_openai() for t in tools.values()]) \
        if calls and supports_grammar(backend) else None
    if prompt is None:
        return calls, False, (0, 0)
    out, used = [], [0, 0]
    for name, args in calls:
        schema = tools[name].parameters if name in tools else {}
        properties = schema.get("properties") or {}
        if not any(key not in args for key in properties):
            out.append((name, args))
            continue
        held = {**schema, "required": list(args),
                "properties": {k: {"const": args[k]} if k in args else v for k, v in properties.items()}}
        try:
            done = backend.complete(prompt, stop=DIALECTS[NATIVE].stop, max_tokens=max_tokens, temperature=0.0,
                                    grammar=build_grammar(NATIVE, [ToolShape(name, held)], allow_final=False))
        except BackendError:
            return calls, False, (used[0], used[1])
        used = [used[0] + done.prompt_tokens, used[1] + done.completion_tokens]
        step = parse(done.text, {name: held}, dialect=NATIVE)
        written = dict(step.actions[0].args) if step.actions else {}
        added = {k: v for k, v in _typed(written, properties).items()
                 if k not in args and not ungrounded_values({k: v}, schema, grounds)}
        out.append((name, {**args, **added}))
    filled = tuple(call for i, call in enumerate(out) if call not in out[:i] or calls[i] in calls[:i])
    return filled, filled != tuple(calls), (used[0], used[1])


def _typed(written: Mapping[str, Any], properties: Mapping[str, Any]) -> dict[str, Any]:
    """The values written for declared parameters, each as its schema's type ("true" for a flag: True), as a call's
    own values are (``tools.arguments``); one that fits no reading of its type is left out."""
    typed = {}
    for key, value in written.items():
        if key in properties:
            try:
                typed[key] = coerce_value(value, properties[key], key, [])
            except Mismatch:
                continue
    return typed
