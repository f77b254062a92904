"""What a correction is, how it is worded per language, and what reads as a tool failure.

Why here, below the checks: the parser's own feedback, the call checks (``grounding``, ``declines``)
and the answer checks (``checks.answers``) all word a correction the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Nudge", "is_failure_text", "say"]


@dataclass(frozen=True)
class Nudge:
    """One correction: ``code`` names the check (each fires once per run), ``message`` is the observation."""

    code: str
    message: str
    lead: str = ""
    """Words the loop's next thought starts with, when the correction has them."""


def say(lang: str, en: str, zh: str) -> str:
    """The message in the prompt's language."""
    return zh if lang.lower().startswith("zh") else en


_FAILURE = re.compile(
    r"^\s*(?:error\b|tool error|tool \S+ failed|no results? for|no results\b|timed out|timeout\b|traceback|exception\b|"
    r"invalid (?:argument|input)|bad arguments?|there is no tool|错误|出错|没有结果|未找到结果)",
    re.IGNORECASE,
)


def is_failure_text(text: str) -> bool:
    """Whether ``text`` reads as a tool failure or an empty search, not as a fact."""
    return bool(_FAILURE.match(text))
