"""An ``Action:`` line: a bare name over an ``Action Input:``, a call, a JSON blob, or an inline input."""

from __future__ import annotations

from typing import Union

from . import feedback, jsonish
from .blobs import action_blob
from .calls import read_call, read_paper
from .labels import inline_input_label
from .lines import first_of
from .names import IDENT, clean_name, is_final_name
from .placeholders import reject_placeholder
from .slots import check_name, final_text
from .turn import FINAL, Call, Turn, TurnError
from .values import (
    args_from_value,
    input_value,
    json_error,
    read_input,
    read_structured,
)


def read_action(t: Turn, start: int, cstart: int, le: int) -> Union[list, str]:
    """Read the action whose label opens the line at ``start``: calls, or a final answer."""
    text = t.text
    p = t.first_char(cstart, le)
    if p >= le:  # "Action:" alone: the blob or the name is on a following line
        q = t.skip_blank_lines(le + 1) if le < t.limit else t.limit
        if q >= t.limit or t.label(q) is not None:
            raise TurnError("no_action", feedback.no_action(t.voice), t.rstrip_end(0, le))
        qc = t.first_char(q, t.line_end(q))
        if text[qc] in "{[" or text.startswith(("```", "<tool_call>"), qc):
            return action_blob(t, start, qc)
        t.add("name_on_next_line")
        return read_action(t, start, q, t.line_end(q))
    slot_end = t.rstrip_end(p, le)
    slot = text[p:slot_end]
    reject_placeholder(t, slot, slot_end)
    if text[p] in "{[" or text.startswith(("```", "<tool_call>"), p):
        return action_blob(t, start, p)
    if (slot.isascii() and slot.isidentifier()) or IDENT.fullmatch(slot):  # a bare name (the usual case): no
        # bracket, colon or inline input label (an ASCII identifier is a name without a regex call)
        return named_action(t, start, slot, slot_end, le)
    opener = first_of(text, "([", p, slot_end)
    if opener >= 0 and call_name_ok(t, text[p:opener]):
        if text[opener] == "(" and input_label_below(t, le):
            # "Action: add (add two numbers)" over an "Action Input:" line: the parenthesis describes the tool
            t.add("tool_description")
            return named_action(t, start, text[p:opener], t.rstrip_end(p, opener), le)
        if text[opener] == "(":
            return read_call(t, start, text[p:opener], opener)
        return read_paper(t, start, text[p:opener], opener, slot_end)
    inline = inline_input_label(text, p, slot_end)
    if inline is not None:  # "Action: search Action Input: x" on one line
        name_end, value_start = inline
        if value_start < slot_end:
            t.add("inline_input")
            args, end = input_value(t, value_start, le, text[p:name_end])
            tool = check_name(t, text[p:name_end], end, args)
            if tool is FINAL:
                t.final_end = end
                return final_text(t, args, end)
            return [Call(text[p:name_end], args, start, end, tool=str(tool))]
    colon = first_of(text, ":：", p, slot_end)
    if colon > p and t.ts is not None and t.ts.lookup(clean_name(text[p:colon])):
        # "Action: search: weather in Paris" (a known tool, the input on the same line)
        q = t.skip_blank_lines(le + 1) if le < t.limit else t.limit
        lab = t.label(q)
        value_start = t.first_char(colon + 1, slot_end)
        if (lab is None or lab[0] != "input") and value_start < slot_end:
            t.add("inline_input")
            args, end = input_value(t, value_start, le, text[p:colon])
            return [Call(text[p:colon], args, start, end)]
    return named_action(t, start, slot, slot_end, le)


def input_label_below(t: Turn, le: int) -> bool:
    q = t.skip_blank_lines(le + 1) if le < t.limit else t.limit
    lab = t.label(q)
    return lab is not None and lab[0] == "input"


def call_name_ok(t: Turn, name_raw: str) -> bool:
    """Whether the text before ``(`` or ``[`` is a name (not a sentence that holds a bracket)."""
    cleaned = clean_name(name_raw)
    if not cleaned or len(cleaned) > 100:
        return False
    if IDENT.fullmatch(cleaned) is not None or is_final_name(cleaned):
        return True
    return t.ts is not None and t.ts.lookup(cleaned) is not None


def named_action(t: Turn, start: int, name: str, slot_end: int, le: int) -> Union[list, str]:
    """``Action: name`` with the input on the next non-blank line."""
    q = t.skip_blank_lines(le + 1) if le < t.limit else t.limit
    lab = t.label(q)
    args: Union[dict, str, None] = None
    end = slot_end
    if lab is not None and lab[0] == "input":
        if t.ts is not None:  # a correction of the input shows the tool named above it
            t.tried = t.ts.lookup(clean_name(name)) or t.tried
        try:
            args, end = read_input(t, lab[1])
        except TurnError as err:
            tool = check_name(t, name, slot_end)  # a bad name is the more useful error
            if err.detail is None and err.code in ("bad_arguments", "truncated") and isinstance(tool, str):
                err.detail = tool  # the input's reader does not know the tool
            raise
    elif lab is None and q < t.limit and t.starts_blob(q):
        qc = t.first_char(q, t.line_end(q))
        try:
            value, vstart, end = read_structured(t, qc)
        except jsonish.JsonishError as err:
            check_name(t, name, slot_end)
            raise json_error(t, err, name) from None
        t.add("unlabeled_input")
        args = args_from_value(t, value, vstart, end)
    tool = check_name(t, name, end, args)
    if args is None:
        if tool is FINAL:
            raise TurnError("missing_answer", feedback.missing_answer(t.voice), slot_end)
        if t.ts is not None and t.ts.takes_no_arguments(str(tool)):
            return [Call(name, {}, start, slot_end)]
        raise TurnError("missing_input", feedback.missing_input(t.voice, str(tool)), slot_end, detail=str(tool))
    if tool is FINAL:
        t.final_end = end
        return final_text(t, args, end)
    return [Call(name, args, start, end, tool=str(tool))]
