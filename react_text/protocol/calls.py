"""Call syntax: ``Act: search(query="x")`` and the ReAct paper's ``Search[x]``."""

from __future__ import annotations

from typing import Union

from . import feedback, jsonish
from .labels import NON_SPACE
from .names import clean_name
from .placeholders import reject_placeholder
from .slots import check_name, final_text
from .turn import FINAL, Call, Turn, TurnError
from .values import object_or_text


def read_call(t: Turn, start: int, name_raw: str, opener: int) -> Union[list, str]:
    """``name(args)``: keywords give a dict, one positional its value."""
    text = t.text
    try:
        got = jsonish.read_call_args(text, opener + 1, boundary=t.is_boundary, stop=t.limit, budget=t.budget)
    except jsonish.JsonishError as err:
        if err.code == "truncated":
            tool = check_name(t, name_raw, t.limit)
            raise TurnError("truncated", feedback.truncated(t.voice, None), t.rstrip_end(0, t.limit),
                            detail=_tool_name(tool, name_raw)) from None
        le = t.line_end(opener)
        close = text.rfind(")", opener, le)
        if close < 0:
            tool = check_name(t, name_raw, le)
            raise TurnError("bad_arguments", feedback.bad_arguments(t.voice, None, "unbalanced parentheses"),
                            t.rstrip_end(0, le), detail=_tool_name(tool, name_raw)) from None
        t.add("raw_arguments")  # not Python-ish: keep what is between the parentheses
        args: Union[dict, str] = text[opener + 1:close].strip()
        end = close + 1
    else:
        t.add(*got.repairs)
        end = got.end
        args = call_to_args(t, name_raw, got)
    return finish_call(t, start, name_raw, args, end)


def _tool_name(tool: object, name_raw: str) -> str:
    """An error's detail: the tool ``check_name`` found, or the name as written when it found a final answer."""
    return tool if isinstance(tool, str) else clean_name(name_raw)


def finish_call(t: Turn, start: int, name_raw: str, args: Union[dict, str], end: int) -> Union[list, str]:
    tool = check_name(t, name_raw, end, args)
    if tool is FINAL:
        t.final_end = end
        return final_text(t, args, end)
    reject_placeholder(t, args, end)
    return [Call(name_raw, args, start, end, tool=str(tool))]


def call_to_args(t: Turn, name_raw: str, got: jsonish.CallArgs) -> Union[dict, str]:
    """Keywords -> dict; one positional -> its string (or dict); several -> by schema order."""
    pos, kw = got.positional, dict(got.keywords)
    if not pos:
        return kw
    if len(pos) == 1 and not kw:
        raw, value = pos[0]
        return value if isinstance(value, (dict, str)) else raw
    tool = t.ts.lookup(clean_name(name_raw)) if t.ts is not None else None
    free = [p for p in (t.ts.param_names(tool) if tool else []) if p not in kw]
    if len(free) >= len(pos):
        t.add("positional_args")
        for p, (_raw, value) in zip(free, pos):
            kw[p] = value
        return kw
    t.add("raw_arguments")
    parts = [raw for raw, _ in pos] + [f"{k}={jsonish.dumps(v)}" for k, v in got.keywords.items()]
    return ", ".join(parts)


def read_paper(t: Turn, start: int, name_raw: str, opener: int, slot_end: int) -> Union[list, str]:
    """``Search[entity]``: the text inside the brackets (a dict if it is a JSON object)."""
    text = t.text
    body = NON_SPACE.match(text, opener + 1, t.limit).end()
    if text.startswith("{", body):  # a JSON object may hold "]" in a string or span lines
        try:
            got = jsonish.read_value(text, body, boundary=t.is_boundary, stop=t.limit, budget=t.budget)
        except jsonish.JsonishError:
            got = None
        if got is not None and isinstance(got.value, dict):
            close = NON_SPACE.match(text, got.end, t.limit).end()
            if text.startswith("]", close):
                t.add(*got.repairs)
                return finish_call(t, start, name_raw, got.value, close + 1)
    close = balanced_close(text, opener, slot_end)
    last = text.rfind("]", opener, slot_end)
    if close < 0 or last > close:
        close = last
    if close < 0:  # not closed on this line: on a later one, or at the end of the turn
        nl = t.next_line(opener)
        stop = t.find_line(nl, fence=True)
        close = text.find("]", nl, stop)
        if close < 0:
            t.add("closed_brackets")
            end = t.rstrip_end(opener + 1, stop)
            inner = text[opener + 1:end].strip()
        else:
            inner, end = text[opener + 1:close].strip(), close + 1
    else:
        inner, end = text[opener + 1:close].strip(), close + 1
    return finish_call(t, start, name_raw, object_or_text(inner), end)


def balanced_close(text: str, opener: int, end: int) -> int:
    """Offset of the ``]`` matching ``text[opener]`` before ``end``, or -1."""
    depth = 0
    for k in range(opener, end):
        c = text[k]
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return k
    return -1
