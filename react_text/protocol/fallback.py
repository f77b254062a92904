"""Dialects read only when the walk found nothing: LangChain's XML agent tags, Haystack's inline
``Tool: x Tool Input: y``, and a bare ``Search[x]`` line."""

from __future__ import annotations

from typing import Optional

from . import feedback
from .calls import read_paper
from .labels import PAPER_LINE
from .names import is_final_name
from .placeholders import reject_placeholder
from .slots import check_name, final_text
from .turn import FINAL, Call, Reading, Turn, TurnError
from .values import bare_args, input_value, object_or_text
from .walk import MAX_ECHOES


def fallback(t: Turn) -> Optional[Reading]:
    """Readers for shapes the line walk does not see: LangChain's XML agent tags, Haystack's
    ``Tool: x Tool Input: y`` inside a line, and a bare ``Search[x]`` line. Each is tried only
    when a cheap substring test says it may apply."""
    text = t.text
    if "<tool" in text or "<final_answer>" in text:
        got = read_xml(t)
        if got is not None:
            return got
    if "Tool Input:" in text or "tool input:" in text:
        got = inline_tool(t)
        if got is not None:
            return got
    if "[" in text:
        return bare_paper(t)
    return None


def read_xml(t: Turn) -> Optional[Reading]:
    """``<tool>name</tool><tool_input>x</tool_input>`` or ``<final_answer>x</final_answer>``, entities decoded."""
    import html  # its entity table takes ~4 ms to import; only XML-agent turns need it, not `import react_text`

    text, limit = t.text, t.limit
    tag = text.find("<tool>", 0, limit)
    f = text.find("<final_answer>", 0, limit)
    if f >= 0 and (tag < 0 or f < tag):
        start = f + len("<final_answer>")
        close = text.find("</final_answer>", start, limit)
        stop = limit if close < 0 else close
        end = t.rstrip_end(start, stop) if close < 0 else close + len("</final_answer>")
        t.first_start = f
        answer = html.unescape(text[start:stop].strip())
        if not answer:
            raise TurnError("missing_answer", feedback.missing_answer(t.voice), end)
        return Reading((), answer, end)
    if tag < 0:
        if text.find("<tool_input>", 0, limit) >= 0:  # an input with no tool
            raise TurnError("no_action", feedback.no_action(t.voice), t.rstrip_end(0, limit))
        return None
    name_end = text.find("</tool>", tag, limit)
    if name_end < 0:
        return None
    ti = text.find("<tool_input>", name_end, limit)
    if text.find("<tool>", name_end, limit if ti < 0 else ti) >= 0:  # several tools, one input: which one?
        raise TurnError("no_action", feedback.no_action(t.voice), t.rstrip_end(0, limit))
    name = html.unescape(text[tag + len("<tool>"):name_end].strip())
    t.first_start = tag
    if ti < 0:
        tool = check_name(t, name, name_end)
        if tool is FINAL:  # the final answer named as a tool, with nothing to say
            raise TurnError("missing_answer", feedback.missing_answer(t.voice), name_end + len("</tool>"))
        raise TurnError("missing_input", feedback.missing_input(t.voice, str(tool)), name_end + len("</tool>"),
                        detail=str(tool))
    start = ti + len("<tool_input>")
    close = text.find("</tool_input>", start, limit)  # LangChain stops generation at it: often missing
    stop = limit if close < 0 else close
    end = t.rstrip_end(start, stop) if close < 0 else close + len("</tool_input>")
    raw = html.unescape(text[start:stop].strip())
    args = object_or_text(raw)
    tool = check_name(t, name, end, args)
    if tool is FINAL:
        t.final_end = end
        return Reading((), final_text(t, args, end), end)
    if isinstance(args, dict):
        reject_placeholder(t, args, end)
    else:
        args = bare_args(t, args, end)
    return Reading((Call(name, args, tag, end, tool=str(tool)),), None, end)


def inline_tool(t: Turn) -> Optional[Reading]:
    """Haystack 1.x on one line: ``... Tool: Search Tool Input: "where"``."""
    text, limit = t.text, t.limit
    k = text.find("Tool Input:", 0, limit)
    if k < 0:
        k = text.find("tool input:", 0, limit)
    if k < 0:
        return None
    line = text.rfind("\n", 0, k) + 1
    colon = max(text.rfind("Tool:", line, k), text.rfind("tool:", line, k))
    if colon < 0 or (colon > line and not text[colon - 1].isspace()):
        return None
    name = text[colon + len("Tool:"):k].strip()
    le = t.line_end(k)
    p = t.first_char(k + len("Tool Input:"), le)
    if not name or p >= le:
        return None
    t.first_start = colon
    t.add("inline_input")
    args, end = input_value(t, p, le, name, multiline=True)
    tool = check_name(t, name, end, args)
    if tool is FINAL:
        t.final_end = end
        return Reading((), final_text(t, args, end), end)
    return Reading((Call(name, args, colon, end, tool=str(tool)),), None, end)


def bare_paper(t: Turn) -> Optional[Reading]:
    """A line that is only ``Search[x]`` or ``Finish[x]``, with no label (the ReAct paper's own turns)."""
    text = t.text
    for k, m in enumerate(PAPER_LINE.finditer(text, 0, t.limit)):
        if k >= MAX_ECHOES:
            return None
        name = m.group(1)
        known = t.ts.lookup(name) is not None if t.ts is not None else name in ("Search", "Lookup")
        if not (known or is_final_name(name)):
            continue
        start = m.start(1)
        le = t.line_end(start)
        if text[start:le].rstrip().endswith("]"):
            t.first_start = start
            t.add("unlabeled_action")
            got = read_paper(t, start, name, m.end(1), le)
            if isinstance(got, str):
                return Reading((), got, t.final_end)
            return Reading(tuple(got), None, got[-1].end)
    return None
