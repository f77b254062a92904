"""Label patterns: which lines open with ``Action:``, ``Thought:``, ``Final Answer:`` and their kin.

Labels count only at a line start (after optional markdown decoration). Every
pattern is anchored with bounded, un-nested quantifiers (or is a single
character class), so one match attempt costs a constant whatever the line holds,
and the walk's per-line filter (``WALK_FIRST`` / ``WALK_NEXT``) picks candidate
lines in C without Python work per line.
"""

from __future__ import annotations

import re
from typing import Optional

# Labels are matched only at a line start. Every quantifier is bounded and none
# is nested, so one match attempt costs a constant whatever the line holds.
LABEL_KINDS = (
    ("input", r"action[ _]?input|action[ _]?\d{1,3}[ _]?input|tool[ _]?input|action[ _]?args"
              r"|args|arguments|input|行动输入|动作输入|输入|参数"),
    ("final", r"final[ _]?answer|final|answer|最终答案|最终回答|答案"),
    ("action", r"action|act|tool[ _]?call|tool[ _]?name|tool|行动|动作|操作"),
    ("thought", r"thoughts|thought|thinking|思考|想法"),
    ("observation", r"observations|observation|obs|观察|观测|结果"),
    ("question", r"question|new[ _]question|human|user|问题"),
)
DECORATION = r"[ \t>#*_\-]{0,12}"
DECORATION_CHARS = " \t>#*_-"
AFTER_WORD = r"[ \t]{0,4}\d{0,4}[ \t]{0,4}[*_]{0,3}[ \t]{0,2}[:：]"
LABEL_END = r"(?:\*\*(?=[ \t]|$)|[*_]{1,3}(?=[ \t]))?"
LABEL_STARTS = frozenset("aAtToOqQfFiIhHuU[行动操思想观结问最答输参")


def _label_pattern(first: str) -> re.Pattern:
    """The label pattern for a line whose label word starts with ``first``: only the words that start so.

    A label word starts right after the decoration (no word starts with a
    decoration character), so the other words cannot match there; leaving them
    out saves trying each, and the order of the rest is kept."""
    groups = []
    for kind, words in LABEL_KINDS:
        kept = [w for w in words.split("|") if w[0].lower() == first.lower()]
        if kept:
            groups.append(f"(?P<{kind}>{'|'.join(kept)})")
    return re.compile(DECORATION + "(?:" + "|".join(groups) + ")" + AFTER_WORD + LABEL_END, re.IGNORECASE)


LABEL_BY_FIRST = {c: _label_pattern(c) for c in LABEL_STARTS if c != "["}
# First three letters (lowercased) of every label, and first characters of the Chinese ones,
# for the per-line filter; the walk leaves out thoughts (思考, 想法, thought, thinking).
PICK3_ALL = frozenset({"act", "too", "arg", "inp", "fin", "ans", "obs", "que", "new", "hum", "use", "tho", "thi",
                       "[fi", "[ac", "[ob", "[qu", "[th"})
PICK3 = PICK3_ALL - {"tho", "thi", "[th"}
PICK1_ALL = frozenset("行动操思想观结问最答输参")
PICK1 = PICK1_ALL - set("思想")
# Characters a picked line can start with: decoration, blanks, and the first letters of labels.
FIRST = frozenset(DECORATION_CHARS) | {"", "\r", "\v", "\f", "\u3000"} | frozenset("aAtToOqQfFiIhHuUnN[") | PICK1_ALL
FIRST_FENCE = FIRST | {"`"}
THOUGHT_FIRST = frozenset(DECORATION_CHARS + "tT思想")
"""The characters a ``THOUGHT_LABEL`` match can start with (the pattern ignores case, and only "t" folds to "T")."""
THOUGHT_LABEL = re.compile(
    "(?m)^" + DECORATION + "(?:thoughts|thought|thinking|思考|想法)" + AFTER_WORD + r"(?:\*\*(?=[ \t]|$)|[*_]{1,3}(?=[ \t]))?[ \t]?",
    re.IGNORECASE)
BRACKET_LABEL = re.compile(
    DECORATION + r"\[[ \t]{0,2}(final[ _\-]?answer|action|thought|observation|question)[ \t]{0,2}\][ \t]{0,4}:?",
    re.IGNORECASE)
BRACKET_KINDS = {"finalanswer": "final", "action": "action", "thought": "thought", "observation": "observation",
                 "question": "question"}


def _cased(word: str) -> str:
    """``word`` as a pattern matching it in any ASCII case (what ``.lower()`` folds, and no more)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)


# The walk's line filter as one pattern: within its first 16 characters, after decoration, a line
# opens with the first three letters of a label (any case; thoughts left out) or a Chinese label's
# first character; or it holds a "{" and opens with "{", "[" or "`" (after blanks and ">" in its
# first 64), or holds '{"', "{'", "{ " or "<tool_call>". A lookahead after each newline: the scan
# for "\n" runs in C, and each line start costs a few tries, each linear in that line.
WALK_LINE = ("(?=" + r"[ \t>#*_\-]{0,13}(?:" + "|".join(map(_cased, sorted(PICK3))) + ")"
             + r"|[ \t>#*_\-]{0,15}[" + "".join(sorted(PICK1)) + "]"
             + r"|(?=[^\n]*\{)(?:[ \t>]{0,63}[{\[`]|[^\n]*<tool_call>)"
             + r"""|[^\n]*\{["' ])""")
WALK_FIRST = re.compile(WALK_LINE)
WALK_NEXT = re.compile("\n" + WALK_LINE)
TERMINATORS = frozenset({"observation", "question"})
# A line opening like a label ("Result:", "Tool Output:") ends the lines that continue a bare input.
LABEL_LIKE = re.compile(r"(?m)^[ \t>*#]{0,6}[A-Z][A-Za-z]{1,15}(?: [A-Za-z]{1,15})?[ \t*]{0,3}:(?!//)")
PAPER_LINE = re.compile(r"(?m)^[ \t>*]{0,6}([A-Za-z_][\w.\-]{0,40})\[")
LABEL_WORDS = ("observation", "thought", "question", "final answer", "action", "action input")
# A terminator written mid-line after a bare input: "Action Input: Paris Observation: ..."
MIDLINE_WORDS = ("Observation", "observation", "OBSERVATION", "Obs:", "Thought", "thought", "Final Answer",
                 "final answer", "Question", "观察", "思考", "最终答案")
MIDLINE_RE = re.compile("|".join(map(re.escape, MIDLINE_WORDS)))
INLINE_INPUT = re.compile("Action Input|action input|Action input|ACTION INPUT|Action_Input|action_input")
MIDLINE_AFTER = re.compile(r"[ \t]{0,3}\d{0,3}[ \t]{0,3}[:：]")
# An object (or a list of them) whose first key names a tool: '{"action":', "[{'name':".
ACTIONISH = re.compile(
    r"[\{\[][ \t\r\n]{0,40}(?:\{[ \t\r\n]{0,40})?[\"']?(?:action|tool|tool_name|name|function|tool_calls|"
    r"final_answer|api_name)[\"']?[ \t]{0,4}[:：]",
    re.IGNORECASE,
)
NON_SPACE = re.compile(r"[ \t\r\n\f\v]*")


def strip_thought_labels(text: str) -> str:
    """``text`` without the ``Thought:`` labels that open its lines.

    A one-line thought (trailing newlines aside) can hold a label only at its
    start: one anchored match instead of a scan of every offset."""
    if "\n" in text.rstrip("\n"):
        return THOUGHT_LABEL.sub("", text)
    if text.startswith("Thought: "):  # the usual thought: what the pattern removes, without a regex call
        return text[9:]
    if text[:1] not in THOUGHT_FIRST:  # prose: no label can start here, no regex call
        return text
    m = THOUGHT_LABEL.match(text)
    return text if m is None else text[m.end():]


def midline_stop(text: str, p: int, le: int) -> int:
    """Where a terminator label written mid-line cuts a bare input (``le`` if none)."""
    if MIDLINE_RE.search(text, p, le) is None:  # no terminator word on the line (the usual case)
        return le
    for tries, m in enumerate(MIDLINE_RE.finditer(text, p, le)):
        if tries >= 16:
            break
        k = m.start()
        if (k == p or not text[k - 1].isalnum()) and (m.group().endswith(":") or MIDLINE_AFTER.match(text, m.end(), le)):
            return k
    return le


def inline_input_label(text: str, start: int, end: int) -> Optional[tuple[int, int]]:
    """(end of the name, start of the input) when an action line also holds ``Action Input:``."""
    for tries, w in enumerate(INLINE_INPUT.finditer(text, start + 1, end)):
        if tries >= 8:
            break
        m = MIDLINE_AFTER.match(text, w.end(), end)
        if m is not None:
            return w.start(), NON_SPACE.match(text, m.end(), end).end()
    return None
