"""The turn after a correction that names the tool to call, held by a grammar to a call of that tool.

Why: told which tool a question asks for, with the tool's name already opening its thought, a small
model still writes its first call again (``lookup_price is the tool for this question.`` then
``Action: calculator``), or an answer from its own head. A correction carries the tool it names
(``Nudge.hold``, set by ``review`` while the ``held_call`` check is on); the loop and the shim both
sample the next turn under the grammar made here, so the model chooses the values, never the tool.
Only where the backend takes a grammar (llama.cpp in process, llama-server); elsewhere the turn is
asked for as before.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..backends.build import supports_grammar
from ..grammar.gbnf import build_grammar
from ..grammar.terms import GrammarError

__all__ = ["held_grammar", "held_schema"]


def held_grammar(hold: str, tools: Sequence[Any], dialect: str, backend: Any, *, declines: bool,
                 calls: int = 1, values: Sequence[tuple[str, Sequence[str]]] = ()) -> str | None:
    """GBNF for a turn that calls ``hold`` (one of ``tools``, by name), its thought already begun by the
    correction's lead; None when nothing is held, the tool is not offered, the backend takes no grammar
    or the tool cannot be written under one.

    ``declines`` also admits a call of a tool nobody offered: the shim reads that as the model declining
    every tool (``declines.reaches_elsewhere``) and keeps that way out. The loop does not: any name there
    also spells an offered tool, and the call the correction was about would come back through it.

    ``values`` holds named string arguments to the values listed (``Nudge.hold_values``)."""
    tool = next((t for t in tools if t.name == hold), None) if hold else None
    if tool is None or not supports_grammar(backend):
        return None
    try:
        offered = {tool.name: held_schema(tool.parameters, values)} if values else [tool]
        return build_grammar(dialect, offered, allow_final=False, allow_unoffered=declines, thought_begun=True,
                             calls=calls)
    except GrammarError:
        return None


def held_schema(schema: Mapping[str, Any], values: Sequence[tuple[str, Sequence[Any]]]) -> dict[str, Any]:
    """``schema`` with each named argument it has limited to its listed values (strings or numbers), and
    required."""
    properties = dict(schema.get("properties") or {})
    held = {name: list(allowed) for name, allowed in values if name in properties}
    properties.update({name: {"type": "string", "enum": allowed} if all(isinstance(v, str) for v in allowed)
                       else {"enum": allowed} for name, allowed in held.items()})
    required = list(dict.fromkeys([*(schema.get("required") or []), *held]))
    return {**schema, "properties": properties, "required": required}
