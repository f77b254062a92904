"""The grammar hook for ``constrain=True``: a grammar that only lets the model write a valid turn."""

from __future__ import annotations

from typing import Any

from ..backends.base import Backend
from ..backends.build import supports_grammar
from ..grammar.gbnf import build_grammar, max_bytes


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
