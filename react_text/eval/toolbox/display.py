"""How the toolbox's tools write a number: one rule, so every tool's output reads alike."""

from __future__ import annotations

from ...tools.calculator import format_number


def num_text(value: float) -> str:
    """``value`` rounded to six places and written without a trailing ``.0``."""
    return format_number(round(value, 6))
