"""Answer text every layer reads alike: its canonical form, a refusal, and a tool's failure passed off as text.

Why here, at the bottom: the answer checks need to know a refusal (a refusal is never questioned for
lacking an observation), the few-shot episodes' values leave refusals out, and the checks and the loop's
repeat lead know a failure or an empty search by one rule. (The suites' judge keeps frozen rules of its
own, ``eval.refusals``.)
"""

from __future__ import annotations

import re
import unicodedata

import regex

from . import en, zh

__all__ = ["canonical", "is_failure_text", "is_refusal"]

_FAILURE = re.compile(
    r"^\s*(?:error\b|tool error|tool \S+ failed|no results? for|no results\b|timed out|timeout\b|traceback|exception\b|"
    r"invalid (?:argument|input)|bad arguments?|there is no tool|错误|出错|没有结果|未找到结果)",
    re.IGNORECASE,
)


def is_failure_text(text: str) -> bool:
    """Whether ``text`` reads as a tool failure or an empty search, not as a fact."""
    return bool(_FAILURE.match(text))


# Characters NFKC leaves alone but models use interchangeably with ASCII.
_CHAR_MAP = str.maketrans({
    "\u2212": "-",  # minus sign
    "\u2018": "'", "\u2019": "'", "\u02bc": "'",
    "\u201c": '"', "\u201d": '"',
    "\u3010": "[", "\u3011": "]", "\u3014": "[", "\u3015": "]",
})


def canonical(text: str) -> str:
    """NFKC (full-width digits and letters become ASCII) plus quote and minus
    folding; keeps case and punctuation so numbers and regexes still read."""
    return unicodedata.normalize("NFKC", text).translate(_CHAR_MAP)


_REFUSAL = regex.compile(
    r"\b(?:" + "|".join(en.REFUSALS) + r")\b|" + "|".join(zh.REFUSALS),
    regex.IGNORECASE,
)


_COPIED_GUIDANCE = regex.compile(
    r"(?:\b(?:if|otherwise)\b[^.;。；]{0,80}?,?\s*)?\b(?:or\s+)?say\s+(?:that\s+)?you\s+cannot\s+(?:find|do)\s+it\b"
    r"|(?:如果|否则)[^。；]{0,40}?(?:就|，)?(?:或者)?说明你(?:找不到|做不到)|或者说明你做不到",
    regex.IGNORECASE,
)
"""The way out the answer checks' corrections offer ("…if they do not give the answer, say that you
cannot find it", "如果结果里没有，就说明你找不到"): a model that copies a correction into its answer has
not refused by that."""


def is_refusal(answer: str) -> bool:
    """Whether ``answer`` says the question cannot be answered (in English or
    Chinese) — the right outcome when no tool holds the fact. A tool's error or
    "No results for ..." text passed off as the answer is not a refusal, though
    it holds refusal words: the model did not decide anything; nor is a
    correction's way out copied into the answer (``_COPIED_GUIDANCE``)."""
    if is_failure_text(answer):
        return False
    return _REFUSAL.search(_COPIED_GUIDANCE.sub(" ", canonical(answer))) is not None
