"""The fast path: the turns the labelled dialects teach, read without the general line walk.

Why: most turns are a ``Thought:`` line over ``Action: name`` over ``Action Input: ...``
(or ``行动：`` / ``行动输入：``), or a ``Final Answer:``, and for them the walk's
dispatch (every label form, every input form, every echo) costs more than the
reading. ``quick`` recognises those lines by their labels (in the cases and
spacings models write), checks that the walk would pick no line before them, and
reads the inputs and the answer with the walk's own readers into the walk's
``Reading``. For any other turn it gives None and the walk reads the turn as if
nothing had happened (``tests/test_parser_quick.py`` checks that both paths give
the same ``Step``).
"""

from __future__ import annotations

import re
from typing import Optional, Union

from . import jsonish
from .labels import WALK_FIRST, WALK_NEXT
from .names import clean_name
from .placeholders import is_placeholder
from .slots import check_name
from .blobs import bare_blob
from .turn import MAX_ACTIONS, Call, Reading, Turn, TurnError
from .values import args_from_value, bare_line, quoted, read_structured
from .walk import after_action, read_final

ENABLED = True
"""Off: every turn goes through the walk (what the equivalence tests compare against)."""

# The labels of the classic and zh dialects at a line start, in the cases and spacings models write
# them, each of which ``labels`` reads as that label with its content right after the colon; the
# name is one the walk takes as a bare name. A first line opening with "tho" (or 思, 想) and holding
# no "{" is one the walk never picks.
_COLON = r" ?[:：] ?"
_ACTION = r"(?:[Aa]ction|ACTION|行动)"
_FINAL = r"(?:[Ff]inal [Aa]nswer|FINAL ANSWER|最终答案) ?[:：]"
ACTION = re.compile(_ACTION + _COLON + r"([A-Za-z_][A-Za-z0-9_]{0,63})\n"
                    r"(?:[Aa]ction[ _][Ii]nput|ACTION[ _]INPUT|行动输入)" + _COLON)
FINAL = re.compile(_FINAL)
OPENING = re.compile(r"(?:(?:[Tt][Hh][Oo]|思|想)[^\n{]*\n)?(?=" + _ACTION + _COLON + "|" + _FINAL + ")")
STEP = re.compile(r"\n(?:Action:|行动：|Final Answer:|最终答案：)")
QUOTES = "\"'“"


def quick(t: Turn) -> Optional[Reading]:
    """What the walk reads from a turn of the common shape, or None (the turn as it was) for the walk."""
    text = t.text
    if not ENABLED or t.limit != len(text):  # a special token cuts the turn: the walk's business
        return None
    if text.startswith(("{", "```")):
        return _blob_turn(t)
    m = OPENING.match(text)  # the usual turn: its first or second line
    a = m.end() if m is not None else _after_prose(text)
    if a < 0:
        return None
    if ACTION.match(text, a):
        return _actions(t, a)
    m = FINAL.match(text, a)
    if m is None or text.startswith(("*", "_"), m.end()):  # "**" after the colon closes the label
        return None
    try:
        answer, end = read_final(t, m.end())
    except TurnError:
        return None
    t.first_start = a
    return Reading((), answer, end)


def _after_prose(text: str) -> int:
    """Where the first line opening with an action or final-answer label starts, after lines the
    walk picks none of (searched only when such a label is there at all); else -1."""
    if "\nAction:" not in text and "\nFinal Answer:" not in text and "\n行动：" not in text and "\n最终答案：" not in text:
        return -1
    m = STEP.search(text)
    if m is None:
        return -1
    a = m.start() + 1
    if WALK_FIRST.match(text, 0, a) or WALK_NEXT.search(text, 0, a - 1):
        return -1
    return a


def _actions(t: Turn, a: int) -> Optional[Reading]:
    """The calls written back to back from line ``a``, each an action line over its input line."""
    text, limit = t.text, t.limit
    calls: list[Call] = []
    start = a
    while True:
        m = ACTION.match(text, start)
        if m is None or len(calls) >= MAX_ACTIONS:
            return _spoilt(t, calls)
        name = m.group(1)
        tool: object = None
        if is_placeholder(name):  # "JSON_BLOB"
            return _spoilt(t, calls)
        if t.ts is not None:  # the name checked first: an unknown one goes to the walk before any reading
            tool = name if name in t.ts.names else t.ts.lookup(clean_name(name))
            if tool is None:
                return _spoilt(t, calls)
        try:
            got = _input(t, m.end())
            if got is None:
                return _spoilt(t, calls)
            args, end = got
            if tool is None:
                tool = check_name(t, name, end, args)
        except (TurnError, jsonish.JsonishError):
            return _spoilt(t, True)
        if type(tool) is not str:  # a final answer written as an action
            return _spoilt(t, True)
        calls.append(Call(name, args, start, end, tool=tool))
        if end >= limit or text[end:].isspace():
            break
        if text.find("{", end, t.line_end(end)) >= 0:  # maybe another call on the same line
            return _spoilt(t, True)
        start = after_action(t, end)
        if start is None:
            break
        lab = t.label(start)
        if lab is None:  # maybe a JSON call
            return _spoilt(t, True)
        if lab[0] != "action":  # an observation, a question, a final answer: not trusted
            break
    t.first_start = a
    return Reading(tuple(calls), None, calls[-1].end)


def _blob_turn(t: Turn) -> Optional[Reading]:
    """A turn that is one JSON action and nothing more, bare or in a ``` fence (what the JSON
    dialects teach): read by the walk's own reader of the line, ``bare_blob``, without the walk.

    The blob's line is the walk's first pick: a turn that opens with ``{``, or whose first line is
    a fence opener (which holds no ``{``, so the walk does not pick it) over a line opening with
    ``{``. Anything else (an error, prose after the blob, a blob that is no action) goes to the walk."""
    text = t.text
    i = 0
    if not text.startswith("{"):
        i = text.find("\n") + 1
        opener = text[:i].strip()
        if i == 0 or "{" in opener or opener.count("`") != 3 or not text.startswith("{", i):
            return None
    le = t.line_end(i)
    try:
        got = bare_blob(t, i, i, le)
    except TurnError:
        return _spoilt(t, True)
    if got is None:
        return _spoilt(t, True)
    t.first_start = t.blob_line
    if type(got) is str:  # a final answer
        return Reading((), got, t.final_end)
    end = got[-1].end
    if len(got) > MAX_ACTIONS or not (end >= t.limit or text[end:].isspace()):
        return _spoilt(t, True)
    return Reading(tuple(got), None, end)


def _input(t: Turn, p: int) -> Optional[tuple[Union[dict, str], int]]:
    """The input written at ``p`` right after its label, as ``values.input_value`` reads it, for
    the forms it reads without a detour (a JSON object, a quoted string, bare text); else None."""
    text = t.text
    le = t.line_end(p)
    c = text[p] if p < le else ""
    if c == "{":
        value, start, end = read_structured(t, p)
        return args_from_value(t, value, start, end), end
    if c in QUOTES and c:
        return quoted(t, p, le)
    if c.isalnum() and not (c.isalpha() and text.find("(", p, le) >= 0):  # "(": maybe Wrapper({...})
        return bare_line(t, p, le, multiline=True)
    return None


def _spoilt(t: Turn, touched: object) -> None:
    """None for the walk; the turn reset when the readers may have noted repairs or spent budget on it."""
    if touched:
        t.__init__(t.text, t.ts, t.style)
    return None
