"""What reads as a tool failure or an empty search, not as a fact.

Why here, in the protocol layer: the answer text every layer reads (``answer_text``), the checks
(``checks.answers``) and the loop's repeat lead all know a failure by this one rule. (How a correction is
worded, per language, is ``checks.messages``.)
"""

from __future__ import annotations

import re

__all__ = ["is_failure_text"]


_FAILURE = re.compile(
    r"^\s*(?:error\b|tool error|tool \S+ failed|no results? for|no results\b|timed out|timeout\b|traceback|exception\b|"
    r"invalid (?:argument|input)|bad arguments?|there is no tool|错误|出错|没有结果|未找到结果)",
    re.IGNORECASE,
)


def is_failure_text(text: str) -> bool:
    """Whether ``text`` reads as a tool failure or an empty search, not as a fact."""
    return bool(_FAILURE.match(text))
