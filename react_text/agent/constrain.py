"""The loop's grammars: for ``constrain=True``, one that only lets the model write a valid turn; after a
correction that names the tool to call, one that holds the next turn to a call of it (``checks.hold``)."""

from __future__ import annotations

from typing import Any

from ..backends.base import Backend
from ..backends.build import supports_grammar
from ..checks.hold import held_grammar
from ..grammar.gbnf import build_grammar, max_bytes
from .decisions import Decision, Retry


def turn_grammar(backend: Backend, template: Any, tools: list[Any]) -> str:
    """The grammar for the template's dialect and these tools; fails early and plainly."""
    if not supports_grammar(backend):
        raise ValueError(
            f"backend {getattr(backend, 'name', backend)!r} cannot constrain output with a grammar; "
            "use the llama or http backend, or drop constrain"
        )
    return build_grammar(template.dialect, tools)


def grammar_tokens(grammar: str) -> int:
    """Tokens a turn under ``grammar`` may need to finish (a token is at least a byte); 0 if unbounded."""
    return max_bytes(grammar) or 0


def held_turn(decision: Decision, tools: list[Any], template: Any, backend: Backend) -> str | None:
    """The grammar of the turn after ``decision``: a call of the tool a correction named (``Retry.hold``); None
    after any other decision, or when the backend takes no grammar. The loop reads no decline in a call of a
    tool nobody offered, so none is admitted (``held_grammar``'s ``declines``)."""
    if not isinstance(decision, Retry) or not decision.hold:
        return None
    return held_grammar(decision.hold, tools, template.dialect, backend, declines=False, values=decision.hold_values)
