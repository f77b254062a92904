"""Answer text every layer reads alike: the canonical form of a model's text and refusal detection.

Why here, in the protocol layer: the loop's answer checks need to know a
refusal (a refusal is never questioned for lacking an observation) and the
judge of a suite needs the same rule, so both read it from below them.
"""

from __future__ import annotations

import unicodedata

import regex

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


REFUSAL_PHRASES_EN: tuple[str, ...] = (
    r"can ?not", r"can't", r"couldn't", r"could not", r"unable to", r"not able to",
    r"(?:don't|do not|doesn't|does not|didn't|did not) (?:know|have|say|mention|contain|include|provide)",
    r"no way (?:to|of) (?:know|tell|determin)\w*", r"impossible",
    r"not (?:be )?(?:known|knowable|possible|available|found|mentioned|provided|specified|stated|listed|given|recorded|included|public)",
    r"(?:isn't|aren't|wasn't) (?:known|available|mentioned|listed|recorded|public)",
    r"unknown", r"unanswerable", r"insufficient", r"not enough information",
    r"no (?:information|info|data|record|records|results?|mention|answer|details|access)",
    r"(?:i'm|i am) not sure", r"not certain", r"cannot be determined", r"can't be determined",
    r"(?:i|we) (?:don't|do not) have",
)
REFUSAL_PHRASES_ZH: tuple[str, ...] = (
    "无法", "不知道", "不清楚", "不确定", "不能确定", "不能回答", "不能提供", "不能预测", "不能得知", "不可能知道",
    "没有找到", "未找到", "找不到", "查不到", "搜不到", "没有查到", "未能找到", "没有相关", "无相关",
    "未提及", "没有提到", "没有提及", "未知", "无从", "没有记载", "没有记录", "暂无", "无可奉告", "不得而知",
    r"没有[^。，,.;；]{0,10}(?:信息|资料|记录|数据|内容)",
)
_REFUSAL = regex.compile(
    r"\b(?:" + "|".join(REFUSAL_PHRASES_EN) + r")\b|" + "|".join(REFUSAL_PHRASES_ZH),
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
