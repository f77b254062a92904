"""Echoed template instructions (``the action to take``, ``$JSON_BLOB``, ``<tool>``): found and rejected in one place."""

from __future__ import annotations

import re
from typing import Any, Optional

from . import feedback
from .names import fold
from .turn import Turn, TurnError

PLACEHOLDER_PHRASES = (
    "the action to take", "should be one of", "the input to the action", "input to the action",
    "the final answer to the original", "final answer to the original input", "the result of the action",
    "name of the tool", "the name of the tool", "the tool to use", "the tool name", "your final answer",
    "your answer here", "action input here", "arguments here", "json_blob", "$json_blob", "$input", "$tool",
    "the input question", "you should always think", "要采取的行动", "行动的输入", "行动的结果", "你应该",
    "一个工具名", "工具名称", "原始问题的最终答案", "你必须回答的问题",
)
PLACEHOLDER_NAMES = frozenset({"toolname", "actionname", "functionname", "nameofthetool", "nameoftool", "yourtool"})
# Whole-value placeholder shapes: "...", "$JSON_BLOB", "<tool>", "<tool>(<arguments>)",
# "{tool_names}", "[search, calculator]". Single character classes between fixed
# delimiters, so a match cannot backtrack.
PLACEHOLDER_FORMS = re.compile(
    r"\.{2,400}|…{1,400}|\$[A-Z_]{2,40}|<[^<>\n]{1,40}>|<[^<>\n]{1,40}>\(<[^<>\n]{1,40}>\)"
    r"|\{[A-Za-z_]{1,40}\}|\[[A-Za-z_ ,]{1,400}\]"
)
PLACEHOLDER_PHRASE = re.compile("|".join(map(re.escape, PLACEHOLDER_PHRASES)), re.IGNORECASE)
# The ASCII pairs (lowercased) that open a phrase: ignoring case, an ASCII character matches only its two cases
PHRASE_ASCII_PAIRS = frozenset(p[:2].lower() for p in PLACEHOLDER_PHRASES if p[:2].isascii())


def is_placeholder(value: str) -> bool:
    """True when ``value`` is a template instruction echoed back rather than content."""
    head = value[:2]
    if head[:1].isalnum() and head.isascii() and head.lower() not in PHRASE_ASCII_PAIRS:
        return False  # nothing to strip in front, and neither a form nor a phrase starts so (most values)
    if len(value) > 400:
        return False
    s = value.strip().strip("`\"'*").strip()
    if not s:
        return False
    if s[0] in ".…$<{[" and PLACEHOLDER_FORMS.fullmatch(s):
        return True
    if s[:2].isascii() and s[:2].lower() not in PHRASE_ASCII_PAIRS:
        return False  # no phrase starts so (most values): no regex call
    return PLACEHOLDER_PHRASE.match(s) is not None  # echoed instructions start with the phrase


def is_placeholder_name(name: str) -> bool:
    """True when a tool slot holds the format example's name (``tool_name``, ``Action Name``)."""
    return fold(name) in PLACEHOLDER_NAMES


def placeholder_error(t: Turn, what: str, end: int) -> TurnError:
    """The error for an echoed instruction ``what``; ``end`` is where the turn is cut."""
    return TurnError("placeholder", feedback.placeholder(t.voice, what), end, detail=what)


def find_placeholder(value: Any) -> Optional[str]:
    """``value`` (a string), or the first string value of a dict of arguments, that is a
    template instruction echoed back rather than content; None when there is none."""
    if isinstance(value, str):
        return value if is_placeholder(value) else None
    if isinstance(value, dict):
        for v in value.values():
            if not isinstance(v, str):
                continue
            head = v[:2]
            if head[:1].isalnum() and head.isascii() and head.lower() not in PHRASE_ASCII_PAIRS:
                continue  # is_placeholder's first test, inlined: most values end here, with no call
            if is_placeholder(v):
                return v
    return None


def reject_placeholder(t: Turn, value: Any, end: int) -> None:
    """Raise the ``placeholder`` error when ``value`` holds an echoed instruction (``find_placeholder``)."""
    if isinstance(value, str):
        head = value[:2]
        if head[:1].isalnum() and head.isascii() and head.lower() not in PHRASE_ASCII_PAIRS:
            return  # is_placeholder's first test, inlined: most values end here, with no further call
        if is_placeholder(value):
            raise placeholder_error(t, value, end)
    elif isinstance(value, dict):
        found = find_placeholder(value)
        if found is not None:
            raise placeholder_error(t, found, end)
