"""The engine's checks and leads: every intervention it makes on a model's turn, by name, switchable.

``registry`` names each one, says where it acts and in which order they are tried; ``parse_checks``
reads a ``--checks`` spec; ``review.review`` tries them on a turn and returns the first correction due.
The loop (``agent``) and the shim (``fc``) both call that one review.
"""

from .registry import ALL_CHECKS, CHECKS, DEFAULT_CHECKS, NO_CHECKS, OFF_BY_DEFAULT, CheckName, CheckSpec, describe, in_order, parse_checks

__all__ = ["ALL_CHECKS", "CHECKS", "DEFAULT_CHECKS", "NO_CHECKS", "OFF_BY_DEFAULT", "CheckName", "CheckSpec", "describe", "in_order", "parse_checks"]
