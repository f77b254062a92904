"""JSON actions in a turn: after ``Action:``, bare, fenced, in ``<tool_call>`` tags or inside prose."""

from __future__ import annotations

from typing import Union

from . import feedback, jsonish
from .json_calls import calls_from_json
from .labels import ACTIONISH, NON_SPACE
from .lines import MAX_BLOB_TRIES
from .names import clean_name
from .placeholders import is_placeholder_name, placeholder_error, reject_placeholder
from .slots import final_text
from .turn import MAX_ACTIONS, Call, Turn, TurnError
from .values import json_error, read_structured


def action_blob(t: Turn, start: int, p: int) -> Union[list, str]:
    """A JSON action written after ``Action:`` (inline, on the next line, fenced or tagged)."""
    text = t.text
    tagged = text.startswith("<tool_call>", p)
    if tagged:
        p = NON_SPACE.match(text, p + len("<tool_call>"), t.limit).end()
    try:
        value, _vstart, end = read_structured(t, p)
    except jsonish.JsonishError as err:
        raise json_error(t, err, None) from None
    if tagged:
        end = close_tag(t, end)
    if isinstance(value, str):
        reject_placeholder(t, value, end)
    got = calls_from_json(value, t.ts, labelled=True)
    if got is None:
        raise TurnError("no_action", feedback.no_action(t.voice), end)
    return finish_blob(t, got, start, end)


def finish_blob(t: Turn, got: Union[list, tuple], start: int, end: int) -> Union[list, str]:
    if isinstance(got, tuple):  # (final-answer arguments, thought)
        t.blob_thought = got[1]
        t.final_end = end
        return final_text(t, got[0], end)
    calls = []
    for name, args, thought, decoded in got:
        if isinstance(name, str) and is_placeholder_name(clean_name(name)) and not (
                t.ts is not None and t.ts.lookup(clean_name(name))):
            raise placeholder_error(t, name, end)
        if decoded:
            t.add("arguments_string_decoded")
        reject_placeholder(t, args, end)
        calls.append(Call(name, args, start, end, thought))
    return calls


def close_tag(t: Turn, end: int) -> int:
    k = NON_SPACE.match(t.text, end, t.limit).end()
    return k + len("</tool_call>") if t.text.startswith("</tool_call>", k) else end


def bare_blob(t: Turn, i: int, p: int, le: int) -> Union[list, str, None]:
    """A JSON action at ``p`` written without a label: bare, fenced, in ``<tool_call>``, or in prose.

    Returns None when it is not an action, with ``resume`` set past it.
    """
    text = t.text
    t.resume = 0
    tagged = text.startswith("<tool_call>", p)
    if tagged:
        p = NON_SPACE.match(text, p + len("<tool_call>"), t.limit).end()
        if p >= t.limit:
            return None
    body = p
    if text.startswith("```", p):
        body = t.first_char(p + 3, le)
        if body >= le or text[body] not in "{[":
            body = t.first_char(t.skip_blank_lines(t.next_line(p)), t.limit)
    elif p == t.first_char(i, le) and i > 0 and text[i - 1] == "\n":
        above = text.rfind("\n", 0, i - 1) + 1
        line_above = text[above:i].strip()
        if line_above.startswith("```") and line_above.count("`") == 3:
            p = t.first_char(above, i)  # ```json on the line above: read the block with its fences
            i = above
        elif line_above == "<tool_call>":
            i = above
            tagged = True
    actionish = ACTIONISH.match(text, body, min(body + 200, t.limit)) is not None
    if not (actionish or tagged) and (t.blob_failures >= MAX_BLOB_TRIES or not opens_value(text, body, t.limit)):
        t.blob_failures += 1
        return None  # "{" before a fence or a word: not a value; or too many tries already
    try:
        value, _vstart, end = read_structured(t, p)
    except jsonish.JsonishError as err:
        t.blob_floor = max(t.blob_floor, err.pos + 1)
        if actionish or tagged:
            raise json_error(t, err, None) from None
        t.blob_failures += 1
        return None
    if tagged:
        end = close_tag(t, end)
    got = calls_from_json(value, t.ts, labelled=tagged)
    if got is None:
        t.blob_floor = max(t.blob_floor, end)
        t.resume = t.next_line(end)
        return None
    t.blob_line = i
    return finish_blob(t, got, i if (text.startswith("```", p) or tagged) else p, end)


def same_line_calls(t: Turn, calls: list[Call]) -> None:
    """More JSON calls written right after the last one on its line: ``{...} {...}``."""
    text = t.text
    while True:
        end = calls[-1].end
        le = t.line_end(end)
        if text.find("{", end, le) < 0:
            return
        b = t.first_char(end, le)
        if b >= le or text[b] != "{" or ACTIONISH.match(text, b, min(b + 200, t.limit)) is None:
            return
        if len(calls) >= MAX_ACTIONS:
            t.add("too_many_actions")
            return
        try:
            more = bare_blob(t, b, b, le)
        except TurnError:
            return  # a broken later call is cut off with the rest (dropped_tail)
        if not isinstance(more, list):
            return
        calls.extend(more[:MAX_ACTIONS - len(calls)])


def opens_value(text: str, pos: int, limit: int) -> bool:
    """Whether the ``{`` or ``[`` at ``pos`` can open a JSON-ish value (judged by the next visible character)."""
    q = NON_SPACE.match(text, pos + 1, min(limit, pos + 200)).end()
    if q >= min(limit, pos + 200):
        return q < limit
    c = text[q]
    if text[pos] == "{":
        return c in "\"'\u201c}" or c.isalnum() or c == "_"
    return c in "{[\"'\u201c]-" or c.isalnum()
