"""How a correction is worded per language, and what reads as a tool failure.

Why here, below the checks: the parser's own feedback and the checks (``checks.review``) word a correction
the same way, and the answer text every layer reads (``answer_text``) knows a failure by the same rule.
"""

from __future__ import annotations

import re

__all__ = ["is_failure_text", "say"]


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
