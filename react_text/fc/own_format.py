"""A reply the text protocol could not get, asked for once more in the model's own tool format (``own_format``).

Why: the shim retries an unusable turn (a call with values from nowhere, bad arguments, a copy of the demo's
values) up to ``max_retries`` times, and then says it got no usable reply. A small model's retries in a text
protocol often go on from the same mistake (the demo's "Lisbon" for the request's "London", an argument the tool
does not take), while in its own tool format, with nothing of the demo before it, it writes the call plainly.
So when every try failed (or the answer is only a tool's name, ``bare_name``), the request is asked once in that
format (the chat template's tools block, no grammar: read leniently, as ``template="native"`` does), and its calls
are kept only when each is valid and every value it passes (an enum's member and an empty value aside) is spelled
in the request or a result (``request_values.taken_from``): a call with values of the model's own (a description's
words, a figure it knows), which is how a model calls where nothing fits, leaves the reply as it was. Only for a
model whose chat template has a tools block; a backend failure or a template that does not render leaves the reply
as it was.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..backends.base import Backend, BackendError
from ..checks.reading import Calls
from ..checks.request_values import all_from_request
from ..protocol.dialects import DIALECTS
from ..protocol.parser import parse
from .native import NATIVE, own_prompt
from .request import ToolChoice
from .verdict import judge

__all__ = ["own_format"]


def own_format(tools: Mapping[str, Any], choice: ToolChoice, messages: Sequence[Mapping[str, Any]],
               backend: Backend, grounds: Sequence[str], max_tokens: int = 256) -> tuple[Calls, tuple[int, int]]:
    """The calls the model writes for ``messages`` in its own tool format when all are valid and grounded (else
    none), and the (prompt, completion) tokens it took."""
    shown = [t.to_openai() for t in tools.values() if choice.mode != "named" or t.name == choice.name]
    prompt = None if choice.mode == "none" else own_prompt(backend, messages, shown)
    if prompt is None:
        return (), (0, 0)
    try:
        done = backend.complete(prompt, stop=DIALECTS[NATIVE].stop, max_tokens=max_tokens, temperature=0.0)
    except BackendError:
        return (), (0, 0)
    schemas = {name: tool.parameters for name, tool in tools.items()}
    verdict = judge(parse(done.text, schemas, dialect=NATIVE), tools, choice, "")
    text = "\n".join(grounds)
    stated = all(all_from_request(_free(args, schemas.get(name)), text) for name, args in verdict.calls)
    return (verdict.calls if stated else ()), (done.prompt_tokens, done.completion_tokens)


def _free(args: Mapping[str, Any], schema: Any) -> dict[str, Any]:
    """The arguments whose values are the model's to write: an enum's member is the tool's, not the request's, and
    an empty one (``team=""``) writes nothing."""
    properties = schema.get("properties") or {} if isinstance(schema, Mapping) else {}
    return {k: v for k, v in args.items() if v not in ("", [], None)
            and not (isinstance(properties.get(k), Mapping) and "enum" in properties[k])}
