"""The judge's own reading of answer text: its canonical form and what counts as a refusal.

Why its own, and frozen: the engine decides refusals too (``lexicon.answers``), and tunes its
phrases to steer the model; a judge that read the same list would move with every such change, and a
wrong phrase would shift the engine and its score together, invisibly. These rules change only on
purpose, with their own tests (``tests/test_judge.py``), and every committed result judged again.
"""

from __future__ import annotations

import unicodedata

import regex

__all__ = ["canonical", "is_refusal"]

_CHAR_MAP = str.maketrans({
    "\u2212": "-",  # minus sign
    "\u2018": "'", "\u2019": "'", "\u02bc": "'",
    "\u201c": '"', "\u201d": '"',
    "\u3010": "[", "\u3011": "]", "\u3014": "[", "\u3015": "]",
})
"""Characters NFKC leaves alone that models use interchangeably with ASCII."""


def canonical(text: str) -> str:
    """NFKC (full-width digits and letters become ASCII) plus quote and minus folding; keeps case and
    punctuation so numbers and regexes still read."""
    return unicodedata.normalize("NFKC", text).translate(_CHAR_MAP)


_DECLINES_EN = (
    r"can ?not", r"can't", r"couldn't", r"could not", r"unable to", r"not able to",
    r"(?:don't|do not|doesn't|does not|didn't|did not) (?:know|have|say|mention|contain|include|provide)",
    r"no way (?:to|of) (?:know|tell|determin)\w*", r"impossible",
    r"not (?:be )?(?:known|knowable|possible|available|found|mentioned|provided|specified|stated|listed|given|"
    r"recorded|included|public)",
    r"(?:isn't|aren't|wasn't) (?:known|available|mentioned|listed|recorded|public)",
    r"unknown", r"unanswerable", r"insufficient", r"not enough information",
    r"no (?:information|info|data|record|records|results?|mention|answer|details|access)",
    r"(?:i'm|i am) not sure", r"not certain", r"cannot be determined", r"can't be determined",
    r"(?:i|we) (?:don't|do not) have",
)
_DECLINES_ZH = (
    "无法", "不知道", "不清楚", "不确定", "不能确定", "不能回答", "不能提供", "不能预测", "不能得知", "不可能知道",
    "没有找到", "未找到", "找不到", "查不到", "搜不到", "没有查到", "未能找到", "没有相关", "无相关",
    "未提及", "没有提到", "没有提及", "未知", "无从", "没有记载", "没有记录", "暂无", "无可奉告", "不得而知",
    r"没有[^。，,.;；]{0,10}(?:信息|资料|记录|数据|内容)",
)
_DECLINES = regex.compile(r"\b(?:" + "|".join(_DECLINES_EN) + r")\b|" + "|".join(_DECLINES_ZH), regex.IGNORECASE)
_TOOL_FAILURE = regex.compile(
    r"^\s*(?:error\b|tool error|tool \S+ failed|no results? for|no results\b|timed out|timeout\b|traceback|exception\b|"
    r"invalid (?:argument|input)|bad arguments?|there is no tool|错误|出错|没有结果|未找到结果)",
    regex.IGNORECASE,
)
"""A tool's error or empty search passed off as the answer: the model decided nothing."""
_WAY_OUT = regex.compile(
    r"(?:\b(?:if|otherwise)\b[^.;。；]{0,80}?,?\s*)?\b(?:or\s+)?say\s+(?:that\s+)?you\s+cannot\s+(?:find|do)\s+it\b"
    r"|(?:如果|否则)[^。；]{0,40}?(?:就|，)?(?:或者)?说明你(?:找不到|做不到)|或者说明你做不到",
    regex.IGNORECASE,
)
"""A correction's way out copied into the answer ("…, say that you cannot find it"): not a refusal."""


def is_refusal(answer: str) -> bool:
    """Whether ``answer`` says the question cannot be answered, in English or Chinese: the right
    outcome when no tool holds the fact. A tool's failure text passed off as the answer is no
    refusal, nor a correction's way out copied into it."""
    if _TOOL_FAILURE.match(answer):
        return False
    return _DECLINES.search(_WAY_OUT.sub(" ", canonical(answer))) is not None
