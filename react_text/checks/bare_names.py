"""An answer that is only a tool's name (the ``bare_name`` check).

Why: asked for its answer after reaching for a tool it was not offered, or after corrections, a small model may
write nothing but a tool's name: ``law_crimes.search`` (an offered tool), ``basketball_conversion.convert`` (one it
made up beside ``cooking_conversion.convert``). That is no answer to anyone, and no call either; the shim treats
it as a reply with neither, which ``own_format`` asks for once more in the model's own tool format. The test is on
the answer's shape alone: one identifier with a dot or an underscore in it ("Bonjour" and "Mars" are answers), or
an offered tool's name. Pure function.
"""

from __future__ import annotations

from typing import Container

import regex

__all__ = ["is_bare_name"]

_NAME = regex.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def is_bare_name(answer: str, offered: Container[str]) -> bool:
    """Whether ``answer``, less blanks, backticks and a trailing ``()``, is one identifier that is an offered
    tool's name or has a dot or an underscore inside it."""
    text = answer.strip().strip("`").strip().removesuffix("()")
    if not _NAME.fullmatch(text):
        return False
    return text in offered or "." in text or "_" in text.strip("_")
