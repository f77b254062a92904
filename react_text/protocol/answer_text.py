"""Answer text every layer reads alike: the canonical form of a model's text and refusal detection.

Why here, in the protocol layer: the loop's answer checks need to know a
refusal (a refusal is never questioned for lacking an observation) and the
judge of a suite needs the same rule, so both read it from below them.
"""

from __future__ import annotations

import unicodedata

import regex

from ..lexicon import en, zh
from .nudges import is_failure_text

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
